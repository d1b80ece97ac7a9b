"""Certified independence: a proof, in ball arithmetic, that a collocation matrix has full column rank.

Columns j = 1..T are functions f_j evaluated at sample points x_1..x_n (n ≥ T). If some T × T
minor S (rows = a subset of the points) is nonsingular, no nonzero λ has Σ_j λ_j f_j(x_i) = 0 at
those points, so the functions are linearly independent. Nonsingularity is proved by the
approximate-inverse test (Rump; Neumaier, *Interval methods*, §4.1):

    R ≈ S⁻¹ (any matrix, computed without care),   E = I − R·S,
    ‖E‖ < 1  ⇒  R·S = I − E is invertible  ⇒  S is invertible,

and then, with the 2-norm bounded above by the Frobenius norm,

    σ_min(S) ≥ (1 − ‖E‖_F) / ‖R‖_F.

Rigour comes from the enclosure: every entry of S is an arb ball (python-flint) guaranteed to
contain the exact value f_j(x_i) — the points are float64 numbers, hence exact dyadic rationals;
the parameters are exact rationals; arb's elementary and special functions are rigorous — and
E is computed from R's exact midpoints times those balls, so the upper bound on ‖E‖_F holds for
the exact matrix. Rounding in choosing R, the rows or the precision only affects whether the
test succeeds, never what it proves.

Choices that only affect success: columns are multiplied by powers of two near 1/‖A_j‖ (exact);
rows are picked by QR with column pivoting on the scaled float64 matrix transposed (a
well-conditioned minor); R is the midpoint inverse at the working precision; the precision
starts where the float64 smallest singular value says it must and doubles up to ``MAX_DIGITS``.

``σ_min(S)`` bounds the scaled full matrix's smallest singular value from below as well (adding
rows cannot shrink ‖Bλ‖).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import flint
import numpy as np
import scipy.linalg

from .compile import arb_precision

__all__ = ["IntervalCertificate", "approximate_inverse_test", "certify_full_column_rank", "select_rows", "column_exponents", "MAX_DIGITS"]

MAX_DIGITS = 480
START_DIGITS = 30


@dataclass(frozen=True, slots=True)
class IntervalCertificate:
    """What was proved, and enough to replay it.

    Attributes
    ----------
    proved : bool
        True when ‖I − R·S‖_F < 1 was shown in ball arithmetic.
    rows : tuple of int
        Indices of the sample points forming the square minor S.
    column_exponents : tuple of int
        Column j was multiplied by 2**column_exponents[j] (exact) before testing.
    digits : int
        Working precision (decimal digits) of the successful (or last) attempt.
    residual_bound : float
        Upper bound on ‖I − R·S‖_F (rounded up), or inf when the test failed.
    sigma_min_lower_bound : float
        Lower bound on σ_min of the column-scaled matrix (rounded down); 0 when not proved.
    attempts : tuple of (int, float)
        (digits, bound on ‖I − R·S‖_F) per precision tried.
    """

    proved: bool
    rows: tuple
    column_exponents: tuple
    digits: int
    residual_bound: float
    sigma_min_lower_bound: float
    attempts: tuple

    def to_dict(self) -> dict:
        return {
            "proved": self.proved,
            "rows": list(self.rows),
            "column_exponents": list(self.column_exponents),
            "digits": self.digits,
            "residual_bound": self.residual_bound,
            "sigma_min_lower_bound": self.sigma_min_lower_bound,
            "attempts": [{"digits": d, "residual_bound": b} for d, b in self.attempts],
            "method": "approximate inverse R of a square minor S, ||I - R S||_F < 1 in arb ball arithmetic",
        }


def column_exponents(matrix: np.ndarray) -> np.ndarray:
    """e_j with 2**e_j·‖A_j‖₂ in [1/2, 1) (0 for a zero column): an exact column scaling."""
    norms = np.linalg.norm(matrix, axis=0)
    exponents = np.zeros(matrix.shape[1], dtype=int)
    live = norms > 0
    exponents[live] = -np.frexp(norms[live])[1]
    return exponents


def select_rows(matrix: np.ndarray) -> np.ndarray:
    """T row indices of the (n × T, n ≥ T) scaled matrix giving a well-conditioned minor."""
    n, T = matrix.shape
    if n < T:
        raise ValueError(f"need at least as many points as columns, got {n} < {T}")
    _, _, pivots = scipy.linalg.qr(matrix.T, mode="economic", pivoting=True)
    return np.sort(pivots[:T])


def certify_full_column_rank(
    matrix: np.ndarray,
    rows_at: Callable[[Sequence[int], int], "flint.arb_mat"],
    smallest_singular_value: float | None = None,
    max_digits: int = MAX_DIGITS,
) -> IntervalCertificate:
    """Try to prove that the columns of the exact matrix behind ``matrix`` are independent.

    Parameters
    ----------
    matrix : ndarray, shape (n, T)
        float64 values of the matrix (used only to choose rows and the starting precision).
    rows_at : callable
        ``rows_at(rows, digits)`` returns the chosen rows as a ``flint.arb_mat`` of balls that
        contain the exact entries, computed at ``digits`` digits.
    smallest_singular_value : float, optional
        Best estimate of the column-scaled smallest singular value (e.g. from the precision
        ladder); sets the starting precision. Default: from float64.
    max_digits : int
        Give up (``proved=False``) past this precision.

    Returns
    -------
    IntervalCertificate
    """
    n, T = matrix.shape
    exponents = column_exponents(matrix)
    if not np.all(np.isfinite(matrix)):
        raise FloatingPointError("the collocation matrix has non-finite entries")
    scaled = np.ldexp(matrix, exponents[None, :])
    rows = select_rows(scaled)
    if T == 0:
        return IntervalCertificate(True, (), (), 0, 0.0, math.inf, ())
    if smallest_singular_value is None:
        smallest_singular_value = float(np.linalg.svd(scaled, compute_uv=False)[-1])
    # digits lost to conditioning (1/σ_min), plus a margin; float64's σ_min may sit at the noise floor
    lost = -math.log10(max(smallest_singular_value, 1e-300)) if smallest_singular_value > 0 else 16
    digits = max(START_DIGITS, int(math.ceil(2 * max(lost, 0) + 20)))
    attempts = []
    while True:
        bound, sigma = approximate_inverse_test(rows_at(list(rows), digits), exponents, digits)
        attempts.append((digits, bound))
        if bound < 1:
            return IntervalCertificate(True, tuple(int(r) for r in rows), tuple(int(e) for e in exponents), digits, bound, sigma, tuple(attempts))
        if 2 * digits > max_digits:
            return IntervalCertificate(False, tuple(int(r) for r in rows), tuple(int(e) for e in exponents), digits, math.inf, 0.0, tuple(attempts))
        digits *= 2


def approximate_inverse_test(minor, exponents, digits) -> tuple[float, float]:
    """(upper bound on ‖I − R·S‖_F, lower bound on σ_min(S)) for S = minor·2^exponents."""
    T = minor.ncols()
    with arb_precision(digits):
        scale = [flint.arb(2) ** int(e) for e in exponents]
        s = flint.arb_mat([[minor[i, j] * scale[j] for j in range(T)] for i in range(T)])
        if not all(s[i, j].is_finite() for i in range(T) for j in range(T)):
            return math.inf, 0.0
        try:
            r = s.mid().solve(flint.arb_mat(T, T, [int(i == j) for i in range(T) for j in range(T)]), algorithm="approx").mid()
        except ZeroDivisionError:  # the midpoint matrix looks singular at this precision
            return math.inf, 0.0
        e = flint.arb_mat(T, T, [int(i == j) for i in range(T) for j in range(T)]) - r * s
        e_norm = _frobenius_upper(e)
        r_norm = _frobenius_upper(r)
        if not e_norm < 1:
            return _upper_float(e_norm), 0.0
        sigma = (1 - e_norm) / r_norm
        return _upper_float(e_norm), _lower_float(sigma)


def _frobenius_upper(matrix):
    """An arb containing an upper bound of the Frobenius norm (balls' magnitudes, rounded up)."""
    total = flint.arb(0)
    for row in matrix.tolist():
        for v in row:
            total += flint.arb(v.abs_upper()) ** 2
    return flint.arb(total.upper()).sqrt().upper()


def _upper_float(value) -> float:
    """A float ≥ the arb's upper end."""
    x = float(flint.arb(value).upper())
    return math.nextafter(x, math.inf) if math.isfinite(x) else math.inf


def _lower_float(value) -> float:
    x = float(flint.arb(value).lower())
    return max(0.0, math.nextafter(x, -math.inf))
