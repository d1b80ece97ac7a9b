"""numeric confirm: known cases as data, verdict rule, JSON shape, CLI = API, bad input."""

import argparse
import json
from functools import lru_cache

import numpy as np
import pytest

from identcheck import IdentcheckError, check
from numeric.confirm import OUTCOMES, SLOPE_TO_ZERO, Sequence, confirm
from numeric.confirm import cli as confirm_cli
from numeric.confirm import run as confirm_module
from numeric.confirm.cli import format_result
from numeric.confirm.outcome import paths_outcome

MC = 4000

# (phi, condition, identcheck verdict, witness probe, witness construction, exact invariance, outcome of the paths,
#  every random path at the generic truth bounded)
KNOWN = [
    # φ = z: the random split is an exact invariance too (φ linear), so not every random path is bounded
    ("z", "type1", "not identifiable", "random single", "euler-scale", True, "consistent", False),
    ("tanh(z)", "type1", "not identifiable", "shared M, a2 = -a1", "weights", True, "consistent", True),
    ("sigmoid(z + 1)", "type1", "identifiable", None, None, None, "consistent", True),
    # the sufficient condition fails, the model does not: the heat relation of ū does not lift to the
    # softmax-normalised Setting I model (docs/confirm.md, "exp(z)"); every path shows a positive plateau
    ("exp(z)", "type1", "not identifiable", "random single", "split", False, "identifiable-beyond-condition", True),
    # identcheck names the heat relation first; the exact witness is the odd symmetry at a2 = -a1
    ("sin(z)", "type1", "not identifiable", "random single", "weights", True, "consistent", True),
    pytest.param(
        "z",
        "type2",
        "not identifiable",
        "random head",
        "euler-scale",
        True,
        "consistent",
        False,
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "tanh(z)",
        "type2",
        "not identifiable",
        "channel 2 = -channel 1",
        "weights",
        True,
        "consistent",
        True,
        marks=pytest.mark.slow,
    ),
    pytest.param(
        "sigmoid(z + 1)", "type2", "identifiable", None, None, None, "consistent", True, marks=pytest.mark.slow
    ),
]


@lru_cache(maxsize=None)
def _confirmed(phi, condition="type1"):
    return confirm(phi, condition=condition, mc=MC, rates=False)


@pytest.mark.parametrize("phi, condition, verdict, probe, construction, exact, outcome, random_bounded", KNOWN)
def test_known_case(phi, condition, verdict, probe, construction, exact, outcome, random_bounded):
    again = f"numeric confirm '{phi}' --condition {condition} --no-rates --mc {MC}"
    result = _confirmed(phi, condition)
    assert result.symbolic.verdict == verdict, again
    assert result.outcome == result.paths_outcome == outcome, f"{again}: {result.verdict}"
    assert result.separation is None, again  # no rates, nothing to separate
    for s in result.sequences:  # a bounded path shows its plateau: smallest-t ratio within 2x of its limit
        if s.bounded and s.limit is not None:
            assert 0.5 <= s.ratio[-1] / s.limit <= 2.0, (again, s.name)
    assert all(s.bounded for s in result.sequences if s.kind == "random") is random_bounded, again
    witness = [s for s in result.sequences if s.kind == "witness"]
    if probe is None:
        assert not witness, again
        assert all(s.bounded for s in result.sequences), again
        return
    assert result.symbolic.witness_probe == probe, again
    (w,) = witness
    assert w.construction == construction, again
    assert w.exact_invariance is exact, again
    if exact:
        assert w.slope is None and set(w.ratio) == {0.0}, again
    else:
        assert w.slope is not None, again


def _sequence(kind, slope, exact=False, limit=None, construction="line", last=None):
    ratio = (0.0,) * 3 if exact else (1e-1, 1e-2, 1e-3 if last is None else last)
    if not exact and limit is None and last is None and slope is not None and slope < SLOPE_TO_ZERO:
        ratio = (1e-2, 1e-2, 1e-2)  # a slope below SLOPE_TO_ZERO: the data level off (a flat tail)
    return Sequence(
        kind,
        kind,
        construction,
        "",
        (1e-1, 1e-2, 1e-3),
        ratio,
        (0.0,) * 3,
        (1.0,) * 3,
        None if exact else slope,
        exact,
        0.0,
        limit,
        None,
    )


class _Check:
    def __init__(self, verdict):
        self.verdict, self.witness, self.summary = verdict, "p", "s"


@pytest.mark.parametrize(
    "verdict, sequences, expected",
    [
        ("not identifiable", [_sequence("witness", None, exact=True)], "consistent"),
        ("not identifiable", [_sequence("witness", SLOPE_TO_ZERO)], "consistent"),
        # no limit, a flat slope: bounded by the slope rule, nothing else to read -> beyond the condition
        (
            "not identifiable",
            [_sequence("witness", SLOPE_TO_ZERO - 0.01, construction="split")],
            "identifiable-beyond-condition",
        ),
        # falls in the window, levels off at 1e-3 (its plateau, reached) -> beyond the condition
        (
            "not identifiable",
            [_sequence("witness", 1.0, limit=1e-3, construction="split")],
            "identifiable-beyond-condition",
        ),
        # falls in the window, a limit of 1e-9 the data never reach -> not resolved
        ("not identifiable", [_sequence("witness", 1.0, limit=1e-9, construction="split")], "not-resolved"),
        # an exact-by-derivation construction that moves g: a real contradiction
        (
            "not identifiable",
            [_sequence("witness", 0.0, limit=1e-3, construction="weights", last=1e-3)],
            "inconsistent",
        ),
        ("not identifiable", [_sequence("witness", 1.0, limit=0.0)], "consistent"),
        (
            "not identifiable",
            [_sequence("witness", 0.1, limit=0.0, construction="split")],
            "not-resolved",
        ),  # limit 0, no fall
        ("not identifiable", [_sequence("random", 0.0)], "not-resolved"),  # no witness path at all
        ("identifiable", [_sequence("probe", 0.9, limit=1e-3), _sequence("random", 0.0)], "consistent"),
        (
            "identifiable",
            [_sequence("probe", 0.9, limit=1e-7), _sequence("random", 0.0)],
            "not-resolved",
        ),  # plateau not reached
        ("identifiable", [_sequence("probe", 0.9, limit=0.0)], "inconsistent"),
        ("identifiable", [_sequence("random", None, exact=True)], "inconsistent"),
        ("identifiable", [_sequence("random", 0.3)], "inconsistent"),
        ("inconclusive", [_sequence("random", 0.0)], "nothing-to-confirm"),
    ],
)
def test_verdict_rule(verdict, sequences, expected):
    outcome, line = paths_outcome(_Check(verdict), sequences)
    assert outcome == expected and line.startswith(expected + ": ")
    assert outcome in OUTCOMES


