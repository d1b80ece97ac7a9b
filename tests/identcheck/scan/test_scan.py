"""identcheck scan: verdicts per grid value, brackets, exact checks, "for all", bad input, plots.

Values are checked against independent computations: ``check()`` at the same parameter value
(a separate parse of φ at that value, the driver's own probe loop), the known exceptional value
b = 0 of sigmoid(z + b) (σ(−z) = 1 − σ(z)), and sympy. Grids are tiny and d = 1 to keep the
suite fast; the scan's machinery does not depend on d.
"""

import json

import numpy as np
import pytest
import sympy as sp

from identcheck import Verdict, check, scan
from identcheck.cli.main import main
from identcheck.scan import MAX_COUNT, parse_scan_param
from identcheck.scan.plot import plot_scan
from identcheck.scan.report import SCHEMA


@pytest.fixture(scope="module")
def sigmoid_scan():
    """sigmoid(z + b), b in {-1, 0, 1} (d = 1), brackets refined to width 1/4."""
    return scan("sigmoid(z + b)", {"b": (-1, 1, 3)}, dim=1, width=sp.Rational(1, 4))


def test_grid_values_are_exact_and_evenly_spaced(sigmoid_scan):
    assert [g.values for g in sigmoid_scan.grid] == [(-1,), (0,), (1,)]
    assert all(isinstance(g.values[0], sp.Rational) for g in sigmoid_scan.grid)


@pytest.mark.parametrize("index", [0, 1])
def test_verdict_and_margins_equal_check_at_the_grid_value(sigmoid_scan, index):
    value = sigmoid_scan.grid[index]
    reference = check("sigmoid(z + b)", dim=1, params={"b": value.values[0]})
    assert value.verdict == reference.verdict
    for mine, theirs in zip(value.probes, reference.probes, strict=True):
        assert mine.name == theirs.name
        assert mine.dependent == theirs.dependent
        if mine.dependent:  # collapsed on the ladder; check may settle it by relations proved first instead
            assert mine.margin < 1e-30 and theirs.smallest_singular_value < 1e-13
            assert mine.digits == 60 and theirs.precision_digits in (16, 30, 60)
        else:
            assert mine.digits == theirs.precision_digits
            assert mine.margin == pytest.approx(theirs.smallest_singular_value, rel=1e-6)


def test_bracket_contains_b_zero_with_the_stated_width(sigmoid_scan):
    brackets = sigmoid_scan.brackets
    assert len(brackets) == 2  # identifiable -> not at b = 0 -> identifiable
    for b in brackets:
        assert b.lo <= 0 <= b.hi
        assert b.width <= b.target_width == sp.Rational(1, 4)
        assert b.steps == 2  # 1 -> 1/2 -> 1/4
    left, right = brackets
    assert (left.lo_verdict, left.hi_verdict) == (Verdict.IDENTIFIABLE, Verdict.NOT_IDENTIFIABLE)
    assert (left.lo, left.hi) == (sp.Rational(-1, 4), 0)
    # the refined end is a bisection point: its verdict, independently
    assert check("sigmoid(z + b)", dim=1, params={"b": left.lo}).verdict == Verdict.IDENTIFIABLE


def test_b_zero_is_checked_exactly_and_proved(sigmoid_scan):
    (point,) = sigmoid_scan.exceptional
    assert point.values == (("b", 0),)
    assert point.verdict == Verdict.NOT_IDENTIFIABLE
    assert point.family == "symmetry" and point.proved
    # sympy, independently: sigma(-z) = 1 - sigma(z), the symmetry behind it
    z = sp.Symbol("z")
    sigma = 1 / (1 + sp.exp(-z))
    assert sp.simplify(sigma.subs(z, -z) - (1 - sigma)) == 0
    assert sigmoid_scan.summary == ("identifiable at every grid value of b in [-1, 1] except b = 0 (symmetry, proved)")
    assert sigmoid_scan.for_all is None


