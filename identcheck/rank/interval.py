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
well-conditioned minor); R is the float64 inverse of the minor's midpoints when that passes the
test (while the minor's condition number is well below 1/eps), else the midpoint inverse at the
working precision; the precision
starts where the float64 smallest singular value says it must and doubles up to ``MAX_DIGITS``.

``σ_min(S)`` bounds the scaled full matrix's smallest singular value from below as well (adding
rows cannot shrink ‖Bλ‖).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import flint
import numpy as np

from ..families.echelon import pivoted_rows
from ..terms.compile import arb_precision

__all__ = [
    "IntervalCertificate",
    "approximate_inverse_test",
    "certify_full_column_rank",
    "select_rows",
    "column_exponents",
    "start_digits",
    "arb_columns",
    "MAX_DIGITS",
]

MAX_DIGITS = 480
METHOD = "approximate inverse R of a square minor S, ||I - R S||_F < 1 in arb ball arithmetic"
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
            "method": METHOD,
        }


def arb_columns(matrix, columns):
    """Those columns of an ``arb_mat``, in that order (its balls as they are)."""
    return flint.arb_mat([[matrix[i, j] for j in columns] for i in range(matrix.nrows())])


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
    return np.sort(pivoted_rows(matrix, T))


def certify_full_column_rank(
    matrix: np.ndarray,
    rows_at: Callable[[Sequence[int], int], "flint.arb_mat"],
    smallest_singular_value: float | None = None,
    max_digits: int = MAX_DIGITS,
    digits: int | None = None,
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
    digits : int, optional
        Start at this precision instead of the one the smallest singular value suggests
        (:func:`start_digits`); with ``max_digits=digits``, one attempt.

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
    if digits is None:
        if smallest_singular_value is None:
            smallest_singular_value = float(np.linalg.svd(scaled, compute_uv=False)[-1])
        digits = start_digits(smallest_singular_value)
    attempts = []
    while True:
        bound, sigma = approximate_inverse_test(rows_at(list(rows), digits), exponents, digits)
        attempts.append((digits, bound))
        if bound < 1:
            return IntervalCertificate(
                True,
                tuple(int(r) for r in rows),
                tuple(int(e) for e in exponents),
                digits,
                bound,
                sigma,
                tuple(attempts),
            )
        if 2 * digits > max_digits:
            return IntervalCertificate(
                False,
                tuple(int(r) for r in rows),
                tuple(int(e) for e in exponents),
                digits,
                math.inf,
                0.0,
                tuple(attempts),
            )
        digits *= 2


def start_digits(smallest_singular_value: float) -> int:
    """The precision to try first: the digits lost to conditioning (1/σ_min), twice, plus a margin
    of 20 (float64's σ_min may sit at the noise floor, below the true value); at least 30."""
    s = smallest_singular_value
    lost = -math.log10(max(s, 1e-300)) if s > 0 else 16
    return max(START_DIGITS, int(math.ceil(2 * max(lost, 0) + 20)))


def approximate_inverse_test(minor, exponents, digits) -> tuple[float, float]:
    """(upper bound on ‖I − R·S‖_F, lower bound on σ_min(S)) for S = minor·2^exponents.

    R is first the float64 inverse of S's midpoints (cheap; it passes while S's condition number
    is well below 1/eps), else the midpoint inverse at ``digits`` digits. Either R is exact as
    given (float64 numbers are exact balls), so either bound holds for the exact S.
    """
    T = minor.ncols()
    if minor.nrows() != T or len(exponents) != T:
        raise ValueError(
            f"need a square minor and one exponent per column, got {minor.nrows()} x {T} and {len(exponents)}"
        )
    with arb_precision(digits):
        scale = [flint.arb(2) ** int(e) for e in exponents] * T
        entries = [v * c for v, c in zip(minor.entries(), scale)]
        if not all(v.is_finite() for v in entries):
            return math.inf, 0.0
        s = flint.arb_mat(T, T, entries)
        identity = _identity(T)
        bound = math.inf
        for inverse in (_float64_inverse, _arb_inverse):
            r = inverse(s)
            if r is None:
                continue
            e_norm = _frobenius_upper(identity - r * s)
            if e_norm < 1:
                sigma = (1 - e_norm) / _frobenius_upper(r)
                return _upper_float(e_norm), _lower_float(sigma)
            bound = _upper_float(e_norm)
        return bound, 0.0


def _float64_inverse(s):
    """R = inverse of S's midpoints rounded to float64 (None when singular or not finite there)."""
    mid = np.array([float(v) for v in s.mid().entries()], dtype=float).reshape(s.nrows(), s.ncols())
    if not np.all(np.isfinite(mid)):
        return None
    try:
        r = np.linalg.inv(mid)
    except np.linalg.LinAlgError:
        return None
    return flint.arb_mat(r.tolist()) if np.all(np.isfinite(r)) else None


def _arb_inverse(s):
    """R = S's midpoint inverse at the working precision (None when it looks singular there)."""
    try:
        return s.mid().solve(_identity(s.nrows()), algorithm="approx").mid()
    except ZeroDivisionError:
        return None


@functools.lru_cache(maxsize=64)
def _identity(n):
    """The n × n identity (exact at every precision; shared, so never modified in place)."""
    return flint.arb_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])


def _frobenius_upper(matrix):
    """An arb containing an upper bound of the Frobenius norm: the entries as one row vector v,
    v·vᵀ in ball arithmetic contains Σ e_ij² for every choice of the entries in their balls."""
    n = matrix.nrows() * matrix.ncols()
    v = flint.arb_mat(1, n, matrix.entries())
    return flint.arb((v * v.transpose())[0, 0].upper()).sqrt().upper()


def _upper_float(value) -> float:
    """A float ≥ the arb's upper end."""
    x = float(flint.arb(value).upper())
    return math.nextafter(x, math.inf) if math.isfinite(x) else math.inf


def _lower_float(value) -> float:
    x = float(flint.arb(value).lower())
    return max(0.0, math.nextafter(x, -math.inf))
