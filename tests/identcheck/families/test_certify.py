"""Proofs: true relations are proved, false ones never."""

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck import default_probes, parse_activation
from identcheck.families import templates_for
from identcheck.families.proofs import (
    Hypotheses,
    _exact_zero,
    apply_hypotheses,
    is_exact_zero,
    prove_relation,
    relation_expression,
)
from identcheck.terms.probes import Component


def _euler_template(term_set, phi="z"):
    act = parse_activation(phi)
    probe = default_probes(2, seed=0)[0]
    template = next(t for t in templates_for(term_set, act.derivatives, probe) if t.family == "Euler/homogeneity")
    return act, probe, template


def test_pde_5_is_proved_for_the_identity(term_set_2d):
    act, probe, template = _euler_template(term_set_2d)
    assert prove_relation(term_set_2d, act.derivatives, probe.components, template.coefficients)


@settings(max_examples=20)
@given(which=st.integers(0, 10), delta=st.integers(-16, 16).filter(lambda k: k != 0))
def test_a_perturbed_relation_is_never_proved(term_set_2d, which, delta):
    act, probe, template = _euler_template(term_set_2d)
    coeffs = list(template.coefficients)
    column, value = coeffs[which % len(coeffs)]
    coeffs[which % len(coeffs)] = (column, value + sp.Rational(delta, 64))
    assert not prove_relation(term_set_2d, act.derivatives, probe.components, coeffs)


def test_log_identity_is_proved_through_derivatives():
    x = sp.symbols("x1:3", real=True)
    s = x[0] / 2 - x[1] / 4
    expr = sp.log(1 + sp.exp(-s)) - sp.log(1 + sp.exp(s)) + s
    assert is_exact_zero(expr, x)
    assert not is_exact_zero(expr + x[0] * sp.Rational(1, 10**30), x)


def _family_template(term_set, phi, family):
    act = parse_activation(phi)
    probe = default_probes(2, seed=0)[0]
    template = next(t for t in templates_for(term_set, act.derivatives, probe) if t.family == family)
    return act, probe, template


def test_heat_relations_are_proved_with_phi_abstract(term_set_2d):
    """φ'' = cφ rewrites Φ₂ → cΦ₀ on the abstract expression, which then cancels by itself:
    the concrete φ (here a sum whose formula sympy never needs to see) is not substituted."""
    act, probe, template = _family_template(term_set_2d, "sin(z) + 2*cos(z)", "heat type")
    abstract = relation_expression(term_set_2d, None, probe.components, template.coefficients)
    assert not _exact_zero(abstract, term_set_2d.x, False, False)  # not a relation for every φ
    rewritten, changed = apply_hypotheses(abstract, Hypotheses(heat=sp.Integer(-1)))
    assert changed and _exact_zero(rewritten, term_set_2d.x, False, False)
    wrong, _ = apply_hypotheses(abstract, Hypotheses(heat=sp.Integer(-2)))
    assert not _exact_zero(wrong, term_set_2d.x, False, False)  # a wrong hypothesis proves nothing
    assert prove_relation(term_set_2d, act.derivatives, probe.components, template.coefficients)


def test_gaussian_and_zero_second_rewrites(term_set_2d):
    act, probe, template = _family_template(term_set_2d, "erf(z)", "Gaussian type")
    abstract = relation_expression(term_set_2d, None, probe.components, template.coefficients)
    rewritten, _ = apply_hypotheses(abstract, Hypotheses(gaussian=sp.Integer(-2)))  # erf'' = −2z·erf'
    assert _exact_zero(rewritten, term_set_2d.x, False, False)
    assert not _exact_zero(
        apply_hypotheses(abstract, Hypotheses(gaussian=sp.Integer(2)))[0], term_set_2d.x, False, False
    )
    act, probe, template = _family_template(term_set_2d, "3*z + 1", "zero second derivative")
    abstract = relation_expression(term_set_2d, None, probe.components, template.coefficients)
    assert not _exact_zero(abstract, term_set_2d.x, False, False)
    assert _exact_zero(apply_hypotheses(abstract, Hypotheses(zero_second=True))[0], term_set_2d.x, False, False)


def test_a_relation_between_components_carries_their_exponentials(term_set_2d):
    """ū of two components with the same a: ū[1] − ū[2] = exp(xᵀM₁x)φ(aᵀx) − exp(xᵀM₂x)φ(aᵀx), which is 0
    exactly when M₁ = M₂ — the factor exp(xᵀ(M₂ − M₁)x) of the second term decides it."""
    act = parse_activation("tanh(z)")
    half, a = sp.Rational(1, 2), (sp.Rational(3, 4), -sp.Rational(1, 8))
    m1 = ((half, 0), (0, -half))
    m2 = ((half, sp.Rational(1, 4)), (sp.Rational(1, 4), -half))
    n = len(term_set_2d.terms)
    position = next(i for i, t in enumerate(term_set_2d.terms) if t.derivative == ())  # ū itself
    coefficients = [(position, sp.Integer(1)), (n + position, sp.Integer(-1))]
    same = (Component(m1, a), Component(m1, a))
    different = (Component(m1, a), Component(m2, a))
    assert prove_relation(term_set_2d, act.derivatives, same, coefficients)
    assert not prove_relation(term_set_2d, act.derivatives, different, coefficients)
    assert relation_expression(term_set_2d, None, different, coefficients).has(sp.exp)
