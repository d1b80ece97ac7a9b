r"""The coefficient system of a Voronoi cell of m atoms at order r.

With the basis of :mod:`.basis` (∂^κ F(θ*) = Σ_b e_{κ,b}·b), the cell's expansion is Σ_b E_b·b with

    E_b = Δp·[b = F] + Σ_{i=1}^m p_i C_b(Δθ_i),      C_b(Δ) = Σ_κ e_{κ,b} Δ^κ / κ!.

The basis being independent, f_G − f_{G*} = o(‖Δθ‖^r) on the cell forces every E_b → 0. The
system keeps the equations complete at order r (:func:`~identcheck.model.grading.complete_equations`)
and drops F's: Δp is a free unknown that appears in it alone, so it always has a solution (this is
how a relation that ties a derivative to F lets the weight absorb a move: the linear expert's
PDE). A **solution** is non-trivial when every p_i > 0 and not all Δθ_i are zero.

For the location–scale Gaussian (θ = (μ, ν), heat ∂²/∂μ² = 2 ∂/∂ν) this is the system of
Ho & Nguyen (arXiv 1609.02655): Σ_i p_i Σ_{n1 + 2 n2 = α} Δμ_i^{n1} Δν_i^{n2} / (n1! n2! 2^{n2}) = 0,
α = 1..r (their form without 2^{n2} is the same system in ν/2).

:class:`CoefficientSystem` is a result: the polynomials C_b per kept equation (shared by every
atom), the unknowns' symbols (p_i and d_{i,j} = Δθ_{ij}), and the equations Σ_i p_i C_b(d_i).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..errors import IdentcheckError
from .atom import MAX_CELL, MAX_ORDER
from .basis import SpanBasis
from .grading import Grading, complete_equations
from .relation import derivative_label
from .taylor import expansion_monomial

__all__ = [
    "CoefficientSystem",
    "MASS",
    "cell_expansion",
    "coefficient_polynomials",
    "coefficient_system",
    "delta_symbols",
    "weight_symbols",
]

MASS = sp.Symbol("Dp", real=True)  # Δp = Σ_i p_i − p*


def delta_symbols(labels, atom: int) -> tuple:
    """d_{i,j} = Δθ_{ij} of atom i (1-based), named after the parameters."""
    return tuple(sp.Symbol(f"d{name}_{atom}", real=True) for name in labels)


def weight_symbols(m: int) -> tuple:
    return tuple(sp.Symbol(f"p_{i}", positive=True) for i in range(1, m + 1))


def coefficient_polynomials(basis: SpanBasis, deltas) -> dict:
    """Basis position → C_b(Δ) in ``deltas`` (one atom), over every computed contribution."""
    out: dict = {}
    for kappa, expression in basis.expressions.items():
        if not any(kappa):
            continue
        monomial = expansion_monomial(deltas, kappa)
        for position, coefficient in expression:
            out[position] = out.get(position, 0) + coefficient * monomial
    return {b: sp.expand(c) for b, c in out.items()}


def cell_expansion(basis: SpanBasis, m: int) -> dict:
    """Every basis term's coefficient E_b for a cell of ``m`` atoms, to the basis's order:
    {label: Δp·[b = F] + Σ_i p_i C_b(Δθ_i)}, in :data:`MASS`, ``p_i`` and ``d<name>_i``.

    >>> from identcheck.model.examples import location_scale_gaussian
    >>> from identcheck.model.basis import build_basis
    >>> cell_expansion(build_basis(location_scale_gaussian(), 1), 1)
    {'F': Dp, 'dF/dmu': dmu_1*p_1, 'dF/dnu': dnu_1*p_1}
    """
    check_sizes(m, 1)
    labels = basis.atom.labels
    deltas = tuple(delta_symbols(labels, i) for i in range(1, m + 1))
    weights = weight_symbols(m)
    polynomials = coefficient_polynomials(basis, deltas[0])
    out = {}
    for position, kappa in enumerate(basis.basis):
        c = polynomials.get(position, sp.Integer(0))
        total = MASS if position == 0 else sp.Integer(0)
        for i in range(m):
            total += weights[i] * c.xreplace(dict(zip(deltas[0], deltas[i])))
        out[derivative_label(kappa, labels)] = sp.expand(total)
    return out


@dataclass(frozen=True, slots=True)
class CoefficientSystem:
    """The m-atom system at order r.

    Attributes
    ----------
    m, order : int
    labels : tuple of str
        The atom's parameter names.
    grading : Grading
    kept : tuple of int
        Basis positions of the equations kept (complete at ``order``).
    polynomials : tuple of sympy.Expr
        C_b(Δ) in the symbols ``deltas[0]`` (atom 1's), one per kept equation.
    weights : tuple of sympy.Symbol
        p_1 … p_m.
    deltas : tuple of tuple of sympy.Symbol
        Δθ_i, per atom.
    equations : tuple of sympy.Expr
        Σ_i p_i C_b(Δθ_i), one per kept equation.
    names : tuple of str
        The kept basis terms' labels.
    """

    m: int
    order: int
    labels: tuple
    grading: Grading
    kept: tuple
    polynomials: tuple = field(repr=False)
    weights: tuple = field(repr=False)
    deltas: tuple = field(repr=False)
    equations: tuple = field(repr=False)
    names: tuple = ()

    def to_dict(self) -> dict:
        return {
            "m": self.m,
            "order": self.order,
            "graded": self.grading.graded,
            "equations": [f"{n}: {sp.sstr(e)} = 0" for n, e in zip(self.names, self.equations)],
        }


def check_sizes(m: int, order: int) -> None:
    """The supported range, one line each (:class:`~identcheck.errors.IdentcheckError`)."""
    if isinstance(m, bool) or not isinstance(m, int) or not 1 <= m <= MAX_CELL:
        raise IdentcheckError(param="m", value=m, reason=f"atoms per cell must be from 1 to {MAX_CELL}")
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        raise IdentcheckError(param="order", value=order, reason=f"the Taylor order must be from 1 to {MAX_ORDER}")


def coefficient_system(basis: SpanBasis, grading: Grading, m: int, order: int) -> CoefficientSystem:
    """The :class:`CoefficientSystem` of ``m`` atoms at ``order`` (≤ the basis's order)."""
    check_sizes(m, order)
    if order > basis.order:
        raise IdentcheckError(param="order", value=order, reason=f"the basis was built to order {basis.order} only")
    labels = basis.atom.labels
    deltas = tuple(delta_symbols(labels, i) for i in range(1, m + 1))
    weights = weight_symbols(m)
    kept = complete_equations(basis, grading, order)
    polynomials = coefficient_polynomials(basis, deltas[0])
    chosen = tuple(polynomials[b] for b in kept)
    equations = []
    for c in chosen:
        total = sp.Integer(0)
        for i in range(m):
            total += weights[i] * c.xreplace(dict(zip(deltas[0], deltas[i])))
        equations.append(sp.expand(total))
    names = tuple(derivative_label(basis.basis[b], labels) for b in kept)
    return CoefficientSystem(m, order, labels, grading, kept, chosen, weights, deltas, tuple(equations), names)
