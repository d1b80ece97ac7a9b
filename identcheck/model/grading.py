r"""The weighted degree the relations impose, and which coefficient equations are complete.

A **grading** gives each parameter an integer weight w_j ≥ 1 such that every relation is
weighted-homogeneous: ∂^κ F has a nonzero component on the basis term ∂^β F only when
w·κ = w·β. Heat merges ∂²/∂μ² into ∂/∂ν (w_ν = 2 w_μ); a gated ridge expert's chain rule merges
∂²/∂β1∂η0 into ∂/∂η1 (w_η1 = w_β1 + w_η0). Among the weights allowed the smallest is taken
(least largest weight, then least sum): (β1, η1, η0, ν) = (1, 2, 1, 2) for the softmax-gated
Gaussian MoE with linear experts; all ones when nothing merges.

With a grading, the coefficient C_b of a basis term b of weighted degree D_b = w·β receives
contributions only from monomials Δθ^κ with w·κ = D_b, hence |κ| ≤ D_b: computed to order
R ≥ D_b, every contribution is known. The equation of b is **complete at order r** when every
contribution has |κ| ≤ r (for the Gaussian, α = n1 + 2 n2 ≤ r: the weighted degree counts,
Ho & Nguyen, arXiv 1609.02655). Each equation is then weighted-homogeneous: scaling
Δθ_j → t^{w_j} Δθ_j maps solutions to solutions, so a solution with Δθ_{1j} ≠ 0 may be
normalised to Δθ_{1j} = 1 (w_j odd: t < 0 flips the sign) or ±1 (w_j even).

Without a grading (a relation ties orders, as the linear expert's PDE ∂F/∂a = F/a ties order 1
to order 0), completeness is judged on the contributions computed to order R only, and the
system is not scaled: ``graded`` is False and a decision says so.

**Exponents.** A parameter is *tied* when some relation moves its degree (it appears in a
difference κ − β above), *free* otherwise. Its Voronoi exponent on cells of m atoms is read off as

- tied: r̄(m)/w_j — the exponents keep the weighted homogeneity the relations impose (scaling
  Δθ_j by t^{w_j} scales every term Δθ_j^{r̄/w_j} alike): for D2's routed linear experts
  r̄ for β1 and η0, r̄/2 for η1 and ν; for the location–scale Gaussian r̄ for μ, r̄/2 for ν;
- free: r̄_j(m), the smallest order at which every real solution of the m-atom system has
  Δθ_{ij} = 0 for all i (parameter j *forced*, :mod:`.decide`): no relation mixes its moves with
  the others'. D2's shared slope κ1 is forced at order 2 by a square (Σ p_i Δκ1_i²/2 = 0) and gets
  2; every parameter of a strongly identifiable atom gets 2.

The forced orders r̄_j(m) are reported for every parameter: a tied one can be forced earlier than
r̄(m) (D2's β1 at order 2, by Σ p_i Δβ1_i²/2 = 0), which the balanced exponent does not use.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from .basis import SpanBasis

__all__ = ["Grading", "MAX_WEIGHT", "complete_equations", "find_grading"]

MAX_WEIGHT = 4


@dataclass(frozen=True, slots=True)
class Grading:
    """``weights`` (None when no grading up to :data:`MAX_WEIGHT` fits) and the basis terms'
    weighted degrees (``degrees``, aligned with the basis; total degrees when ungraded)."""

    weights: tuple | None
    degrees: tuple
    tied: tuple = ()

    @property
    def graded(self) -> bool:
        return self.weights is not None

    def to_dict(self) -> dict:
        return {
            "weights": None if self.weights is None else list(self.weights),
            "degrees": list(self.degrees),
            "tied": list(self.tied),
        }


def find_grading(basis: SpanBasis) -> Grading:
    """The smallest grading the basis's expressions allow (module docstring)."""
    q = len(basis.atom.params)
    differences = set()
    for kappa, expression in basis.expressions.items():
        for position, _ in expression:
            beta = basis.basis[position]
            if beta != kappa:
                differences.add(tuple(k - b for k, b in zip(kappa, beta)))
    rows = np.array(sorted(differences), dtype=float).reshape(-1, q)
    tied = tuple(bool(np.any(rows[:, j])) for j in range(q)) if rows.size else (False,) * q
    best = None
    for weights in sorted(product(range(1, MAX_WEIGHT + 1), repeat=q), key=lambda w: (max(w), sum(w), w)):
        if rows.size == 0 or not np.any(rows @ np.array(weights, dtype=float)):
            best = weights
            break
    if best is None:
        return Grading(None, tuple(sum(b) for b in basis.basis), tied)
    return Grading(tuple(best), tuple(sum(w * b for w, b in zip(best, beta)) for beta in basis.basis), tied)


def complete_equations(basis: SpanBasis, grading: Grading, order: int) -> tuple:
    """The basis positions (F's excluded: its coefficient holds Δp, a free unknown) whose
    equations are complete at ``order``: every contribution known and of order ≤ ``order``."""
    keep = []
    for position in range(1, len(basis.basis)):
        if grading.graded and grading.degrees[position] > basis.order:
            continue  # contributions of orders above those computed could reach it
        contributors = basis.contributors(position)
        if contributors and max(sum(k) for k in contributors) <= order:
            keep.append(position)
    return tuple(keep)
