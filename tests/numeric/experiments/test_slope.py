"""What a set of (n, loss) points can carry (numeric.experiments.slope): no zero-width interval, a bootstrap only from
5 repetitions, the regression's standard error below, and the one rule reaching every printer."""

import numpy as np
import pytest
from scipy import stats

from numeric.experiments.rates_text import slope_cells
from numeric.experiments.slope import MIN_BOOTSTRAP_REPS, estimate_slope

SIZES3 = (1000, 2000, 4000)


def _losses(sizes, reps, seed=0):
    rng = np.random.default_rng(seed)
    return np.asarray(sizes, dtype=float)[:, None] ** -0.5 * rng.lognormal(0.0, 0.3, size=(len(sizes), reps))


@pytest.mark.parametrize(
    "sizes, reps, interval",
    [
        ((1000,), 3, "not estimated"),
        ((1000, 2000), 1, "none"),
        ((1000, 2000), 10, "none"),  # two sizes: two points always lie on a line
        (SIZES3, 1, "none"),  # one repetition: nothing to resample
        (SIZES3, 2, "standard error"),
        (SIZES3, MIN_BOOTSTRAP_REPS - 1, "standard error"),
        (SIZES3, MIN_BOOTSTRAP_REPS, "bootstrap"),
    ],
)
def test_what_the_points_carry(sizes, reps, interval):
    e = estimate_slope(sizes, _losses(sizes, reps), n_boot=200)
    assert e.interval == interval, f"estimate_slope({sizes}, {reps} reps)"
    assert (e.slope is None) == (interval == "not estimated")
    assert (e.ci is None) == (interval in ("none", "not estimated"))
    if e.ci is not None:
        assert e.ci[0] < e.slope < e.ci[1]  # never a zero-width interval


def test_the_standard_error_interval_is_students_t_on_the_regression():
    losses = _losses(SIZES3 + (8000,), 3, seed=4)
    e = estimate_slope(SIZES3 + (8000,), losses)
    fit = stats.linregress(np.log(SIZES3 + (8000,)), np.log(losses.mean(axis=1)))
    half = stats.t.ppf(0.975, 2) * fit.stderr
    assert (e.slope, e.se) == pytest.approx((fit.slope, fit.stderr), rel=1e-10)
    assert e.ci == pytest.approx((fit.slope - half, fit.slope + half), rel=1e-10)


def test_the_text_says_what_is_missing():
    point = estimate_slope((2000, 4000), [[1.0], [0.5]])
    assert point.text() == "-1.00 (no interval: 2 sizes, 1 repetition)"
    assert point.legend() == "slope -1.00, no interval (2 sizes, 1 repetition)"
    assert "[" not in point.text() and "[" not in slope_cells(point)
    assert slope_cells(point).split() == ["-1.000", "no", "CI"]
    se = estimate_slope(SIZES3, _losses(SIZES3, 3))
    assert se.text().endswith("(se)") and slope_cells(se).rstrip().endswith("se")
    assert se.legend().endswith("(regression s.e., 3 repetitions)")  # not "the fit's": a fit is a model fit here
    assert estimate_slope((1000,), [[1.0]]).text() == "not estimated (1 size, 1 repetition)"
