"""The regression error ‖f_Ĝ − f_G*‖_{L²(μ)} of a fit (Proposition 1), by Monte Carlo.

μ = Uniform([−1, 1]^d); the norm is the root of the mean of (f_Ĝ − f_G*)² over MC_POINTS fixed
(seeded) points, the same for every fit, with its standard error by the delta method:
se(√m) = se(m)/(2√m), se(m) = std((f_Ĝ − f_G*)²)/√points.
"""

from __future__ import annotations

import math

import numpy as np

from ..model.attention import Model
from ..model.attention_params import HMoEParams

__all__ = ["MC_POINTS", "regression_error"]

#: Monte Carlo points of μ for the regression error; fixed (seeded) and shared by every fit.
MC_POINTS = 100_000


def regression_error(
    model: Model, fitted: HMoEParams, truth: HMoEParams, dim: int, points: int = MC_POINTS
) -> tuple[float, float]:
    """‖f_fitted − f_truth‖_{L²(μ)} by Monte Carlo on ``points`` fixed uniform points, and its
    standard error (delta method: se(√m) = se(m)/(2√m))."""
    X = np.random.default_rng(0xE7A1).uniform(-1.0, 1.0, size=(points, dim))
    squared = (model.value(fitted, X) - model.value(truth, X)) ** 2
    mean = float(squared.mean())
    l2 = math.sqrt(mean)
    se = float(squared.std(ddof=1) / math.sqrt(points) / (2 * l2)) if l2 > 0 else 0.0
    return l2, se
