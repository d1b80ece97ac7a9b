"""Coefficient systems against the closed forms of the literature, and the complete-equation rule."""

import math

import pytest
import sympy as sp

from identcheck.errors import IdentcheckError
from identcheck.model.basis import build_basis
from identcheck.model.examples import location_scale_gaussian, softmax_gaussian_moe
from identcheck.model.grading import find_grading
from identcheck.model.system import coefficient_system


def ho_nguyen(p, a, b, alpha):
    """Σ_i p_i Σ_{n1 + 2 n2 = α} a_i^n1 b_i^n2 / (n1! n2! 2^n2) (ν the variance: ∂²/∂μ² = 2 ∂/∂ν)."""
    total = 0
    for pi, ai, bi in zip(p, a, b):
        for n2 in range(alpha // 2 + 1):
            n1 = alpha - 2 * n2
            total += pi * ai**n1 * bi**n2 / (math.factorial(n1) * math.factorial(n2) * 2**n2)
    return sp.expand(total)


@pytest.fixture(scope="module")
def gaussian():
    basis = build_basis(location_scale_gaussian(), 6)
    return basis, find_grading(basis)


@pytest.mark.parametrize("m, r", [(2, 4), (3, 6)])
def test_location_scale_system_is_ho_nguyens(gaussian, m, r):
    basis, grading = gaussian
    assert grading.weights == (1, 2)
    system = coefficient_system(basis, grading, m, r)
    p, a, b = system.weights, [d[0] for d in system.deltas], [d[1] for d in system.deltas]
    want = [ho_nguyen(p, a, b, alpha) for alpha in range(1, r + 1)]
    assert _monic(system.equations, system) == _monic(want, system)  # the basis term of α is ∂_μ^α N / 2^⌊α/2⌋


def _monic(equations, system):
    symbols = list(system.weights) + [d for ds in system.deltas for d in ds]
    return {sp.Poly(e, *symbols).monic() for e in equations}


def test_moe_system_is_the_weighted_one():
    """Softmax-gated linear experts (arXiv 2305.03288): the equation of x^ℓ1 ∂_h^ℓ2 N is
    Σ_i p_i Σ Δβ1^a1 Δη1^a2 Δη0^a3 Δν^a4 / (a1! a2! a3! a4! 2^a4) over a1 + a2 = ℓ1,
    a2 + a3 + 2 a4 = ℓ2, kept when ℓ1 + ℓ2 ≤ r — each equation up to a nonzero factor."""
    basis = build_basis(softmax_gaussian_moe("linear"), 4)
    system = coefficient_system(basis, find_grading(basis), 2, 4)
    p = system.weights
    want = set()
    for l1 in range(5):
        for l2 in range(5 - l1):
            if l1 + l2 == 0:
                continue
            total = 0
            for a1 in range(l1 + 1):
                a2 = l1 - a1
                for a4 in range(l2 // 2 + 1):
                    a3 = l2 - a2 - 2 * a4
                    if a3 < 0:
                        continue
                    for pi, d in zip(p, system.deltas):
                        den = math.factorial(a1) * math.factorial(a2) * math.factorial(a3) * math.factorial(a4) * 2**a4
                        total += pi * d[0] ** a1 * d[1] ** a2 * d[2] ** a3 * d[3] ** a4 / den
            want.add(sp.expand(total))
    assert len(system.equations) == len(want) == 14
    assert _monic(system.equations, system) == _monic(want, system)


def test_sizes_are_checked(gaussian):
    basis, grading = gaussian
    with pytest.raises(IdentcheckError, match=r"^m=5: atoms per cell must be from 1 to 4$"):
        coefficient_system(basis, grading, 5, 2)
    with pytest.raises(IdentcheckError, match=r"^order=9: the Taylor order must be from 1 to 8$"):
        coefficient_system(basis, grading, 2, 9)
    with pytest.raises(IdentcheckError, match="built to order 6 only"):
        coefficient_system(build_basis(location_scale_gaussian(), 6), grading, 2, 7)


def test_the_weight_absorbs_the_pde_move():
    """exp(Mx²)·a·x, a* = 3/4: F's coefficient is Δp + Σ_i p_i (4/3) Δa_i (1 + ΔM_i + …): the Euler
    relation puts the a-moves into F's coefficient, where the free Δp cancels them."""
    from identcheck.model.examples import mha_linear_expert
    from identcheck.model.system import MASS, cell_expansion

    expansion = cell_expansion(build_basis(mha_linear_expert(), 1), 2)
    p1, p2 = sp.symbols("p_1 p_2", positive=True)
    da1, da2 = sp.symbols("da_1 da_2", real=True)
    assert expansion["F"] == sp.expand(MASS + sp.Rational(4, 3) * (p1 * da1 + p2 * da2))
