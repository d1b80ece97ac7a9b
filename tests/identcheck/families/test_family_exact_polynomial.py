"""Relations read exactly from polynomials in x (identcheck/families/polynomial.py, symmetry.py):
a polynomial φ of any degree makes every type-1 term exp(xᵀMx)·(a polynomial in x); a symmetry
φ(−z) = sφ(z) + q(z) makes each sign pair's difference of terms exp(xᵀMx)·(a polynomial). The
relations among those polynomials are found by exact linear algebra, each checked here by sympy
on ū written by hand, and the check names them and proves its witness by default."""

import pytest
import sympy as sp

from identcheck import parse_activation
from identcheck.check import check
from identcheck.families import polynomial, symmetry
from identcheck.families.phi import phi_properties
from identcheck.parse.activation import Z
from identcheck.terms.probes import Component, Probe
from identcheck.terms.type1 import type1_term_set

from ..family_checks import type1_residual

R = sp.Rational
M = ((R(7, 8), R(1, 4)), (R(1, 4), R(-1, 2)))


def _parts(template, n, components):
    """A column template as (component, {derivative key: coefficient}) parts for type1_residual."""
    ts = type1_term_set(2)
    parts: dict = {}
    for column, value in template.coefficients:
        comp, position = divmod(column, n)
        parts.setdefault(comp, {})[ts.terms[position].derivative] = value
    return list(parts.items())


def test_every_exact_polynomial_relation_of_a_cubic_holds():
    components = [(M, (R(-3, 8), R(5, 8))), (M, (R(1, 2), R(1, 4)))]  # one M, a₂ ≠ ±a₁
    probe = Probe("test", tuple(Component(m, a) for m, a in components))
    derivatives = tuple(parse_activation("z + z**2 + z**3").derivatives)
    templates = list(polynomial.exact_templates(type1_term_set(2), derivatives, probe))
    assert templates and all(t.family == "polynomial" for t in templates)
    cubic = lambda z: z + z**2 + z**3  # noqa: E731
    n = len(type1_term_set(2).terms)
    assert all(type1_residual(cubic, 2, components, _parts(t, n, components)) == 0 for t in templates)


def test_a_symmetry_with_a_quadratic_q_gives_relations_that_hold():
    components = [(M, (R(-3, 8), R(5, 8))), (M, (R(3, 8), R(-5, 8)))]  # one M, a₂ = −a₁
    probe = Probe("test", tuple(Component(m, a) for m, a in components))
    props = phi_properties(tuple(parse_activation("tanh(z) + z**2/2").derivatives))
    assert props.symmetry == (-1, Z**2)
    templates = list(symmetry.exact_templates(type1_term_set(2), props.symmetry, probe))
    assert templates and all(t.family == "symmetry" for t in templates)
    phi = lambda z: sp.tanh(z) + z**2 / 2  # noqa: E731
    n = len(type1_term_set(2).terms)
    assert all(type1_residual(phi, 2, components, _parts(t, n, components)) == 0 for t in templates)


@pytest.mark.parametrize(
    ("phi", "params", "family"),
    [
        ("z + z**2 + z**3", None, "polynomial"),
        ("tanh(z) + c*z**2", {"c": "1/2"}, "symmetry"),
        ("(z + 1)/(z**2 + 2)", None, None),  # no family: its relations are proved, still unrecognised
    ],
)
def test_the_witness_is_named_where_a_family_explains_it_and_proved_by_default(phi, params, family):
    result = check(phi, params=params)
    witness = result.witness_probe
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "proof", f"check({phi!r})"
    assert witness.relation.family == family and witness.relation.proved, f"check({phi!r}): {witness.relation.tag}"
    assert all(r.proved for r in witness.relations), f"check({phi!r})"
