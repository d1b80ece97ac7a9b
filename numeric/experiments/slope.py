"""What a set of (n, loss) points can carry: a log-log slope, and an interval only where the data allow one.

The slope is the least-squares slope b of log(mean_r L_{n,r}) = c + b·log n over the S sample sizes,
each mean over R repetitions. What comes with it is decided here, once, for every printer and plot:

- S < 2: **not estimated** (``slope`` None);
- S = 2, or R < 2: **the point alone, no interval** — two points always lie on a line, and one
  repetition has nothing to resample: a zero-width interval would claim a certainty the data
  do not have;
- S ≥ 3 and 2 ≤ R < MIN_BOOTSTRAP_REPS = 5: **an interval from the regression's standard error**,
  b ± t_{S−2, (1+level)/2} · se(b), se(b)² = (RSS/(S − 2)) / Σ(log n − mean log n)² (Student's t
  with S − 2 degrees of freedom: wide at S = 3, as it should be);
- S ≥ 3 and R ≥ 5: **a percentile bootstrap** over repetitions, stratified by size: at every n the
  R repetitions are resampled with replacement (independently across n), the slope refitted;
  2000 resamples, the interval's ends the (1 ∓ level)/2 quantiles (linear interpolation).
  :func:`scipy.stats.bootstrap` does exactly this (one sample per n, ``paired=False``,
  ``method="percentile"``). Below 5 repetitions the percentile bootstrap undercovers badly (it
  resamples R values, its spread is ~√((R − 1)/R) of the truth's and its tails short).

:class:`SlopeEstimate` says which case holds (``interval``), why, and renders itself the same way
in text, markdown and legends (:meth:`SlopeEstimate.text`, :meth:`SlopeEstimate.legend`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import bootstrap, norm, t

from ..model.attention_params import NumericError

__all__ = [
    "INTERVALS",
    "MIN_BOOTSTRAP_REPS",
    "MIN_INTERVAL_REPS",
    "MIN_INTERVAL_SIZES",
    "SlopeEstimate",
    "estimate_slope",
]

MIN_INTERVAL_SIZES = 3  # sizes an interval needs (two points always lie on a line)
MIN_INTERVAL_REPS = 2  # repetitions an interval needs (one has nothing to resample)
MIN_BOOTSTRAP_REPS = 5  # repetitions a bootstrap interval needs; below: the regression's standard error

#: ``SlopeEstimate.interval`` → what it means.
INTERVALS = {
    "bootstrap": "percentile bootstrap over repetitions, stratified by size",
    "standard error": "the regression's standard error, Student's t with sizes − 2 degrees of freedom",
    "none": "no interval: the point slope alone",
    "not estimated": "no slope: fewer than two sizes",
}


@dataclass(frozen=True, slots=True)
class SlopeEstimate:
    """A slope and what the points can carry with it (module docstring).

    ``low``/``high`` are None without an interval; ``se`` is the slope's standard error (for a
    bootstrap, read off its interval as (high − low)/(2·z_level)); ``reason`` says in words why
    the interval is what it is.
    """

    slope: float | None
    intercept: float | None
    low: float | None
    high: float | None
    interval: str
    reason: str
    sizes: int
    repetitions: int
    level: float = 0.95
    se: float | None = None

    @property
    def has_interval(self) -> bool:
        return self.low is not None and self.high is not None

    @property
    def ci(self) -> tuple | None:
        """(low, high), or None without an interval."""
        return (self.low, self.high) if self.low is not None and self.high is not None else None

    def text(self, digits: int = 2, signed: bool = False) -> str:
        """``'-0.49 [-0.55, -0.43]'``, ``'-0.49 [-0.90, -0.08] (se)'``, ``'-0.49 (no interval: 1 repetition)'``,
        ``'not estimated (1 size)'`` — one rule for every printer."""
        if self.slope is None:
            return f"not estimated ({self.reason})"
        sign = "+" if signed else ""
        point = f"{self.slope:{sign}.{digits}f}"
        if self.low is None or self.high is None:
            return f"{point} (no interval: {self.reason})"
        interval = f"{point} [{self.low:{sign}.{digits}f}, {self.high:{sign}.{digits}f}]"
        return interval + (" (se)" if self.interval == "standard error" else "")

    def legend(self) -> str:
        """The words a plot's legend gives this slope."""
        if self.slope is None:
            return f"slope not estimated ({self.reason})"
        if self.low is None or self.high is None:
            return f"slope {self.slope:.2f}, no interval ({self.reason})"
        kind = "bootstrap" if self.interval == "bootstrap" else "regression s.e."
        reps = _plural(self.repetitions, "repetition")
        return f"slope {self.slope:.2f} [{self.low:.2f}, {self.high:.2f}] ({kind}, {reps})"

    def to_dict(self) -> dict:
        return {
            "slope": self.slope,
            "ci": None if self.ci is None else list(self.ci),
            "interval": self.interval,
            "interval_reason": self.reason,
            "level": self.level,
            "se": self.se,
        }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _line(log_n, log_mean):
    A = np.column_stack([log_n, np.ones_like(log_n)])
    (slope, intercept), *_ = np.linalg.lstsq(A, log_mean, rcond=None)
    return float(slope), float(intercept)


