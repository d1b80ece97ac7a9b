"""Golden report text (margins compared within one printed unit, :func:`.json_compare.assert_text_matches`).
Regenerate with: pytest tests/identcheck/test_report.py --regen-golden"""

from pathlib import Path

import pytest

from identcheck import check
from identcheck.report import format_relation, hypothesis_text

from .json_compare import assert_text_matches

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
        ("phi(-z) = -1*phi(z) + (1)", "φ(−z) = −φ(z) + 1"),  # sigmoid
        ("phi(-z) = 1*phi(z) + (-2*z)", "φ(−z) = φ(z) − 2*z"),
        ("z*phi' = 1*phi", "z*phi' = 1*phi"),  # not a symmetry: unchanged
    ],
)
def test_symmetry_hypotheses_read_in_words(hypothesis, shown):
    assert hypothesis_text(hypothesis) == shown


def test_odd_phi_symmetry_tag_says_a_and_minus_a_collide():
    result = check("tanh(z)")
    probe = next(p for p in result.probes if p.name == "shared M, a2 = -a1")
    tags = {r.tag for r in probe.relations if r.family == "symmetry"}
    assert tags and all(t.startswith("symmetry: φ(−z) = −φ(z): a and −a collide") for t in tags)


def test_each_condition_describes_its_own_terms():
    """The terms line comes from the condition (no condition-name branches in the report):
    type-1 at d = 2 is 21 derivatives, 3 merged, 18 distinct (SPEC §2); type-2 counts per head."""
    type1 = check("sigmoid(z + 1)", dim=2)
    assert type1.terms_text == "21 derivatives per component, 3 merged (same function for every φ) → 18 distinct"
    assert f"terms: {type1.terms_text}" in type1.to_text()
    type2 = check("sigmoid(z + 1)", condition="type2", dim=1)
    assert " per head, " in type2.terms_text and "derivatives per component" not in type2.terms_text
    assert type2.terms_text.endswith(f"→ {type2.n_terms} distinct")


def test_a_constant_written_in_phi_is_shown_as_written_in_the_relations_tags():
    """issue 24 §5: 1.702*silu(z)'s symmetry reads φ(−z) = φ(z) − 1.702*z, not 851*z/500 (the JSON stays exact)."""
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

    from identcheck.written import with_written_numbers

    assert with_written_numbers(printed, ((sp.Rational(851, 500), "1.702"),)) == shown


def test_prove_pde_shows_the_constant_as_written():
    from identcheck.pde import prove_pde

    symmetry = next(p for p in prove_pde("1.702*silu(z)", dim=1) if p.family == "symmetry")
    text, markdown = symmetry.to_text(), symmetry._repr_markdown_()
    assert "phi(-z) = 1*phi(z) + (-1.702*z)" in text and "H(z) = 1.702*z - 1.702*z/(exp(z) + 1)" in text
    assert "851" not in text and "851" not in markdown
    assert "851*z/500" in symmetry.to_dict()["hypothesis"]  # the JSON stays exact
