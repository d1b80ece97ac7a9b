"""Proofs: true relations are proved, false ones never."""

import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck import default_probes, parse_activation
from identcheck.certify import is_exact_zero, prove_relation
from identcheck.families import templates_for


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
