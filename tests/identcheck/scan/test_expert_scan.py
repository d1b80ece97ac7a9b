"""Scanning an expert's fixed constant, and any registered condition (identcheck/scan/family.py, expert.py).

Expected values by hand:

- ``tanh(dot(e1, x) + β)`` under Definition 2: on the sign pair e1, −e1 the members are
  ∂h/∂e1⁽ᵘ⁾ = x_u·tanh'(e1ᵀx + β) and x_u·tanh'(−e1ᵀx + β) = x_u·tanh'(e1ᵀx − β) (tanh' is even).
  sech² is strictly decreasing in |s|, so tanh'(s + β) = tanh'(s − β) for all s iff β = 0: the
  atoms tie exactly there. With β = b² − 1 that is b = ±1, and nowhere else.
- ``dot(k1, x) + k0 + c`` under S2: ∂h/∂k0 = 1 for every c, so (∂h1/∂k0)² = 1 is S2's constant —
  the paper's relation for linear experts, the same coefficients for every c: proved for all c.
- ``dot(k1, x) + c*k0`` under S2: ∂h/∂k0 = c, so (∂h1/∂k0)² = c²·1. At c = 1 the witness is
  (∂h1/∂k0)² − 1 = 0; with c free it reads c² − 1 = 0, false for c ≠ ±1: the scan must not claim
  it for all c (each grid value fails, with its own coefficient).
"""

import json

import pytest
import sympy as sp

from identcheck import CONDITIONS, IdentcheckError, Verdict, check
from identcheck.cli.main import main
from identcheck.conditions.type1 import Type1
from identcheck.parse.activation import parse_activation
from identcheck.scan import plot_scan, scan
from identcheck.scan.family import Family

N, I = Verdict.NOT_IDENTIFIABLE, Verdict.IDENTIFIABLE


def test_tanh_ridge_is_exceptional_at_zero_bias_only():
    result = scan("tanh(dot(e1, x) + b)", {"b": (-1, 1, 5)}, condition="deepseek-weak", width=sp.Rational(1, 8))
    assert [g.verdict for g in result.grid] == [I, I, N, I, I]
    [point] = result.exceptional
    assert point.values == (("b", 0),) and point.proved
    assert point.relation == "∂h2/∂e1⁽¹⁾[1] − ∂h2/∂e1⁽¹⁾[2] = 0" and point.family.startswith("atoms tied")
    assert [(b.lo, b.hi) for b in result.brackets] == [(sp.Rational(-1, 8), 0), (0, sp.Rational(1, 8))]
    assert result.to_text().startswith("scan of h(x; θ) = tanh(dot(e1, x) + b) over b in [-1, 1] (5 values)")
    assert result._repr_markdown_().startswith("**Scan of h(x; θ) = `tanh(dot(e1, x) + b)`** · deepseek-weak")


def test_the_verdict_changes_exactly_where_the_bias_vanishes():
    """β = b² − 1: the atoms of the sign pair tie at b = ±1 only (module docstring)."""
    result = scan(
        "tanh(dot(e1, x) + b*b - 1)", {"b": (-2, 2, 5)}, condition="deepseek-weak", width=sp.Rational(1, 8), jobs=2
    )
    assert [g.verdict for g in result.grid] == [I, N, I, N, I]
    assert [e.values for e in result.exceptional] == [(("b", -1),), (("b", 1),)]
    assert all(e.proved and e.family.startswith("atoms tied") for e in result.exceptional)
    for bracket in result.brackets:  # each bracket closes on ±1 from one side, 1/8 wide
        assert bracket.hi - bracket.lo == sp.Rational(1, 8) and 1 in (abs(bracket.lo), abs(bracket.hi))
    dependent = {m.name for g in result.grid if g.verdict == N for m in g.probes if m.dependent}
    assert dependent == {"D2: sign pair θ2 = −θ1"}
    assert result.for_all is None and "except b = -1" in result.summary