def _parser():
    parser = argparse.ArgumentParser()
    confirm_cli.add_parser(parser.add_subparsers(dest="command"))
    return parser


def _run(argv):
    return confirm_cli.run(_parser().parse_args(["confirm", *argv]))


def test_cli_json_equals_api_and_has_the_documented_shape(tmp_path, capsys):
    out = tmp_path / "z"
    assert _run(["z", "--no-rates", "--mc", str(MC), "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    api = _confirmed("z").to_dict()
    assert printed["environment"]["blas"] and list(printed["environment"]) == list(api["environment"])
    for d in (printed, api):  # the environment: the CLI runs with one BLAS thread, the API as called
        for key in ("seconds", "sequence_seconds", "check_seconds", "rates_seconds", "out", "figure", "environment"):
            d.pop(key)
    assert printed == api
    assert {
        "schema",
        "phi",
        "condition",
        "symbolic",
        "sequences",
        "rates",
        "outcome",
        "paths_outcome",
        "rates_separation",
    } <= set(printed)
    assert printed["schema"] == "numeric.confirm/5" and "consistent" not in printed
    assert set(printed["symbolic"]) >= {"verdict", "evidence", "witness_probe"}
    assert {"kind", "name", "t", "ratio", "slope", "exact_invariance"} <= set(printed["sequences"][0])
    assert printed["sequences"][0]["slope"] is None and printed["sequences"][0]["exact_invariance"] is True
    assert json.loads((out / "confirm.json").read_text())["outcome"] == "consistent"
    assert (out / "confirm.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("phi, stand_in", [("z", "witness"), ("sigmoid(z + 1)", "hardest probe")])
def test_rates_grid_reports_both_truths_and_both_K(tmp_path, monkeypatch, phi, stand_in):
    """Two sizes carry no interval: every row says so and separates nothing. An identifiable phi has no
    witness: its least independent probe's truth is named for what it is."""
    monkeypatch.setattr(confirm_module, "QUICK_SIZES", (400, 800))
    monkeypatch.setattr(confirm_module, "QUICK_REPS", 2)
    result = confirm(phi, quick=True, mc=MC, out=tmp_path, budget=1e-3)  # no time to grow the grid
    rows = {(r.truth, r.K): r for r in result.rates}
    assert set(rows) == {(stand_in, 2), (stand_in, 3), ("generic", 2), ("generic", 3)}
    for r in rows.values():
        assert r.ci is None and r.to_dict()["interval"] == "none" and r.to_dict()["ci"] is None
        assert "no interval: 2 sizes, 2 repetitions" in format_result(result)
    if phi != "z":
        assert "rate witness" not in format_result(result)
        return
    assert result.separation is not None and "nothing to separate" in result.separation.reason
    assert (
        result.separation is not None
        and result.separation.rounds == 1
        and "time budget ends" in result.separation.reason
    )
    assert result.outcome == "rates-not-separated"
    for r in rows.values():
        assert r.signal_to_noise >= 10 and r.repetitions == 2
        assert r.to_dict()["specified"] == ("exact" if r.K == r.K_star else "over")


def test_phi_refused_by_identcheck_exits_2_with_its_message(tmp_path, capsys):
    with pytest.raises(IdentcheckError) as refused:
        check("abs(z)")
    out = tmp_path / "never"
    assert _run(["abs(z)", "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip() == f"numeric: error: {refused.value}"
    assert not out.exists()


def test_phi_overflowing_on_the_data_range_exits_2_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "never"
    assert _run(["exp(exp(exp(z)))", "--quick", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "overflows on the data's range" in err and err.count("\n") == 1
    assert not out.exists()


def test_confirm_takes_phi_constants_like_identcheck():
    """sigmoid(z + b) with b = 1 is sigmoid(z + 1): the same symbolic verdict and the same ratios (the
    first computed by the hand-written model, φ having a named constant, the second by the declaration).
    The two codes' Jacobians differ by rounding (1e-16); a path along the Jacobian's smallest singular
    vector (s_min/s_max ~ 1e-6) and the ratio's cancellation at t = 1e-4 amplify it to ~1e-7 relative."""
    from numeric.confirm import confirm

    with_param = confirm("sigmoid(z + b)", quick=True, rates=False, figure=False, params={"b": "1"})
    literal = confirm("sigmoid(z + 1)", quick=True, rates=False, figure=False)
    assert with_param.phi == "sigmoid(z + b) [b=1]"
    assert with_param.symbolic.verdict == literal.symbolic.verdict == "identifiable"
    assert len(with_param.sequences) == len(literal.sequences)
    for a, b in zip(with_param.sequences, literal.sequences):
        assert np.allclose(a.ratio, b.ratio, rtol=1e-6, atol=0)
