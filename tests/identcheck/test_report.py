"""Golden report text (margins compared within one printed unit, :func:`.json_compare.assert_text_matches`).
Regenerate with: pytest tests/identcheck/test_report.py --regen-golden"""

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from identcheck import Verdict, check
from identcheck.check import make_condition
from identcheck.results import format_relation, hypothesis_text

from .json_compare import assert_text_matches
from .shared_checks import checked

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("phi, name", [("z", "identity"), ("sigmoid(z + 1)", "sigmoid_bias")])
def test_report_text_matches_golden(phi, name, regen_golden):
    text = "\n".join(line for line in check(phi).to_text().splitlines() if not line.strip().startswith("time:"))
    path = GOLDEN / f"{name}.txt"
    if regen_golden:
        path.write_text(text + "\n", encoding="utf-8")
    assert_text_matches(path.read_text(encoding="utf-8"), text + "\n")  # margins within one printed unit


def test_format_relation():
    assert format_relation([("∂ū/∂a1", "1/2"), ("ū", "-1")]) == "1/2·∂ū/∂a1 − ū = 0"
    assert format_relation([("A", 1.0), ("B", -0.25)]) == "A − 0.25·B = 0"


@pytest.mark.parametrize(
    "hypothesis, shown",
    [
        ("phi(-z) = -1*phi(z) + (0)", "φ(−z) = −φ(z): a and −a collide"),  # odd: tanh, z**3
        ("phi(-z) = 1*phi(z) + (0)", "φ(−z) = φ(z): a and −a collide"),  # even: cos, z**2
        ("phi(-z) = -1*phi(z) + (1)", "φ(−z) = 1 − φ(z)"),  # sigmoid
        ("phi(-z) = 1*phi(z) + (-2*z)", "φ(−z) = φ(z) − 2*z"),
        ("phi(-z) = -1*phi(z) + (2*c*z**2)", "φ(−z) = 2*c*z**2 − φ(z)"),  # tanh(z) + c*z**2
        ("phi(-z) = 1*phi(z) + (-z**2 + 1)", "φ(−z) = φ(z) − z**2 + 1"),
        ("z*phi' = 1*phi", "z*phi' = 1*phi"),  # not a symmetry: unchanged
    ],
)
def test_symmetry_hypotheses_read_in_words(hypothesis, shown):
    assert hypothesis_text(hypothesis) == shown


@pytest.mark.parametrize(
    "hypothesis, shown",
    [
        ("phi(-z) = -1*phi(z) + (1)", "phi(-z) = 1 - phi(z)"),
        ("phi(-z) = -1*phi(z) + (0)", "phi(-z) = -phi(z)"),
        ("phi(-z) = 1*phi(z) + (-2*z)", "phi(-z) = phi(z) - 2*z"),
    ],
)
def test_symmetry_hypotheses_in_plain_text_as_a_reader_writes_them(hypothesis, shown):
    assert hypothesis_text(hypothesis, plain=True) == shown


def test_odd_phi_symmetry_tag_says_a_and_minus_a_collide():
    result = check("tanh(z)")
    probe = next(p for p in result.probes if p.name == "shared M, a2 = -a1")
    tags = {r.tag for r in probe.relations if r.family == "symmetry"}
    assert tags and all(t.startswith("symmetry: φ(−z) = −φ(z): a and −a collide") for t in tags)


def test_each_condition_describes_its_own_terms():
    """The terms line comes from the condition (no condition-name branches in the report):
    type-1 at d = 2 is 21 derivatives, 3 merged, 18 distinct (docs/method.md §1); type-2 counts per head."""
    type1 = check("sigmoid(z + 1)", dim=2)
    assert type1.terms_text == "21 derivatives per component, 3 merged (same function for every φ) → 18 distinct"
    assert f"terms: {type1.terms_text}" in type1.to_text()
    type2 = check("sigmoid(z + 1)", condition="type2", dim=1)
    assert " per head, " in type2.terms_text and "derivatives per component" not in type2.terms_text
    assert type2.terms_text.endswith(f"→ {type2.n_terms} distinct")


