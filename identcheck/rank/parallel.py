"""Parallel experts for every ratio: shared M, a2 = c·a1, reduced to one-variable families in c.

For two components with one M and a2 = c·a1 (a = a1 ≠ 0), every term is exp(xᵀMx)·x^α·φ^(m)(aᵀx)
(component 1) or exp(xᵀMx)·x^α·φ^(m)(c·aᵀx) (component 2), with (m, |α|) ∈ D (docs/method.md §4).
The proof of the one-component lemma (:mod:`~identcheck.rank.one_component`) goes through unchanged:
divide by exp(xᵀMx), take A ∈ GL(d) with Aᵀa = e1, split by the monomials y'^β' of the other
coordinates. A relation of the term set is a relation of one of the families

    G_s(c) = {z^i φ^(m)(z) : (m, i + s) ∈ D} ∪ {z^i φ^(m)(c·z) : (m, i + s) ∈ D},

and conversely a relation of G_s(c), multiplied by each y'^β' (|β'| = s, present: hypothesis (i)),
is one of the term set for every (M, a ≠ 0) — at d ≥ 2 for s > 0, at every d for s = 0. So for φ
real-analytic on ℝ, "G_s(c) independent on one interval for every s" is the two-component verdict
on the stratum for *every* (M, a ≠ 0) and every d, and the ratios c where some G_s(c) drops rank
are exactly the exceptional ratios, independent of M and d. (c = 1 is two equal components, c = −1
the sign stratum, c = 0 a constant expert: other strata, excluded from a range.)

Per ratio, :func:`decide_at` decides each maximal G_s(c) with the rank rule of the check
(:func:`~identcheck.rank.rule.decide_rank`, the exact rational c as an arb ball). On a closed
interval [u, v] of ratios, :func:`certify_interval` evaluates the columns with c an arb ball
containing [u, v]: a passing approximate-inverse test (:mod:`~identcheck.rank.interval`) proves
G_s(c) independent for *every* c in [u, v] at once.
"""

from __future__ import annotations

import flint
import numpy as np
import sympy as sp

from ..terms.compile import arb_precision, phi_functions
from .interval import certify_full_column_rank
from .one_component import POINTS_PER_TERM, family_text, shapes
from .rule import DEFAULT_LADDER, decide_rank

__all__ = ["maximal_families", "family_name", "decide_at", "certify_interval", "sample_points"]


def maximal_families(term_set) -> tuple | None:
    """The one-component families F_s that are not contained in another (G_s(c) is F_s twice), or None
    when the term set is not of the lemma's form; at d = 1 only F_0."""
    found = shapes(term_set)
    if found is None:
        return None
    if term_set.dim == 1:
        found = found[:1]
    families = [f for _, f in found]
    return tuple(f for f in dict.fromkeys(families) if not any(set(f) < set(g) for g in families))


def family_name(family) -> str:
    """``'{φ, z²φ, zφ′}(z) ∪ (c·z)'``."""
    return family_text(family) + " at z and c·z"


def sample_points(family) -> np.ndarray:
    return np.linspace(-6.0, 6.0, 2 * POINTS_PER_TERM * len(family))


def _float64(family, activation, c: float, z) -> np.ndarray:
    with np.errstate(all="ignore"):
        own = [z**i * activation.numpy_derivative(m)(z) for i, m in family]
        other = [z**i * activation.numpy_derivative(m)(c * z) for i, m in family]
    return np.column_stack(own + other)


def _arb_rows(family, activation, c_ball, z, digits: int):
    """Balls containing z^i φ^(m)(z) and z^i φ^(m)(c·z) for every c in ``c_ball(digits)``."""
    phi = phi_functions(tuple(activation.derivatives))
    with arb_precision(digits):
        c = c_ball()
        rows = []
        for value in z:
            x = flint.arb(float(value))
            rows.append(
                [x**i * phi[m]([[x]])[0][0] for i, m in family] + [x**i * phi[m]([[c * x]])[0][0] for i, m in family]
            )
        return flint.arb_mat(rows)


def _exact(c: sp.Rational):
    return lambda: flint.arb(int(c.p)) / int(c.q)


def decide_at(family, activation, c: sp.Rational, ladder=DEFAULT_LADDER):
    """The rank decision (:class:`~identcheck.rank.rule.RankDecision`) of G(c) at the exact ratio ``c``."""
    z = sample_points(family)
    matrix = _float64(family, activation, float(c), z)
    if not np.all(np.isfinite(matrix)):
        return None
    return decide_rank(
        matrix,
        high_precision=lambda digits: _arb_rows(family, activation, _exact(c), z, digits),
        ladder=ladder,
        rows=lambda rows, digits: _arb_rows(family, activation, _exact(c), z[list(rows)], digits),
    )


def certify_interval(family, activation, lo: sp.Rational, hi: sp.Rational, max_digits: int = 60):
    """The interval certificate of G(c) for every c in [lo, hi] (c one ball containing the interval)."""
    z = sample_points(family)
    matrix = _float64(family, activation, float((lo + hi) / 2), z)
    if not np.all(np.isfinite(matrix)):
        return None

    def ball():
        a, b = flint.arb(int(lo.p)) / int(lo.q), flint.arb(int(hi.p)) / int(hi.q)
        return a.union(b)

    return certify_full_column_rank(
        matrix, lambda rows, digits: _arb_rows(family, activation, ball, z[list(rows)], digits), max_digits=max_digits
    )