def _slope_of_means(log_n):
    """The statistic: the least-squares slope of log(mean over repetitions) on log n, for samples
    (one per size) of shape (..., R), vectorised over leading (resample) axes."""
    A = np.column_stack([log_n, np.ones_like(log_n)])

    def statistic(*samples, axis=-1):
        log_means = np.log(np.stack([sample.mean(axis=axis) for sample in samples]))
        coefficients, *_ = np.linalg.lstsq(A, log_means.reshape(len(samples), -1), rcond=None)
        return coefficients[0].reshape(log_means.shape[1:])

    return statistic


def estimate_slope(sizes, losses, n_boot: int = 2000, level: float = 0.95, seed: int = 0) -> SlopeEstimate:
    """The slope of ``losses`` (shape (len(sizes), repetitions)) against ``sizes``, and what it can carry.

    Examples
    --------
    >>> estimate_slope([1000, 2000], [[1.0], [0.5]]).text()
    '-1.00 (no interval: 2 sizes, 1 repetition)'
    """
    sizes = np.asarray(sizes, dtype=float)
    losses = np.asarray(losses, dtype=float)
    if losses.ndim != 2 or losses.shape[0] != sizes.size or losses.shape[1] < 1:
        raise NumericError("need losses of shape (sizes, repetitions)")
    if np.any(~np.isfinite(losses)) or np.any(losses <= 0):
        raise NumericError("losses must be positive and finite for a log-log rate")
    S, R = losses.shape
    counts = f"{_plural(S, 'size')}, {_plural(R, 'repetition')}"
    if S < 2:
        return SlopeEstimate(None, None, None, None, "not estimated", counts, S, R, level)
    log_n = np.log(sizes)
    log_mean = np.log(losses.mean(axis=1))
    slope, intercept = _line(log_n, log_mean)
    if S < MIN_INTERVAL_SIZES or R < MIN_INTERVAL_REPS:
        return SlopeEstimate(slope, intercept, None, None, "none", counts, S, R, level)
    if R < MIN_BOOTSTRAP_REPS:
        residual = log_mean - (intercept + slope * log_n)
        se = float(np.sqrt(residual @ residual / (S - 2) / ((log_n - log_n.mean()) ** 2).sum()))
        half = float(t.ppf((1 + level) / 2, S - 2)) * se
        reason = f"{counts}: below {MIN_BOOTSTRAP_REPS} repetitions, from the regression's standard error"
        return SlopeEstimate(slope, intercept, slope - half, slope + half, "standard error", reason, S, R, level, se)
    result = bootstrap(
        tuple(losses),
        _slope_of_means(log_n),
        n_resamples=n_boot,
        confidence_level=level,
        method="percentile",
        vectorized=True,
        paired=False,
        rng=np.random.default_rng(seed),
    )
    low, high = (float(v) for v in result.confidence_interval)
    z = float(norm.ppf((1 + level) / 2))
    reason = f"{counts}: percentile bootstrap over repetitions"
    return SlopeEstimate(slope, intercept, low, high, "bootstrap", reason, S, R, level, (high - low) / (2 * z))