def test_a_constant_written_in_phi_is_shown_as_written_in_the_relations_tags():
    """1.702*silu(z)'s symmetry reads φ(−z) = φ(z) − 1.702*z, not 851*z/500 (the JSON stays exact)."""
    result = check("1.702*silu(z)")
    text, markdown = result.to_text(), result._repr_markdown_()
    assert "φ(−z) = φ(z) − 1.702*z" in text and "φ(−z) = φ(z) − 1.702*z" in markdown
    assert "851" not in text and "851" not in markdown
    witness = result.witness_probe
    assert witness.relations[0].to_dict()["hypothesis"] == "phi(-z) = 1*phi(z) + (-851*z/500)"


@pytest.mark.parametrize(
    "printed, shown",
    [
        ("q = -851*z**3/500 + 3/4 + 851/500", "q = -1.702*z**3 + 3/4 + 1.702"),
        ("∂²ū/∂a1² 1851*z/500", "∂²ū/∂a1² 1851*z/500"),  # another number
        ("851*z/(500*(exp(z) + 1)) - 851*z/(500*(1 + exp(-z)))", "1.702*z/(exp(z) + 1) - 1.702*z/(1 + exp(-z))"),
        ("851*z/(500*x*(y + 1))", "1.702*z/(x*(y + 1))"),
        ("851*z/(500*exp(z) + 500)", "851*z/(500*exp(z) + 500)"),
    ],  # 500 is no factor of that denominator
)
def test_only_the_written_values_are_rewritten(printed, shown):
    import sympy as sp

    from identcheck.util.written import with_written_numbers

    assert with_written_numbers(printed, ((sp.Rational(851, 500), "1.702"),)) == shown


def test_prove_pde_shows_the_constant_as_written():
    from identcheck.pde import prove_pde

    symmetry = next(p for p in prove_pde("1.702*silu(z)", dim=1) if p.family == "symmetry")
    text, markdown = symmetry.to_text(), symmetry._repr_markdown_()
    assert "phi(-z) = phi(z) - 1.702*z" in text and "H(z) = 1.702*z - 1.702*z/(exp(z) + 1)" in text
    assert "851" not in text and "851" not in markdown
    assert "851*z/500" in symmetry.to_dict()["hypothesis"]  # the JSON stays exact


def test_type2_literal_verdict_lives_in_details_and_drives_the_lines_not_the_name():
    """Type-2's literal verdict, its reason and the head are ``details``; the JSON has them
    there (schema 3 on) and the reports print the two verdict lines because details hold a literal verdict:
    the same details on a type-1 result print the same lines."""
    type2 = checked("sigmoid(z + 1)", "type2", 1)
    data = type2.to_dict()
    assert data["schema"] == "identcheck.check/9"
    assert "literal_verdict" not in data and "head" not in data
    assert data["details"]["literal_verdict"] == "not identifiable"
    assert data["details"]["head"] == {"n_gates": 2, "n_channels": 2, "mixed_products": False}
    assert data["details"]["literal_reason"].startswith("because of ")
    for probe in data["probes"]:
        assert set(probe["details"]) == {"literal_dependent", "phi_free_relations"}
        assert all(r["keys"] for r in probe["details"]["phi_free_relations"])
    type1 = checked("sigmoid(z + 1)", "type1", 2)
    assert set(type1.to_dict()["details"]) == {"one_component"}  # type-1's own: K = 1 for every parameter
    assert all(p["details"] == {} for p in type1.to_dict()["probes"])
    assert "literal" not in type1.to_text() and "reduced set" not in type1._repr_markdown_()
    planted = dataclasses.replace(type1, details={"literal_verdict": Verdict.INCONCLUSIVE, "literal_reason": "why"})
    lines = planted.to_text().splitlines()
    assert lines[1].startswith("  verdict (reduced set): IDENTIFIABLE")
    assert lines[2] == "  verdict (literal set, as the paper states it): INCONCLUSIVE, why"
    assert "**Verdict (literal set, as the paper states it): INCONCLUSIVE, why**" in planted._repr_markdown_()


