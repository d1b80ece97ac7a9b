"""Convergence rates: the slope of log(mean Voronoi loss) against log(n), with a bootstrap CI.

For one (model, K): at each sample size n the repetitions' losses L_{n,r} are averaged, and the
rate is the least-squares slope of log(mean_r L_{n,r}) on log n. The confidence interval is a
percentile bootstrap over repetitions: at every n the R repetitions are resampled with
replacement, the slope refitted; 2000 resamples, 95 % by default. The paper's slopes are shown
beside ours.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .params import NumericError

__all__ = ["PAPER_SLOPES", "Rate", "fit_rate", "rates_from_records"]

#: The paper's reported slopes (Figure 1), by (model, K).
PAPER_SLOPES = {
    ("mha", 3): -0.12,
    ("mha", 4): -0.13,
    ("gated1", 3): -0.49,
    ("gated1", 4): -0.49,
    ("gated2", 3): -0.51,
    ("gated2", 4): -0.53,
}


@dataclass(frozen=True)
class Rate:
    model: str
    K: int
    slope: float
    ci_low: float
    ci_high: float
    intercept: float
    sizes: tuple
    means: tuple
    n_reps: int
    paper: float | None

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "K": self.K,
            "slope": self.slope,
            "ci": [self.ci_low, self.ci_high],
            "intercept": self.intercept,
            "sizes": list(self.sizes),
            "mean_loss": list(self.means),
            "repetitions": self.n_reps,
            "paper_slope": self.paper,
        }


def _slope(log_n, log_mean):
    A = np.column_stack([log_n, np.ones_like(log_n)])
    (slope, intercept), *_ = np.linalg.lstsq(A, log_mean, rcond=None)
    return slope, intercept


def fit_rate(sizes, losses, n_boot: int = 2000, level: float = 0.95, seed: int = 0):
    """Slope, CI and intercept from ``losses`` of shape (len(sizes), repetitions)."""
    sizes = np.asarray(sizes, dtype=float)
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 2 or losses.shape[0] != sizes.size or sizes.size < 2:
        raise NumericError("need losses of shape (sizes, repetitions) with at least two sizes")
    if np.any(~np.isfinite(losses)) or np.any(losses <= 0):
        raise NumericError("losses must be positive and finite for a log-log rate")
    log_n = np.log(sizes)
    slope, intercept = _slope(log_n, np.log(losses.mean(axis=1)))
    rng = np.random.default_rng(seed)
    R = losses.shape[1]
    picks = rng.integers(0, R, size=(n_boot, sizes.size, R))
    boot_means = np.take_along_axis(np.broadcast_to(losses, (n_boot, *losses.shape)), picks, axis=2).mean(axis=2)
    A = np.column_stack([log_n, np.ones_like(log_n)])
    coefficients, *_ = np.linalg.lstsq(A, np.log(boot_means).T, rcond=None)
    low, high = np.quantile(coefficients[0], [(1 - level) / 2, (1 + level) / 2])
    return float(slope), float(low), float(high), float(intercept)


def rates_from_records(records, n_boot: int = 2000) -> list[Rate]:
    """One Rate per (model, K) present in the records (complete sizes only)."""
    groups: dict = {}
    for r in records:
        groups.setdefault((r["model"], r["K"]), {}).setdefault(r["n"], []).append(r["voronoi_loss"])
    out = []
    for (model, K), by_n in sorted(groups.items()):
        reps = min(len(v) for v in by_n.values())
        sizes = sorted(by_n)
        if len(sizes) < 2 or reps < 1:
            continue
        losses = np.array([by_n[n][:reps] for n in sizes])
        slope, low, high, intercept = fit_rate(sizes, losses, n_boot=n_boot)
        out.append(
            Rate(model, K, slope, low, high, intercept, tuple(sizes), tuple(losses.mean(axis=1)), reps, PAPER_SLOPES.get((model, K)))
        )
    return out
