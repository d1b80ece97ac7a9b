"""Interval certificates: proved for independent sets, never for a set made dependent on purpose."""

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck.rank.interval import (
    _frobenius_upper,
    approximate_inverse_test,
    certify_full_column_rank,
    column_exponents,
    select_rows,
)
from identcheck.terms.compile import arb_precision

from ..conftest import probe_matrix


@pytest.fixture(scope="module")
def sigmoid_probe(term_set_2d):
    """sigmoid(z + 1) on the 'random pair' probe: 36 independent columns."""
    _, _, matrix, rows_at = probe_matrix(term_set_2d, "sigmoid(z + 1)", 2, seed=7)
    return matrix, rows_at


def test_independent_columns_are_certified(sigmoid_probe):
    matrix, rows_at = sigmoid_probe
    cert = certify_full_column_rank(matrix, rows_at)
    assert cert.proved and cert.residual_bound < 1
    s_min = np.linalg.svd(np.ldexp(matrix, column_exponents(matrix)[None, :]), compute_uv=False)[-1]
    # the bound is a lower bound of the minor's σ_min, hence of the full scaled matrix's
    assert 0 < cert.sigma_min_lower_bound <= s_min
    assert len(cert.rows) == matrix.shape[1] == len(set(cert.rows))


def test_the_certificate_agrees_with_arbs_own_rigorous_inverse(sigmoid_probe):
    matrix, rows_at = sigmoid_probe
    cert = certify_full_column_rank(matrix, rows_at)
    with arb_precision(cert.digits):
        minor = rows_at(cert.rows, cert.digits)
        assert minor.det() != 0  # arb proves the determinant nonzero too (ball excludes 0)


@settings(max_examples=15, deadline=None)
@given(coefficients=st.lists(st.integers(-8, 8), min_size=36, max_size=36).filter(any), position=st.integers(0, 36))
def test_a_set_made_dependent_is_never_certified(sigmoid_probe, coefficients, position):
    """Insert Σ c_j column_j (exact, in arb) as a new column: the set is dependent; no certificate."""
    matrix, rows_at = sigmoid_probe
    c = np.array(coefficients, dtype=float) / 8
    extended = np.insert(matrix, position, matrix @ c, axis=1)

    def extended_rows(rows, digits):
        base = rows_at(rows, digits)
        with arb_precision(digits):
            out = []
            for i in range(base.nrows()):
                row = [base[i, j] for j in range(base.ncols())]
                combo = sum((row[j] * flint.fmpq(k, 8) for j, k in enumerate(coefficients) if k), flint.arb(0))
                out.append(row[:position] + [combo] + row[position:])
            return flint.arb_mat(out)

    cert = certify_full_column_rank(extended, extended_rows, max_digits=120)
    assert not cert.proved
    assert cert.sigma_min_lower_bound == 0.0


def test_a_zero_column_is_never_certified(sigmoid_probe):
    matrix, rows_at = sigmoid_probe
    zeroed = matrix.copy()
    zeroed[:, 5] = 0.0

    def rows_zeroed(rows, digits):
        base = rows_at(rows, digits)
        return flint.arb_mat(
            [[flint.arb(0) if j == 5 else base[i, j] for j in range(base.ncols())] for i in range(base.nrows())]
        )

    assert not certify_full_column_rank(zeroed, rows_zeroed, max_digits=60).proved


def test_the_test_uses_the_balls_not_their_midpoints():
    """A minor whose balls contain a singular matrix cannot be certified, though its midpoints can."""
    with arb_precision(30):
        wide = flint.arb_mat([[flint.arb(1), flint.arb(1)], [flint.arb(1), flint.arb(1.0005, 1e-3)]])
        bound, sigma = approximate_inverse_test(wide, [0, 0], 30)
        assert approximate_inverse_test(wide.mid(), [0, 0], 30)[0] < 1  # the midpoint matrix is invertible
    assert not bound < 1 and sigma == 0.0