def test_a_map_of_two_constants_fails_on_the_line_where_the_bias_vanishes():
    """β = a + b: the atoms tie exactly on the anti-diagonal a + b = 0 (module docstring)."""
    result = scan(
        "tanh(dot(e1, x) + a + b)", {"a": (-1, 1, 3), "b": (-1, 1, 3)}, condition="deepseek-weak", width=1, jobs=2
    )
    assert result.shape == (3, 3)
    assert [g.values for g in result.grid if g.verdict == N] == [(-1, 1), (0, 0), (1, -1)]
    assert all(g.verdict == I for g in result.grid if sum(g.values) != 0)
    assert sorted(e.values for e in result.exceptional) == [
        (("a", -1), ("b", 1)),
        (("a", 0), ("b", 0)),
        (("a", 1), ("b", -1)),
    ]
    assert all(e.proved for e in result.exceptional)


def test_a_grid_value_is_what_check_says_there():
    result = scan("tanh(dot(e1, x) + b)", {"b": (0, 1, 2)}, condition="deepseek-weak")
    for value in result.grid:
        reference = check("tanh(dot(e1, x) + b)", condition="deepseek-weak", params={"b": value.values[0]})
        assert value.verdict == reference.verdict
        for mine, theirs in zip(value.probes, reference.probes, strict=True):
            assert (mine.name, mine.digits, mine.dependent) == (
                theirs.name,
                theirs.precision_digits,
                theirs.dependent,
            )
            if not mine.dependent:
                assert mine.margin == pytest.approx(theirs.smallest_singular_value, rel=1e-6)


def test_the_papers_linear_relation_is_proved_for_every_constant():
    result = scan("dot(k1, x) + k0 + c", {"c": (-1, 1, 3)}, condition="deepseek-shared")
    assert [g.verdict for g in result.grid] == [N, N, N]
    assert result.for_all is not None and result.for_all.parameters == ("c",)
    assert result.for_all.family == "a member equals the constant 1"
    assert result.for_all.hypothesis.startswith("(∂h1/∂k0)² − 1 = 0 on probe 'S2:")
    assert result.summary.startswith("not identifiable for every c in [-1, 1] where the expert is defined")


def test_a_relation_whose_coefficient_moves_with_the_constant_is_not_claimed_for_all():
    result = scan("dot(k1, x) + c*k0", {"c": (1, 2, 3)}, condition="deepseek-shared")
    assert [g.verdict for g in result.grid] == [N, N, N]
    assert result.for_all is None
    assert result.summary.startswith("not identifiable at all 3 grid values of c in [1, 2]")


def test_certify_certifies_the_exact_checks_and_the_plot_draws(tmp_path, monkeypatch):
    """Every probe of the exact check at b = 0 carries its certificate: the sign pair's relation a
    proof, the independent probes interval bounds (the same as ``check --certify`` there)."""
    seen = []
    original = Family.exact_check

    def spy(self, values, certify):
        found = original(self, values, certify)
        seen.append((values, certify, [p.certificate for p in found[2].probes]))
        return found

    monkeypatch.setattr(Family, "exact_check", spy)
    certified = scan("tanh(dot(e1, x) + b)", {"b": (-1, 1, 3)}, condition="deepseek-weak", width=1, certify=True)
    [point] = certified.exceptional
    assert certified.certified and point.values == (("b", 0),) and point.proved
    [(values, certify, certificates)] = seen
    reference = check("tanh(dot(e1, x) + b)", condition="deepseek-weak", params={"b": 0}, certify=True)
    assert values == (0,) and certify and None not in certificates
    assert [c.kind for c in certificates] == [p.certificate.kind for p in reference.probes]
    assert [str(c.kind) for c in certificates] == ["interval"] * 3 + ["proof"]
    figure = plot_scan(certified, str(tmp_path / "b.png"))
    assert figure.axes[0].get_title().startswith("h(x; θ) = tanh(dot(e1, x) + b)  [deepseek-weak, d = 2")
    assert (tmp_path / "b.png").read_bytes()[:4] == b"\x89PNG"


