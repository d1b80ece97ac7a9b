"""The softmax denominator's terms in condition (i): true atoms sharing an expert couple their cells."""

import sympy as sp

from identcheck.declaration import example_path, parse_declaration
from identcheck.evidence import Verdict
from identcheck.model.declared import check_declaration, declared_atoms
from identcheck.model.denominator import denominator_terms

SECOND = "a = -1.0\nb = -0.5\nnu = 0.1"  # the second true atom's expert in softmax-gaussian-moe


def _declaration(second=SECOND, drop_second=False):
    text = example_path("softmax-gaussian-moe").read_text(encoding="utf-8").replace(SECOND, second)
    if drop_second:
        head, _, _ = text.partition("[[parts.experts.truth]]\nbeta1 = 0.0")
        text = head + text[text.index("[loss]") :]
    return parse_declaration(text)


def _terms(declaration):
    atoms = declared_atoms(declaration, "experts")
    beta1, beta0 = sp.Symbol("beta1_1", real=True), sp.Symbol("beta0", real=True)
    x = atoms[0].variables[:-1]  # (x1,): y last
    weights = tuple(sp.exp(sp.Rational(v)) for v in ("1/2", "0")[: len(atoms)])
    assert beta0.name == "beta0" and beta1 in atoms[0].params
    return atoms, denominator_terms("experts", atoms, weights, (beta1,), x, 2)


def test_a_shared_expert_puts_the_denominator_terms_in_the_atoms_span():
    """Same (a, b, ν) in both true atoms: f* = N(y | x + 1/2, 1/10), so exp(β1*₁x)·f* is F(θ*₁) itself (sympy)."""
    atoms, terms = _terms(_declaration(second="a = 1.0\nb = 0.5\nnu = 0.1"))
    (d,) = terms.atoms
    own = atoms[0].expr.xreplace(atoms[0].at_truth)
    assert sp.simplify(d.expr.xreplace(d.at_truth) - own) == 0


def test_the_reference_terms_are_the_others_and_the_atoms_terms():
    """Σ_j p*_j exp(β1*_j x)·f* = Σ_j p*_j F(θ*_j) exactly: the relation that lets the reference's terms go."""
    atoms, terms = _terms(_declaration())
    (d,) = terms.atoms
    (x,) = atoms[0].variables[:-1]
    fstar = d.expr.xreplace(d.at_truth) / sp.exp(2 * x)  # atom 1's β1* = 2
    weights = (sp.exp(sp.Rational(1, 2)), sp.Integer(1))
    gates = [sp.exp(a.at_truth[sp.Symbol("beta1_1", real=True)] * x) for a in atoms]
    left = sum(p * g * fstar for p, g in zip(weights, gates))
    right = sum(p * a.expr.xreplace(a.at_truth) for p, a in zip(weights, atoms))
    assert sp.simplify(left - right) == 0


def test_true_atoms_sharing_an_expert_are_not_called_identifiable():
    """Their gates do not enter f* at all; the per-cell systems missed it and reported a proof."""
    result = check_declaration(_declaration(second="a = 1.0\nb = 0.5\nnu = 0.1"), max_order=2, max_cell=2)
    assert result.joint is False and result.coupled
    assert result.verdict == Verdict.INCONCLUSIVE, result.summary
    assert "denominator" in result.summary and result.to_dict()["softmax_denominators"][0]["terms"] == 3


def test_distinct_experts_keep_their_per_cell_verdicts():
    result = check_declaration(_declaration(), max_order=2, max_cell=2)
    assert result.joint is True and not result.coupled
    assert result.verdict != Verdict.INCONCLUSIVE and result.verdict == result.results[0][1].verdict


def test_a_single_true_softmax_atom_claims_no_independence():
    """One true atom: f* = N*, its denominator terms are its own x^α F and its gate's equations cancel."""
    result = check_declaration(_declaration(drop_second=True), max_order=2, max_cell=2)
    assert len(result.results) == 1 and result.denominators[0].single
    assert result.joint is False and result.verdict == Verdict.INCONCLUSIVE
    assert "one true atom under a softmax gate" in result.summary


def test_deepseek_d2s_gate_is_constant_in_x_so_its_denominator_terms_are_the_atoms():
    """D2's true β1 are both 5: f* = c1·N1 + c2·N2 with constant c_j = p*_j / Σ p*, and exp(5x)·f* = c1 F1 + c2 F2."""
    from identcheck.declaration import read_example

    declaration = read_example("deepseek-d2")
    atoms = declared_atoms(declaration, "routed")
    beta1 = sp.Symbol("beta1_1", real=True)
    weights = (sp.exp(-sp.Rational(1, 2)), sp.exp(sp.Rational(1, 2)))  # exp(β0*) as declared
    terms = denominator_terms("routed", atoms, weights, (beta1,), atoms[0].variables[:-1], 1)
    (d,) = terms.atoms
    values = [a.expr.xreplace(a.at_truth) for a in atoms]
    combination = sum(p * f for p, f in zip(weights, values)) / sum(weights)
    assert sp.simplify(d.expr.xreplace(d.at_truth) - combination) == 0