@pytest.mark.parametrize("dim, u, v", [(1, 6, 2), (2, 18, 8)])
def test_type1_full_term_counts_match_its_matrices(dim, u, v):
    """By hand: T1 has 1 + p + p(p+1)/2 derivatives, p = d(d+1)/2 + d, minus 3 merges at d = 2 (6 and 18);
    the v̄-terms are the derivatives of exp(xᵀMx) of orders 1 and 2 over it, x-monomials of degree 2
    and 4 (1 + 1 at d = 1; 3 + 5 at d = 2, ∂²/∂M11∂M22 and ∂²/∂M12² both x1²x2²). A head with N gates
    (N − 1 free) and K channels has N·K·u + (N − 1)·K·v columns."""
    condition = make_condition("z", "type1-full", dim)
    _, fields = condition.finish([])
    assert fields["details"] == {"u_terms_per_expert": u, "v_terms_per_free_gate_and_channel": v}
    assert fields["n_terms"] == u + v
    assert f"{u + v} columns per expert of a free gate, {u} per expert of the fixed gate" in condition.describe_terms()
    for index, probe in enumerate(condition.probes()):
        head = probe.components[0]
        n_gates, n_channels = len(head.M), len(head.a[0])
        columns = len(condition.matrix(probe, index).labels)
        assert columns == n_gates * n_channels * u + (n_gates - 1) * n_channels * v, probe.name
    if dim == 1:
        result = checked("z", "type1-full", 1)
        assert result.n_terms == u + v and result.to_dict()["n_terms_per_component"] == u + v
        assert result.to_dict()["details"]["v_terms_per_free_gate_and_channel"] == v


def test_an_expert_condition_says_h_and_x_not_phi_and_z():
    """The condition's own words for its object and inputs (no branch on its name here)."""
    result = check("dot(e1, x) + e0", condition="deepseek-weak", dim=1)
    lines = result.to_text().splitlines()
    assert lines[0].startswith("h(x; θ) = dot(e1, x) + e0    [deepseek-weak, d = 1]")
    probes = next(line for line in lines if line.startswith("  probes ("))
    assert probes.endswith(", x uniform in [-1, 1]^1):") and "aᵀx" not in probes
    assert result._repr_markdown_().startswith("**h(x; θ) = `dot(e1, x) + e0`**")
    gate = checked("z", "type1", 2).to_text().splitlines()
    assert gate[0].startswith("φ(z) = z ") and any("z = aᵀx in [-" in line for line in gate)


def test_a_result_renders_however_it_was_built():
    """results.py imports no presentation (test_layout); a result built through the driver module alone
    imports the face by name the first time it renders (results.RENDERERS), text or markdown first."""
    first_lines = "print(result.to_text().splitlines()[0])\nprint(result._repr_markdown_().splitlines()[0])\n"
    for render in (first_lines, "\n".join(reversed(first_lines.splitlines())) + "\n"):
        code = (
            "import sys\nfrom identcheck.check import check\nresult = check('z', dim=1)\n"
            "assert 'identcheck.report' not in sys.modules and 'identcheck.util.markdown' not in sys.modules\n" + render
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert sorted(out.splitlines()) == ["**φ(z) = `z`** · type1, d = 1", "φ(z) = z    [type1, d = 1]"]
    via_root = "from identcheck import check\nprint(check('z', dim=1).to_text().splitlines()[0])\n"
    out = subprocess.run([sys.executable, "-c", via_root], capture_output=True, text=True, check=True).stdout
    assert out == "φ(z) = z    [type1, d = 1]\n"
