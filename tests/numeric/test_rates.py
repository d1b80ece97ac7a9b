"""The rate's bootstrap CI (scipy.stats.bootstrap) against an independent stratified percentile bootstrap."""

import numpy as np
import pytest

from numeric.rates import fit_rate


def _reference(sizes, losses, n_boot, level, seed):
    """The stratified percentile bootstrap written out: for each size in turn, n_boot resamples of
    its R repetitions (indices drawn from one generator, size after size); the slope of
    log(mean) on log n per resample; the (1 ± level)/2 quantiles, linear interpolation."""
    rng = np.random.default_rng(seed)
    losses = np.asarray(losses, dtype=float)
    S, R = losses.shape
    means = np.empty((n_boot, S))
    for s in range(S):
        picks = rng.integers(0, R, size=(n_boot, R))
        means[:, s] = losses[s][picks].mean(axis=1)
    x = np.log(np.asarray(sizes, dtype=float))
    y = np.log(means)
    slopes = ((x - x.mean()) * (y - y.mean(axis=1, keepdims=True))).sum(axis=1) / ((x - x.mean()) ** 2).sum()
    return np.quantile(slopes, [(1 - level) / 2, (1 + level) / 2])


@pytest.mark.parametrize("S, R, level, seed", [(10, 10, 0.95, 0), (4, 3, 0.9, 5), (5, 2, 0.95, 11)])
def test_ci_is_the_stratified_percentile_bootstrap(S, R, level, seed):
    rng = np.random.default_rng(S * 100 + R)
    sizes = np.round(np.logspace(4, 5, S))
    losses = sizes[:, None] ** -0.5 * rng.lognormal(0.0, 0.3, size=(S, R))
    slope, low, high, intercept = fit_rate(sizes, losses, n_boot=500, level=level, seed=seed)
    expected_slope, expected_intercept = np.polyfit(np.log(sizes), np.log(losses.mean(axis=1)), 1)
    assert slope == pytest.approx(expected_slope, abs=1e-12)
    assert intercept == pytest.approx(expected_intercept, abs=1e-12)
    assert (low, high) == pytest.approx(tuple(_reference(sizes, losses, 500, level, seed)), abs=1e-12)


def test_one_repetition_gives_the_degenerate_interval():
    """Every resample of one value is that value: the interval is the slope (scipy refuses such samples)."""
    sizes = [1e4, 2e4, 4e4]
    losses = [[0.4], [0.3], [0.2]]
    slope, low, high, _ = fit_rate(sizes, losses)
    assert low == high == slope == pytest.approx(np.polyfit(np.log(sizes), np.log([0.4, 0.3, 0.2]), 1)[0])