def test_cli_certifies_plots_and_prints_the_apis_json(tmp_path, capsys):
    plot = tmp_path / "b.png"
    argv = ["scan", "--expert", "tanh(dot(e1, x) + b)", "--condition", "deepseek-weak", "--param", "b=-1:1:3"]
    assert main([*argv, "--width", "1", "--certify", "--plot", str(plot), "--json", "--jobs", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    api = scan("tanh(dot(e1, x) + b)", {"b": (-1, 1, 3)}, condition="deepseek-weak", width=1, certify=True).to_dict()
    for key in ("seconds", "timings", "environment"):
        data.pop(key), api.pop(key)
    assert data == api and data["certified"] and [g["verdict"] for g in data["grid"]][1] == "not identifiable"
    assert plot.read_bytes()[:4] == b"\x89PNG"
    # the expert as PHI (scan's spelling before --expert) is still read as the expert
    assert main(["scan", "tanh(dot(e1, x) + b)", *argv[3:], "--width", "1", "--json", "--jobs", "1"]) == 0
    positional = json.loads(capsys.readouterr().out)
    assert (positional["phi"], positional["grid"]) == (data["phi"], data["grid"])


class RebuiltType1(Type1):
    """Type-1 that reads φ through its own ``activation_for``: the scan rebuilds it per value (the
    generic path every new condition takes), while type1 itself is scanned on the fast path."""

    name = "type1-rebuilt"

    @classmethod
    def activation_for(cls, phi=None, params=None):
        return parse_activation(phi, params)


def test_a_new_condition_scans_for_free_and_agrees_with_the_fast_path(monkeypatch):
    monkeypatch.setitem(CONDITIONS, "type1-rebuilt", RebuiltType1)
    params = {"b": (-1, 1, 3)}
    fast = scan("sigmoid(z + b)", params, condition="type1", dim=1, width=sp.Rational(1, 4))
    rebuilt = scan("sigmoid(z + b)", params, condition="type1-rebuilt", dim=1, width=sp.Rational(1, 4))
    assert [g.verdict for g in rebuilt.grid] == [g.verdict for g in fast.grid] == [I, N, I]
    for mine, theirs in zip(rebuilt.grid, fast.grid, strict=True):
        for a, b in zip(mine.probes, theirs.probes, strict=True):
            assert (a.name, a.digits, a.dependent) == (b.name, b.digits, b.dependent)
            assert a.dependent or a.margin == pytest.approx(b.margin, rel=1e-6)
    assert [(b.lo, b.hi) for b in rebuilt.brackets] == [(b.lo, b.hi) for b in fast.brackets]
    assert [e.values for e in rebuilt.exceptional] == [(("b", 0),)]
    assert plot_scan(fast).axes[0].get_title().startswith("φ(z) = sigmoid(z + b)  [type1, d = 1")
    assert fast.to_text().startswith("scan of φ(z) = sigmoid(z + b) over b")


def test_a_condition_that_does_not_read_the_constant_is_refused(monkeypatch):
    class Fixed(Type1):
        name = "fixed"

        @classmethod
        def activation_for(cls, phi=None, params=None):
            return parse_activation("tanh(z)")

    monkeypatch.setitem(CONDITIONS, "fixed", Fixed)
    with pytest.raises(IdentcheckError, match="does not read the scanned constant"):
        scan("sigmoid(z + b)", {"b": (-1, 1, 3)}, condition="fixed", dim=1)


def test_cli_refuses_an_unknown_condition(capsys):
    assert main(["scan", "tanh(dot(e1, x) + b)", "--condition", "deepseek-wek", "--param", "b=-1:1:3"]) == 2
    assert "did you mean deepseek-weak?" in capsys.readouterr().err
