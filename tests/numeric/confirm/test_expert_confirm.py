"""``numeric confirm`` for expert conditions: the declared model's density, the paths built from
identcheck's relations, and the command line's bad input (docs/confirm.md, "Expert conditions").

The values are checked against a density and a loss written out here by hand for the DeepSeekMoE
model with a tanh shared expert and the user's routed expert (not numeric.model's code)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import identcheck
from numeric.confirm.expert_model import expert_setting, generic_atoms
from numeric.confirm.expert_paths import expert_sequence, relation_path, split_path
from numeric.confirm.expert_rates import ExpertRate
from numeric.confirm.expert_run import FIGURE_LABELS, confirm_expert
from numeric.confirm.plot import confirm_figure
from numeric.confirm.run import T_VALUES
from numeric.errors import NumericError
from numeric.experiments.slope import SlopeEstimate

BIAS = "eta2*tanh(dot(eta1, x) + eta0)"
PRODUCT = "eta2*eta3*tanh(dot(eta1, x))"


def _normal(y, mean, variance):
    return np.exp(-0.5 * (y - mean) ** 2 / variance) / np.sqrt(2 * np.pi * variance)


def _hand_density(x, y, routed, shared):
    """½ Σ ω_i N(y | k2 tanh(k1 x + k0), τ) + ½ Σ softmax_i(β1 x + β0) N(y | h2(x; η_i), ν_i), with
    routed rows (β1, β0, η2, η1, η0, ν) for BIAS and shared rows (ω, k2, k1, k0, τ)."""
    scores = np.array([b1 * x + b0 for b1, b0, *_ in routed])
    gate = np.exp(scores - scores.max(axis=0))
    gate /= gate.sum(axis=0)
    f = np.zeros_like(x)
    for g, (_, _, e2, e1, e0, nu) in zip(gate, routed):
        f += 0.5 * g * _normal(y, e2 * np.tanh(e1 * x + e0), nu)
    total = sum(row[0] for row in shared)
    for omega, k2, k1, k0, tau in shared:
        f += 0.5 * omega / total * _normal(y, k2 * np.tanh(k1 * x + k0), tau)
    return f


@pytest.fixture(scope="module")
def bias_check():
    return identcheck.check(BIAS, condition="deepseek-routed", dim=1, seed=0)


def _probe(check, name):
    return next(p for p in check.probes if p.name == name)


def test_density_matches_the_hand_formula(bias_check):
    probe = _probe(bias_check, "S3: random, k = 2")
    s = expert_setting("deepseek-routed", BIAS, [a.values for a in probe.components])
    routed = [tuple(row) for row in s.truth.atoms[0]]
    shared = [tuple(row) for row in s.truth.atoms[1]]
    hand = _hand_density(s.X[:, 0], s.Y, routed, shared)
    assert np.allclose(s.density(s.truth), hand, rtol=1e-12, atol=1e-15)
    # the quadrature integrates a conditional density to 1 (mean over x of its integral in y)
    assert s.weights @ hand == pytest.approx(1.0, abs=1e-6)


def test_uncompensated_split_limit_by_hand(bias_check):
    """ρ₀ of the bare split = ‖Q‖/ℓ: Q from a second difference of the hand density, ℓ = e^{β0}·‖v‖²
    (two halves of weight e^{β0}/2, each at distance √t‖v‖, squared in a two-member cell)."""
    probe = _probe(bias_check, "S3: random, k = 2")
    s = expert_setting("deepseek-routed", BIAS, [a.values for a in probe.components])
    J = s.jacobian()
    v = np.array([0.6, 0.0, 0.0, 0.0, 0.8, 0.0])  # (β1, β0, η2, η1, η0, ν): the bias shift's (β1, η0) plane
    path = split_path(s, J, 0, v, "random", "bare", compensate=False)
    routed = [tuple(row) for row in s.truth.atoms[0]]
    shared = [tuple(row) for row in s.truth.atoms[1]]
    step = 1e-3
    plus = np.array(routed[0]) + step * v
    minus = np.array(routed[0]) - step * v
    plus[1] = minus[1] = routed[0][1] - np.log(2)
    split = [tuple(plus), tuple(minus), routed[1]]
    x, y = s.X[:, 0], s.Y
    Q = (_hand_density(x, y, split, shared) - _hand_density(x, y, routed, shared)) / step**2
    ell = np.exp(routed[0][1]) * (v[0] ** 2 + v[4] ** 2)
    assert path.limit == pytest.approx(s.norm(Q) / ell, rel=1e-4)


def test_bias_shift_witness_stays_bounded(bias_check):
    """The bias shift ∂h/∂η1 = x·∂h/∂η0 pairs ∂f/∂η1 with ∂²f/∂β1∂η0; the split in (β1, η0) with its
    first-order compensation leaves ∂²f/∂β1² and ∂²f/∂η0² (x²·F, N_μμ h_η0² + N_μ h_η0η0), which no
    first-order move absorbs: the ratio stays bounded, as the model-level check (r̄(2) = 4, D1's
    over-fitted exponent 2) says."""
    probe = _probe(bias_check, "S3: random, k = 2")
    relation = next(r for r in probe.relations if r.family and r.family.startswith("bias shift"))
    s = expert_setting("deepseek-routed", BIAS, [a.values for a in probe.components])
    J = s.jacobian()
    path = relation_path(s, J, relation)
    assert path.construction == "split"
    q = expert_sequence(path, J, T_VALUES)
    assert q.status == "bounded" and q.limit > 1e-4
    assert q.ratio[-1] == pytest.approx(q.limit, rel=0.05)
    # the compensation helps, but does not absorb the second order
    bare = split_path(s, J, 0, np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0]) + _split_v(path), "random", "b", False)
    assert 0 < path.sensitivity < 1 and path.limit < bare.limit


def _split_v(path):
    text = path.note.split("v = ")[1].split("]")[0] + "]"
    return np.array(json.loads(text))


def test_product_redundancy_goes_to_zero_with_slope_one():
    """h = η2η3 tanh(η1 x): η2∂h/∂η2 = η3∂h/∂η3, a null direction of the model, so ‖Δf‖ = O(t²)
    while D ≍ t; along the line the exact change is Δh = −t²c²·η2η3 tanh(η1 x) (c the tangent's
    scale), checked with the hand density."""
    check = identcheck.check(PRODUCT, condition="deepseek-routed", dim=1, seed=0)
    probe = _probe(check, "S3: random, k = 2")
    relation = next(r for r in probe.relations if r.family == "coinciding members")
    s = expert_setting("deepseek-routed", PRODUCT, [a.values for a in probe.components])
    J = s.jacobian()
    path = relation_path(s, J, relation)
    q = expert_sequence(path, J, T_VALUES)
    assert q.status == "to zero" and q.limit == 0.0
    assert q.slope == pytest.approx(1.0, abs=0.02)
    # the ratio at t = 1e-2 by hand: the line moves (η2, η3) of atom 1 only (the projection keeps the relation)
    t = 1e-2
    moved = path.build(t).atoms[0]
    truth = s.truth.atoms[0]
    assert np.allclose(np.delete(moved, [2, 3], axis=1), np.delete(truth, [2, 3], axis=1), atol=1e-9)
    x, y = s.X[:, 0], s.Y

    def density(rows):
        return _hand_density(x, y, [(b1, b0, e2 * e3, e1, 0.0, nu) for b1, b0, e2, e3, e1, nu in rows], shared)

    shared = [tuple(row) for row in s.truth.atoms[1]]
    distance = s.norm(density(moved) - density(truth))
    loss = np.exp(truth[0, 1]) * np.linalg.norm(moved[0, 2:5] - truth[0, 2:5])  # one-member cell, exponent 1
    at = q.t.index(min(q.t[: q.window], key=lambda v: abs(v - t)))
    assert q.ratio[at] == pytest.approx(distance / loss, rel=1e-6)


def test_public_api():
    import numeric.confirm

    assert numeric.confirm.confirm_expert is confirm_expert


def test_generic_atoms_are_seeded_and_bounded_away_from_zero():
    from identcheck.parse.expert import parse_expert

    expert = parse_expert(BIAS, 1)
    a, b = generic_atoms(expert, 3), generic_atoms(expert, 3)
    assert a == b and all(0.5 <= abs(v) <= 1.5 for atom in a for v in atom)


@pytest.mark.parametrize(
    "condition, expert, words",
    [
        ("type1-full", BIAS, "condition"),
        ("deepseek-routed", "eta2*foo(dot(eta1, x))", "expert"),
        ("deepseek-routed", "beta0*tanh(dot(eta1, x))", "beta0"),
    ],
)
def test_bad_input_is_refused(condition, expert, words, tmp_path):
    with pytest.raises((NumericError, identcheck.IdentcheckError)) as info:
        confirm_expert(expert, condition=condition, out=tmp_path / "out", model_check=False)
    assert words in str(info.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--condition", "deepseek-routed"], "needs --expert"),
        (["--condition", "deepseek-routed", "--expert", "eta2*foo(dot(eta1, x))"], "unknown function"),
        (["--condition", "deepseek-shared", "--expert", "tau*tanh(dot(k1, x))"], "'tau'"),
        (["--condition", "deepseek-routed", "--expert", "eta2*relu(dot(eta1, x))"], "relu"),
        (["--condition", "nope", "--expert", BIAS], "nope"),
        (["tanh(z)", "--condition", "deepseek-routed", "--expert", BIAS], "not PHI"),
        (["--expert", BIAS], "only with an expert condition"),
        (["--condition", "deepseek-routed", "--expert", BIAS, "--budget", "30"], "--budget: not used"),
        (["--condition", "deepseek-routed", "--expert", BIAS, "--mc", "1000"], "--mc: not used"),
        (["--condition", "deepseek-routed", "--expert", BIAS, "--K", "4"], "--K: not used"),
        (["--condition", "deepseek-routed", "--expert", BIAS, "--param", "c=1"], "--param: not used"),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, words, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "numeric", "confirm", *argv, "--no-rates", "--out", str(out)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1 and words in done.stderr
    assert not out.exists()


@pytest.mark.slow
def test_end_to_end_routed_json(tmp_path):
    """The whole command, quick (about 30 s): the bias relation's witness levels off, but at the sign
    pair θ2 = −θ1 the odd tanh makes the two routed atoms one component (equal ν), so f does not move
    along that probe's least sensitive direction (the gate); the model-level check there finds every
    cell identifiable but cannot decide the whole model (its softmax denominator couples the cells of
    atoms sharing an expert)."""
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "numeric", "confirm", "--condition", "deepseek-routed", "--expert", BIAS]
        + ["--quick", "--json", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["schema"] == "numeric.confirm/5" and data["expert"] == BIAS and data["part"] == "routed"
    assert data["symbolic"]["verdict"] == "not identifiable"
    witness = data["sequences"][0]
    assert witness["kind"] == "witness" and witness["status"] == "bounded"
    sign = next(s for s in data["sequences"] if s["name"] == "S3: sign pair θ2 = −θ1")
    assert sign["exact_invariance"] and sign["status"] == "to zero"
    assert data["outcome"] == "consistent"
    assert data["model_check"]["truth"] == "probe 'S3: sign pair θ2 = −θ1'"
    # per cell the atoms are identifiable (r̄(2) = 4), the whole model undecided: the paths disagree
    # with the per-cell prediction exactly where the cells couple (two atoms sharing an expert)
    assert data["model_check"]["prediction"] == "identifiable"
    assert data["model_check"]["verdict"] == "inconclusive"
    assert data["model_comparison"]["measured_agrees_per_cell"] is False
    assert [r["truth"] for r in data["rates"]] == ["probe S3: sign pair θ2 = −θ1", "generic"]
    assert all(r["fits"] == 9 and len(r["sizes"]) == 3 for r in data["rates"])
    assert json.loads((out / "confirm.json").read_text())["outcome"] == data["outcome"]
    assert data["figure"] == str(out / "confirm.png")
    assert (out / "confirm.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.filterwarnings("ignore:No artists with labels")  # no path drawn: the ratio panel has no legend
def test_the_figure_draws_an_expert_rate_grid_by_truth_with_the_expert_labels():
    """An expert confirmation's rate rows have no K: the rate panel labels each by its truth and slope, with the
    points at the given means and the fitted line through exp(c)·n^b; the axes carry the expert labels."""
    estimate = SlopeEstimate(-0.5, 1.0, -0.6, -0.4, "bootstrap", "", 3, 3)
    row = ExpertRate("generic", estimate, (2000, 8000, 32000), (0.1, 0.05, 0.025), 3, 9, 9, 0, "s")
    figure = confirm_figure((), "t", (row,), labels=FIGURE_LABELS)
    ratio_axes, rate_axes = figure.axes[:2]
    assert ratio_axes.get_ylabel() == FIGURE_LABELS[0] and rate_axes.get_ylabel() == FIGURE_LABELS[1]
    labels = [t.get_text() for t in rate_axes.get_legend().get_texts()]
    assert labels == [f"generic: {estimate.legend()}"]
    points, line = rate_axes.get_lines()[:2]
    assert list(points.get_ydata()) == [0.1, 0.05, 0.025]
    assert line.get_ydata()[1] == pytest.approx(np.exp(1.0) * 8000**-0.5, rel=1e-12)
