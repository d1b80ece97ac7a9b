"""The rank decision on matrices whose answer is known by construction."""

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck.compile import arb_precision
from identcheck.rank import decide_rank


def _functions_matrix(columns, points):
    """float64 matrix and an exact arb provider for columns given as f(x_arb) -> arb."""

    def provider(digits):
        with arb_precision(digits):
            return flint.arb_mat([[f(flint.arb(float(x))) for f in columns] for x in points])

    with arb_precision(20):
        m = provider(20)
        matrix = np.array([[float(v.mid()) for v in row] for row in m.tolist()])
    return matrix, provider


POINTS = np.random.default_rng(7).uniform(-1, 1, 40)


def _exp(k, eps):
    return lambda x: (x * (k * eps)).exp()


def test_well_conditioned_independent_is_settled_in_float64():
    matrix, provider = _functions_matrix([lambda x: x, lambda x: x.exp(), lambda x: x.sin()], POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is True and d.precision_digits == 16 and d.nullity == 0


def test_exact_dependence_collapses_and_is_found():
    cols = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x.exp() * 2 - x.sin() * 3]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is False and d.nullity == 1
    v = d.null_space[:, 0] / d.null_space[2, 0]
    assert np.allclose(v, [-2, 3, 1], atol=1e-10)


def test_ill_conditioned_independence_is_not_mistaken_for_dependence():
    """exp(k·ε·x), k = 0..7, ε = 0.05: independent, smallest scaled singular value below 1e-8."""
    cols = [_exp(k, 0.05) for k in range(8)]
    matrix, provider = _functions_matrix(cols, POINTS)
    s = np.linalg.svd(matrix / np.linalg.norm(matrix, axis=0), compute_uv=False)
    assert s[-1] < 1e-8  # float64 alone would be borderline here
    d = decide_rank(matrix, provider)
    assert d.independent is True and d.precision_digits >= 30
    assert d.smallest_singular_value == pytest.approx(d.history[-1][1])


def test_tiny_true_singular_value_below_first_rung_is_resolved_higher_up():
    """ε = 0.0005 with 10 columns: true s_min far below 1e-30, settled on a higher rung."""
    cols = [_exp(k, 0.0005) for k in range(10)]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is True
    assert d.smallest_singular_value < 1e-30
    assert d.precision_digits >= 60


def test_undecidable_within_the_ladder_is_inconclusive():
    cols = [_exp(k, 0.002) for k in range(10)]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider, ladder=(20, 25))
    assert d.independent is None


def test_zero_column_is_a_dependence():
    cols = [lambda x: x.exp(), lambda x: x * 0, lambda x: x.cos()]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is False and d.nullity == 1
    assert abs(d.null_space[1, 0]) == pytest.approx(1.0)


@settings(max_examples=15)
@given(
    scales=st.lists(st.integers(-20, 20), min_size=5, max_size=5),
    order=st.permutations(range(5)),
    dependent=st.booleans(),
)
def test_decision_invariant_to_column_scaling_and_order(scales, order, dependent):
    base = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x.cos(), lambda x: x * x]
    base.append((lambda x: x.exp() - x * x * 3) if dependent else (lambda x: x.atan()))
    ref = decide_rank(*_functions_matrix(base, POINTS))
    scaled = [(lambda f, s: (lambda x: f(x) * flint.arb(2.0**s)))(base[i], scales[i]) for i in order]
    got = decide_rank(*_functions_matrix(scaled, POINTS))
    assert got.independent == ref.independent == (not dependent)
    assert got.nullity == ref.nullity
    assert got.smallest_singular_value == pytest.approx(ref.smallest_singular_value, rel=1e-6, abs=1e-40)
