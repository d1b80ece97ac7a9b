"""The basis of the span: relations found, proved and named; expressions checked by a second method."""

import numpy as np
import pytest
import sympy as sp

from identcheck.families.heat import FAMILY as HEAT
from identcheck.families.homogeneity import EULER
from identcheck.families.xmultiplied import X_MULTIPLIED
from identcheck.model.basis import build_basis
from identcheck.model.examples import location_scale_gaussian, mha_linear_expert, softmax_gaussian_moe
from identcheck.model.relation import AT_ATOM, EVERY_THETA, ZERO
from identcheck.model.taylor import multi_indices


@pytest.fixture(scope="module")
def moe4():
    return build_basis(softmax_gaussian_moe("linear"), 4)


def test_location_scale_basis_is_mu_at_most_once():
    """By the heat relation ∂²N/∂μ² = 2 ∂N/∂ν every term is ∂_μ^a ∂_ν^b N with a ∈ {0, 1} (by hand)."""
    basis = build_basis(location_scale_gaussian(), 5)
    assert set(basis.basis) == {(a, b) for a in (0, 1) for b in range(6) if a + b <= 5}
    (heat,) = basis.relations
    assert heat.term == (2, 0) and heat.combination == (((0, 1), 2),)
    assert heat.proved and heat.holds == EVERY_THETA and heat.family == HEAT.name
    assert basis.independent


def _reachable(order):
    """(ℓ1, ℓ2) pairs of x^ℓ1 ∂_h^ℓ2 N reached by |κ| ≤ order: κ = (a1, a2, a3, a4) on (β1, η1, η0, ν)
    gives ℓ1 = a1 + a2, ℓ2 = a2 + a3 + 2 a4 (counted by brute force, independently of the rank rule)."""
    return {(k[0] + k[1], k[1] + k[2] + 2 * k[3]) for k in multi_indices(4, order)}


def test_moe_basis_size_matches_the_reachable_pairs(moe4):
    assert len(moe4.basis) == len(_reachable(4))
    assert all(r.proved and r.holds == EVERY_THETA for r in moe4.relations)


def test_moe_relations_named(moe4):
    by_term = {r.term: r for r in moe4.relations}
    bias = by_term[(1, 0, 1, 0)]  # ∂²F/∂β1∂η0 = ∂F/∂η1
    assert bias.combination == (((0, 1, 0, 0), 1),) and bias.family == X_MULTIPLIED
    assert by_term[(0, 0, 2, 0)].combination == (((0, 0, 0, 1), 2),) and by_term[(0, 0, 2, 0)].family == HEAT.name


def test_expressions_agree_with_plain_derivatives(moe4):
    """Every ∂^κF(θ*) (sympy's plain derivative, evaluated in float) equals Σ_b e_{κ,b}·b at random points."""
    atom = moe4.atom
    rng = np.random.default_rng(3)
    points = [dict(zip(atom.variables, (rng.uniform(-1, 1), rng.uniform(-3, 3)))) for _ in range(4)]
    columns = {}
    for kappa in moe4.basis:
        columns[kappa] = [complex(_plain(atom, kappa).xreplace(p).evalf(20)).real for p in points]
    for kappa in multi_indices(4, 4)[::5]:
        want = [complex(_plain(atom, kappa).xreplace(p).evalf(20)).real for p in points]
        got = [sum(float(c) * columns[moe4.basis[b]][i] for b, c in moe4.expressions[kappa]) for i in range(4)]
        assert np.allclose(want, got, rtol=1e-10, atol=1e-12), kappa


def _plain(atom, kappa):
    expr = atom.expr
    for p, k in zip(atom.params, kappa):
        if k:
            expr = sp.diff(expr, p, k)
    return expr.xreplace(atom.at_truth)


def test_mha_pde_at_the_atom():
    """u = exp(Mx²)·a·x: ∂u/∂a = u/a* (Euler, coefficients depending on θ*), ∂²u/∂a² = 0."""
    basis = build_basis(mha_linear_expert(), 3)
    by_term = {r.term: r for r in basis.relations}
    euler = by_term[(0, 1)]
    assert euler.combination == (((0, 0), sp.Rational(4, 3)),) and euler.holds == AT_ATOM and euler.proved
    assert euler.family == EULER
    assert by_term[(0, 2)].combination == () and by_term[(0, 2)].family == ZERO and by_term[(0, 2)].holds == EVERY_THETA
    assert [k for k in basis.basis] == [(i, 0) for i in range(4)]


def test_coefficients_beyond_small_denominators_are_solved_exactly():
    """exp(xᵀMx)·aᵀx at d = 2, a* = (3/4, 7/4): the order-4 relations carry powers of 4/7 (7⁵ > 4096,
    past a float64 reading as p/q); solved in rational arithmetic, every relation is proved."""
    basis = build_basis(mha_linear_expert(2), 4)
    assert basis.relations and all(r.proved for r in basis.relations)
    assert all(isinstance(c, sp.Rational) for r in basis.relations for _, c in r.combination)
