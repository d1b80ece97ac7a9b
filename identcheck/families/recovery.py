"""Exact rational relations read from a numerical null space (docs/certificates.md).

A relation found numerically and not recognised as a family is made exact by
:func:`recover_relations`: with k = nullity, take as pivot columns P the k columns that depend on
earlier ones (the reduced echelon form of the numerical null space N in term order,
:mod:`echelon`: canonical, the same relations on every machine; QR with pivoting on Nᵀ only when
N is too ill-separated for that), set λ_P = e_i, and solve the rest from the
normal equations A_Rᵀ A_R λ_R = −A_Rᵀ A_P e_i in arb at high precision (A_R has full column rank
exactly when N restricted to P is invertible). Each λ_j is then read as a rational p/q
(continued fractions, q ≤ ``MAX_DENOMINATOR``, accepted only when |λ_j − p/q| < 10^-(digits/3));
the parameters are dyadic rationals, so relations of the families have rational coefficients.
The exact candidate is then *proved* like any other (:mod:`~identcheck.families.proofs`) — a wrong
guess cannot survive that step.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import flint
import numpy as np
import sympy as sp

from ..terms.compile import arb_precision
from .echelon import dependent_columns, pivoted_rows

__all__ = ["recover_relations", "RECOVERY_DIGITS", "MAX_DENOMINATOR"]

RECOVERY_DIGITS = 120
MAX_DENOMINATOR = 10**12


def recover_relations(
    null_space: np.ndarray, arb_matrix: Callable[[int], "flint.arb_mat"], digits: int = RECOVERY_DIGITS
):
    """Exact rational candidates for a numerical null space (see the module docstring).

    Parameters
    ----------
    null_space : ndarray, shape (T, k)
        Numerical null directions (any basis).
    arb_matrix : callable
        ``arb_matrix(digits)`` returns the n × T matrix as a ``flint.arb_mat`` at ``digits`` digits.
    digits : int

    Returns
    -------
    list of tuple or None
        Per basis relation, ``((column, sympy.Rational), ...)``: its pivot column first (coefficient
        1, and 0 in every other relation), then the other nonzero coefficients by column; None for
        a relation whose coefficients were not all recognised as rationals.
    """
    T, k = null_space.shape
    if k == 0:
        return []
    chosen = dependent_columns(null_space, k)  # canonical: the reduced echelon form in term order
    if chosen is None:  # an ill-separated null space: the pivots of a column-pivoted QR
        chosen = sorted(pivoted_rows(null_space, k))
    rest = [j for j in range(T) if j not in chosen]
    with arb_precision(digits):
        a = arb_matrix(digits).mid()
        n = a.nrows()
        a_rest = flint.arb_mat([[a[i, j] for j in rest] for i in range(n)])
        a_piv = flint.arb_mat([[a[i, j] for j in chosen] for i in range(n)])
        gram = (a_rest.transpose() * a_rest).mid()
        rhs = -(a_rest.transpose() * a_piv).mid()
        try:
            solution = gram.solve(rhs, algorithm="approx") if rest else None
        except ZeroDivisionError:
            return [None] * k
        tolerance = Fraction(1, 10 ** (digits // 3))
        out: list[tuple | None] = []
        for i in range(k):
            coefficients = [(chosen[i], sp.Integer(1))]
            rational = True  # False when a coefficient does not read as a rational
            for r, column in enumerate(rest):
                assert solution is not None  # solved above whenever rest has columns
                value = _rational(solution[r, i], tolerance)
                if value is None:
                    rational = False
                    break
                if value != 0:
                    coefficients.append((column, value))
            out.append(tuple(coefficients) if rational else None)
        return out


def _rational(value, tolerance: Fraction):
    mantissa, exponent = value.mid().man_exp()
    exact = Fraction(int(mantissa)) * (Fraction(2) ** int(exponent))
    guess = exact.limit_denominator(MAX_DENOMINATOR)
    if abs(exact - guess) >= tolerance:
        return None
    return sp.Rational(guess.numerator, guess.denominator)
