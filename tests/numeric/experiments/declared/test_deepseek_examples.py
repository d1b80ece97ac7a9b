"""The DeepSeekMoE declarations of docs/examples/ (docs/conditions/deepseekmoe.md, "What the failures
of Definition 1 mean for estimation"): each reads as written (normalised, its routed gate varying in
x), runs as a declared grid, and the relations the section names hold for its per-atom function
F = exp(β1ᵀx + β0)·N(y | h, ν), checked with sympy apart from identcheck's model check."""

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from identcheck.declaration import atom_functions, digest, read_declaration, read_example
from numeric.cli.main import main
from numeric.experiments.declared import read_declared

FOLDER = Path(__file__).resolve().parents[4] / "docs" / "examples"
NAMES = (
    "deepseek-gelu-gate",
    "deepseek-gelu-d2",
    "deepseek-tanh-gate",
    "deepseek-tanh-bias",
    "deepseek-d2-gate",
    "deepseek-gelu-mild",
    "deepseek-gelu-d2-mild",
    "deepseek-tanh-mild",
    "deepseek-tanh-bias-mild",
    "deepseek-d3-gate",
)


def _read(name):
    return read_declaration(FOLDER / f"{name}.toml")


def _routed(model):
    part = next(p for p in model.parts if p.name == "routed")
    return part, atom_functions(model, part)