def test_family_relation_proved_for_all_c():
    result = scan("tanh(z) + c*z", {"c": (-1, 1, 2)}, dim=1)
    assert all(g.verdict == Verdict.NOT_IDENTIFIABLE for g in result.grid)
    assert result.for_all is not None and result.for_all.family == "symmetry"
    assert "not identifiable for every c in [-1, 1]" in result.summary and "proved for every c" in result.summary
    # a value off the grid agrees (what "for all c" promises), by the independent driver
    off = check("tanh(z) + c*z", dim=1, params={"c": sp.Rational(1, 3)})
    assert off.verdict == Verdict.NOT_IDENTIFIABLE and off.witness_probe.relation.family == "symmetry"


def test_a_symmetry_with_a_quadratic_q_is_proved_for_every_c_and_read_as_written():
    """No grid value is a simple odd φ (c = 0 is outside): the exact check at c = 1/2 names the
    symmetry φ(−z) = 2c·z² − φ(z) itself, and the scan reads it for every c."""
    result = scan("tanh(z) + c*z**2", {"c": (sp.Rational(1, 2), 1, 2)})
    assert result.for_all is not None and result.for_all.family == "symmetry"
    assert result.summary == (
        "not identifiable for every c in [1/2, 1] where phi is defined "
        "(symmetry, proved for every c: phi(-z) = 2*c*z**2 - phi(z))"
    )
    assert "for all c: symmetry, phi(-z) = 2*c*z**2 - phi(z) (sympy, parameters symbolic)" in result.to_text()


def test_invalid_values_are_reported_and_the_scan_goes_on():
    result = scan("log(z + b)", {"b": (0, 4, 3)}, dim=1)
    first, *rest = result.grid
    assert first.verdict is None and first.reason.startswith("phi: phi is not") and first.probes == ()
    assert all(g.verdict is not None for g in rest)
    assert "not evaluated at 1 grid value(s) (first b = 0" in result.summary


def test_api_bad_input_names_the_parameter():
    from identcheck import IdentcheckError

    cases = [
        ({"b": (1, 1, 3)}, "LO must be below HI"),
        ({"b": (0, 1, 1)}, r"params=\{'b': \(0, 1, 1\)\}: COUNT 1 must be an integer from 2 to"),
        ({"b": (0, 1, MAX_COUNT + 1)}, f"from 2 to {MAX_COUNT}"),
        ({"q": (0, 1, 3)}, "does not use 'q'"),
        ({}, "nothing to scan"),
        ({"b": 1}, "nothing to scan"),
    ]
    for params, message in cases:
        with pytest.raises(IdentcheckError, match=message):
            scan("sigmoid(z + b)", params, dim=1)
    with pytest.raises(IdentcheckError, match="one or two"):
        scan("sigmoid(a*z + b) + c*z", {"a": (1, 2, 2), "b": (0, 1, 2), "c": (0, 1, 2)}, dim=1)


def test_parse_scan_param():
    assert parse_scan_param("b=-2:2:81") == ("b", (sp.Integer(-2), sp.Integer(2), 81))
    assert parse_scan_param("b=1/2") == ("b", sp.Rational(1, 2))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--param", "b=1:-1:5"], "--param 'b=1:-1:5': LO must be below HI"),
        (["--param", "b=-1:1:1"], "--param 'b=-1:1:1': COUNT 1 must be an integer from 2 to"),
        (["--param", f"b=-1:1:{MAX_COUNT + 1}"], "from 2 to"),
        (["--param", "c=-1:1:5"], "does not use 'c'"),
        (["--param", "b=-1:1:5", "--param", "b=1"], "given twice"),
        (["--param", "b=-1:1:x"], "COUNT 'x'"),
        (["--param", "b=-1:1"], "LO:HI:COUNT"),
        (["--param", "b=-1:1:5", "--condition", "mha"], "--condition 'mha': takes no expression"),
        (["--param", "b=-1:1:5", "--condition", "typ1"], "did you mean type1?"),
        (["--param", "b=-1:1:5", "--width", "-1"], "--width -1: must be positive"),
    ],
)
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, args, message):
    plot = tmp_path / "map.png"
    code = main(["scan", "sigmoid(z + b)", "--dim", "1", "--plot", str(plot), *args])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_three_scanned_parameters_exit_2(tmp_path, capsys):
    args = [
        "scan",
        "sigmoid(a*z + b) + c*z",
        "--param",
        "a=1:2:2",
        "--param",
        "b=0:1:2",
        "--param",
        "c=0:1:2",
        "--json",
    ]
    assert main(args) == 2
    out, err = capsys.readouterr()
    assert out == "" and "one or two" in err


