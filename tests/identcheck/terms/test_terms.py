"""The symbolic type-1 term set: sizes, merges, derivatives, and the PDE (5)."""

import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck import IdentcheckError, type1_term_set, type1_terms
from identcheck.parse.activation import Z

from ..conftest import components, dyadic


@pytest.mark.parametrize("dim, distinct", [(1, 6), (2, 18), (3, 41), (4, 80)])
def test_sizes(dim, distinct):
    ts = type1_term_set(dim)
    p = dim * (dim + 1) // 2 + dim
    assert ts.n_derivatives == 1 + p + p * (p + 1) // 2
    assert len(ts.terms) == distinct
    assert len(ts.merges) == ts.n_derivatives - distinct
    assert len(ts.index) == ts.n_derivatives


def test_the_three_merges_at_d2(term_set_2d):
    assert [str(m) for m in term_set_2d.merges] == [
        "∂²ū/∂M12² = 4·∂²ū/∂M11∂M22",
        "∂²ū/∂M12∂a1 = 2·∂²ū/∂M11∂a2",
        "∂²ū/∂M22∂a1 = 1/2·∂²ū/∂M12∂a2",
    ]


def test_bad_dim_is_refused():
    for dim in (0, 7, 2.5, True, "2"):
        with pytest.raises(IdentcheckError, match="dim"):
            type1_term_set(dim)


# A random φ: a combination of unrelated smooth functions, so no family relation holds by accident.
random_phi = (
    st.tuples(dyadic, dyadic, dyadic)
    .filter(lambda c: any(c))
    .map(lambda c: c[0] * sp.sin(Z) + c[1] * sp.exp(Z / 2) + c[2] * Z**3 + sp.atan(Z))
)


def _direct_derivative(ts, phi, derivative):
    """∂^t [exp(xᵀMx) φ(aᵀx)] by sympy.diff, with φ concrete."""
    by_name = {p.name: p for p in ts.params}
    argument = sum(a * x for a, x in zip(ts.a_symbols(), ts.x))
    expr = sp.exp(ts.quadratic) * phi.subs(Z, argument)
    for name in derivative:
        expr = sp.diff(expr, by_name[name])
    return expr


@settings(max_examples=15)
@given(phi=random_phi, comp=components(), point=st.tuples(dyadic, dyadic))
def test_every_derivative_equals_its_factor_times_its_term(term_set_2d, phi, comp, point):
    """Derivatives agree with sympy.diff, and merges hold for any φ (checked at exact rationals)."""
    ts = term_set_2d
    values = ts.numeric_params(*comp)
    values.update(dict(zip(ts.x, point)))
    terms = dict(type1_terms(phi, dim=2))
    for derivative, (position, factor) in ts.index.items():
        direct = _direct_derivative(ts, phi, derivative).xreplace(values)
        built = factor * terms[ts.terms[position].label].xreplace(values)
        assert abs(sp.N(direct - built, 40)) < sp.Float(10) ** -30, (derivative, phi)


@settings(max_examples=30)
@given(comp=components(), point=st.tuples(dyadic, dyadic))
def test_pde_5_holds_exactly_for_the_linear_expert(term_set_2d, comp, point):
    """Σ_j a_j ∂u/∂a_j = u for u = exp(xᵀMx)·aᵀx, exactly, at random rational x, M, a."""
    ts = term_set_2d
    terms = dict(type1_terms("z", dim=2))
    values = ts.numeric_params(*comp)
    values.update(dict(zip(ts.x, point)))
    a = comp[1]
    lhs = sum(a[j] * terms[f"∂ū/∂a{j + 1}"] for j in range(2)) - terms["ū"]
    assert sp.simplify(lhs.xreplace(values)) == 0


@settings(max_examples=10)
@given(comp=components(), point=st.tuples(dyadic, dyadic))
def test_pde_5_fails_for_sigmoid_with_bias(term_set_2d, comp, point):
    """The same combination is not zero for φ = sigmoid(z + 1): it equals e^{xᵀMx}(sφ'(s) − φ(s)),
    s = aᵀx, and sφ'(s) − φ(s) < 0 for every s when φ = sigmoid(z + 1)."""
    ts = term_set_2d
    terms = dict(type1_terms("sigmoid(z + 1)", dim=2))
    values = ts.numeric_params(*comp)
    values.update(dict(zip(ts.x, point)))
    a = comp[1]
    lhs = sum(a[j] * terms[f"∂ū/∂a{j + 1}"] for j in range(2)) - terms["ū"]
    assert abs(sp.N(lhs.xreplace(values), 30)) > 1e-6


def test_labels_are_unique_and_ordered(term_set_2d):
    labels = term_set_2d.labels
    assert len(set(labels)) == len(labels)
    assert labels[:6] == ["ū", "∂ū/∂M11", "∂ū/∂M12", "∂ū/∂M22", "∂ū/∂a1", "∂ū/∂a2"]


def test_phi_orders_match_the_number_of_a_derivatives(term_set_2d):
    for term in term_set_2d.terms:
        assert term.phi_order == sum(1 for name in term.derivative if name.startswith("a"))
        assert f"Phi{term.phi_order}" in str(term.expr)