def test_row_selection_needs_enough_points():
    with pytest.raises(ValueError, match="at least as many points"):
        select_rows(np.ones((2, 3)))


def test_column_exponents_are_exact_powers_of_two():
    m = np.array([[3.0, 0.0, 1e-30], [4.0, 0.0, 0.0]])
    e = column_exponents(m)
    norms = np.linalg.norm(np.ldexp(m, e[None, :]), axis=0)
    assert e[1] == 0 and np.all((norms[[0, 2]] >= 0.5) & (norms[[0, 2]] < 1))


def _hilbert(n, digits):
    with arb_precision(digits):
        return flint.arb_mat([[flint.arb(1) / (i + j + 1) for j in range(n)] for i in range(n)])


def test_a_float64_inverse_serves_a_moderately_conditioned_minor():
    """Hilbert 6 × 6 (cond ≈ 1.5e7): R = float64 inverse passes; its residual is float64's
    (≈ cond·eps, far above what a 60-digit inverse leaves), and σ_min ≥ the bound (mpmath)."""
    bound, sigma = approximate_inverse_test(_hilbert(6, 60), [0] * 6, 60)
    assert 1e-30 < bound < 1e-3
    with mpmath.workdps(40):
        exact = min(mpmath.svd_r(mpmath.hilbert(6), compute_uv=False))
    assert 0 < sigma <= exact and sigma > exact / 10


def test_the_precise_inverse_takes_over_where_float64_cannot():
    """Hilbert 14 × 14 (cond ≈ 1e19): a float64 inverse leaves ‖I − RS‖ ≥ 1; the 60-digit inverse
    proves it, with a residual far below float64's, and σ_min ≥ the bound (mpmath)."""
    h = _hilbert(14, 60)
    bound, sigma = approximate_inverse_test(h, [0] * 14, 60)
    assert bound < 1e-20
    with mpmath.workdps(60):
        exact = min(mpmath.svd_r(mpmath.hilbert(14), compute_uv=False))
    assert 0 < sigma <= exact and sigma > exact / 100
    mid = np.array([[float(h[i, j].mid()) for j in range(14)] for i in range(14)])
    with arb_precision(60):
        r = flint.arb_mat(np.linalg.inv(mid).tolist())
        residual = flint.arb_mat(14, 14, [int(i == j) for i in range(14) for j in range(14)]) - r * h
        assert not _frobenius_upper(residual) < 1  # the float64 route alone fails here


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(0, 1)), min_size=1, max_size=30))
def test_the_frobenius_bound_covers_every_matrix_in_the_balls(entries):
    """‖E‖_F ≤ bound for the worst choice in each ball, √Σ(|m| + r)² (mpmath), and not much above it (radii are
    rounded up to 30 bits: ≈ 1e-9 relative)."""
    with arb_precision(30):
        balls = [flint.arb(m, r) for m, r in entries]
        bound = float(_frobenius_upper(flint.arb_mat(1, len(balls), balls)).mid())
    with mpmath.workdps(40):
        worst = mpmath.sqrt(
            mpmath.fsum((abs(mpmath.mpf(float(b.mid()))) + mpmath.mpf(float(b.rad()))) ** 2 for b in balls)
        )
    assert bound >= float(worst) * (1 - 1e-15) and bound <= float(worst) * (1 + 1e-6) + 1e-300


def test_the_test_refuses_a_minor_that_is_not_square():
    """A 3 × 2 'minor' (or one exponent missing) is an error, not a proof about its first rows."""
    with arb_precision(30):
        tall = flint.arb_mat([[1, 0], [0, 1], [1, 1]])
        with pytest.raises(ValueError, match="square minor"):
            approximate_inverse_test(tall, [0, 0], 30)
        with pytest.raises(ValueError, match="one exponent per column"):
            approximate_inverse_test(flint.arb_mat([[1, 0], [0, 1]]), [0], 30)