def test_cli_bad_plot_path_exits_2_before_any_work(tmp_path, capsys):
    code = main(["scan", "sigmoid(z + b)", "--param", "b=-1:1:3", "--plot", str(tmp_path / "missing" / "x.png")])
    assert code == 2 and "does not exist" in capsys.readouterr().err
    code = main(["scan", "sigmoid(z + b)", "--param", "b=-1:1:3", "--plot", str(tmp_path / "x.pdf")])
    assert code == 2 and ".png" in capsys.readouterr().err


def test_cli_json_equals_the_api_and_plots(tmp_path, capsys):
    plot = tmp_path / "scan.png"
    code = main(
        ["scan", "sigmoid(z + b)", "--param", "b=1/2:1:2", "--dim", "1", "--jobs", "1", "--json", "--plot", str(plot)]
    )
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    api = scan("sigmoid(z + b)", {"b": (sp.Rational(1, 2), 1, 2)}, dim=1, include_zero=False).to_dict()
    for key in ("seconds", "timings"):
        printed.pop(key), api.pop(key)
    assert printed == api
    assert printed["schema"] == SCHEMA and printed["grid"][0]["values"] == ["1/2"]
    assert printed["environment"]["numpy"] == np.__version__ and printed["environment"]["blas"]  # where it was computed
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scan.png"]  # no temporary left


def test_two_parameters_parallel_and_heat_map(tmp_path):
    result = scan("sigmoid(a*z + b)", {"a": (1, 2, 2), "b": (-1, 1, 3)}, dim=1, width=sp.Rational(1, 2), jobs=2)
    assert result.shape == (2, 3)
    verdicts = np.array([g.verdict for g in result.grid], dtype=object).reshape(2, 3)
    assert list(verdicts[:, 1]) == [Verdict.NOT_IDENTIFIABLE] * 2  # b = 0: sigmoid(a z) is symmetric for every a
    assert all(v == Verdict.IDENTIFIABLE for v in verdicts[:, [0, 2]].ravel())
    assert {b.parameter for b in result.brackets} == {"b"} and len(result.brackets) == 4
    assert sorted(e.values for e in result.exceptional) == [(("a", 1), ("b", 0)), (("a", 2), ("b", 0))]
    assert result.summary.endswith("except b = 0 for every grid value of a (symmetry, proved at 2 of 2)")
    plot_scan(result, str(tmp_path / "map.png"))
    assert (tmp_path / "map.png").read_bytes()[:4] == b"\x89PNG"


def test_markdown_and_text_render(sigmoid_scan):
    text = sigmoid_scan.to_text()
    assert sigmoid_scan.summary in text and "bracket: b in [-1/4, 0]" in text
    markdown = sigmoid_scan._repr_markdown_()
    assert "| b | verdict |" in markdown and "symmetry, proved" in markdown
    assert json.loads(json.dumps(sigmoid_scan.to_dict()))["axes"] == [{"name": "b", "lo": "-1", "hi": "1", "count": 3}]


def test_type2_scan_counts_only_admissible_probes_like_check():
    """Uniform gating violates (A.4): check() reports it apart, and so must the scan — at b = 1
    it alone is dependent for atan(z + b), so counting it would flip the verdict."""
    result = scan("atan(z + b)", {"b": (1, 2, 2)}, condition="type2", dim=1)
    at_one = result.grid[0]
    reference = check("atan(z + 1)", condition="type2", dim=1)
    assert at_one.verdict == reference.verdict == "identifiable"
    uniform = next(p for p in at_one.probes if p.name.startswith("all M = 0"))
    assert uniform.dependent and not uniform.counts
    assert [p.counts for p in at_one.probes] == [p.counts_for_verdict for p in reference.probes]