def test_the_folder_holds_exactly_these_deepseek_declarations():
    assert sorted(p.stem for p in FOLDER.glob("deepseek-*.toml")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_reads_normalised_with_a_gate_varying_in_x(name):
    model = _read(name)
    assert model.name == name
    assert model.notes == ()  # written at the reference atom, gate not constant: the reader notes nothing
    part, _ = _routed(model)
    slopes = {dict(atom.values)["beta1"] for atom in part.truth}
    assert len(slopes) == len(part.truth)  # distinct true beta1: the gate varies with x


def test_d3_gate_is_d3_with_the_second_routed_beta1_moved():
    """deepseek-d3-gate (docs/conditions/deepseekmoe.md, "D3 with a gate varying in x") is the shipped D3
    but for the second routed atom's β1 = −5: the first, the one the papers' start over-fits, keeps β1 = 0."""
    gate, printed = _read("deepseek-d3-gate"), read_example("deepseek-d3")
    assert [dict(a.values)["beta1"] for a in gate.part("routed").truth] == [(0.0,), (-5.0,)]
    assert [dict(a.values)["beta1"] for a in printed.part("routed").truth] == [(0.0,), (0.0,)]
    moved = printed.to_dict()
    moved["parts"]["routed"]["truth"][1]["beta1"] = [-5.0]
    ours = gate.to_dict()
    for data in (moved, ours):
        del data["name"], data["description"], data["source"], data["notes"]
    assert ours == moved


def test_the_declarations_are_distinct_models():
    assert len({digest(_read(name)) for name in NAMES}) == len(NAMES)


def _derivative(term, *symbols):
    return sp.diff(term, *symbols)


def _symbol(functions, label):
    return functions.params[functions.labels.index(label)]


def test_bias_shift_under_the_softmax_is_a_relation_of_f_for_every_theta():
    # dF/deta1 = d2F/dbeta1 deta0: x·dF/deta0 is the gate's derivative of dF/deta0
    _, f = _routed(_read("deepseek-tanh-bias-mild"))
    b1, e1, e0 = (_symbol(f, label) for label in ("beta1⁽¹⁾", "eta1⁽¹⁾", "eta0"))
    assert sp.simplify(_derivative(f.term, e1) - _derivative(f.term, b1, e0)) == 0


def test_without_a_bias_the_gate_ties_no_first_derivative():
    # tanh(eta1 x): dF/deta1 is no multiple of d2F/dbeta1 deta2 (the only x-multiplied derivative near it)
    _, f = _routed(_read("deepseek-tanh-mild"))
    b1, e1, e2 = (_symbol(f, label) for label in ("beta1⁽¹⁾", "eta1⁽¹⁾", "eta2"))
    ratio = sp.simplify(_derivative(f.term, e1) / _derivative(f.term, b1, e2))
    assert ratio.free_symbols & set(f.x)  # depends on x: no relation with a constant coefficient


def test_ridge_swap_at_d2_becomes_two_equal_mixed_derivatives_of_f():
    _, f = _routed(_read("deepseek-gelu-d2-mild"))
    b11, b12, e11, e12 = (_symbol(f, label) for label in ("beta1⁽¹⁾", "beta1⁽²⁾", "eta1⁽¹⁾", "eta1⁽²⁾"))
    assert sp.simplify(_derivative(f.term, b12, e11) - _derivative(f.term, b11, e12)) == 0


def test_scale_second_derivative_vanishes_for_h_but_not_for_f():
    # d2h/deta2^2 = 0, while d2F/deta2^2 = (dh/deta2)^2 d2N/dh2 · gate: the move reappears in y
    _, f = _routed(_read("deepseek-gelu-mild"))
    e2 = _symbol(f, "eta2")
    assert sp.diff(f.expert, e2, 2) == 0
    point = {**{s: sp.Rational(1, 3) for s in f.params}, **{x: sp.Rational(1, 2) for x in f.x}, f.y: sp.Rational(1, 5)}
    assert sp.N(_derivative(f.term, e2, e2).subs(point)) != 0


@pytest.mark.parametrize("name", ["deepseek-tanh-bias-mild", "deepseek-gelu-d2-mild"])
def test_a_small_grid_runs_and_stores_every_fit(name, tmp_path, capsys):
    argv = ["reproduce", "--model-file", str(FOLDER / f"{name}.toml"), "--sizes", "200", "300", "--reps", "1"]
    assert main(argv + ["--jobs", "1", "--out", str(tmp_path), "--json"]) == 0
    _, records = read_declared(tmp_path)
    assert sorted(r.n for r in records) == [200, 300]


def _order_along(name, moves, weights=(1.0, 0.5)):
    """Slope in log ε of the L² norm (grid on [−3, 3] × [−12, 12]) of Σ_i p_i F(θ* + ε m_i) − Σ p_i F(θ*)."""
    model = _read(name)
    part, f = _routed(model)
    term = sp.lambdify([*f.x, f.y, *f.params], f.term, "numpy")
    truth = {str(s): float(v) for s, v in f.values(part.truth[0]).items()}
    x, y = np.meshgrid(np.linspace(-3, 3, 201), np.linspace(-12, 12, 401))

    def at(shift):
        return term(x, y, *[truth[str(s)] + shift.get(f.labels[i], 0.0) for i, s in enumerate(f.params)])

    star = at({})
    eps = np.array([0.1, 0.05, 0.025, 0.0125])
    norms = []
    for e in eps:
        moved = sum(w * at({k: e * v for k, v in m.items()}) for w, m in zip(weights, moves))
        norms.append(np.sqrt(np.mean((moved - sum(weights) * star) ** 2)))
    return np.polyfit(np.log(eps), np.log(norms), 1)[0]


def test_the_checks_r3_witness_with_a_bias_closes_f_only_to_second_order():
    # witness at r = 3 of identcheck model on deepseek-tanh-bias-mild: p = (1, 1/2), Δη1 = ε(1, −2)
    witness = [{"eta1⁽¹⁾": 1.0}, {"eta1⁽¹⁾": -2.0}]
    assert 1.8 < _order_along("deepseek-tanh-bias-mild", witness) < 2.3
    assert 1.8 < _order_along("deepseek-tanh-mild", witness) < 2.3  # the same order without a bias
    # an unbalanced move (Σ p Δη1 ≠ 0) is first order: the measure tells the orders apart
    assert 0.8 < _order_along("deepseek-tanh-bias-mild", [{"eta1⁽¹⁾": 1.0}, {"eta1⁽¹⁾": 1.0}]) < 1.2
