r"""Least squares for a declared regression: projected Levenberg–Marquardt in the box.

Minimises MSE(θ) = (1/n) Σ_n (g(x_n; θ) − y_n)² with the algorithm of numeric's ``lm``
(:mod:`numeric.fitting.optimizers`; its code is written for the hand-written models' parameter layout, so
it is restated here on the declared model's normal equations,
:func:`numeric.model.regression.normal_equations`): each iteration forms A = JᵀJ/n, g = Jᵀr/n,
pins the parameters on a bound with the gradient pushing outwards, solves (A + λ diag A) δ = −g
on the others by Cholesky, clips into the box, and accepts the step if the MSE falls (λ ← λ/3),
else retries with λ ← 4λ; it stops when an accepted step on which the quadratic model agreed with
the actual drop (ratio > :data:`~numeric.fitting.optimizers.TRUSTED_AGREEMENT`) lowers the MSE by less than
``ftol`` = 1e-6 relative, or when no step lowers it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from ..model import Layout, normal_equations, regression_function
from .attention_box import Box
from .optimizers import PIN_TOLERANCE, TRUSTED_AGREEMENT

__all__ = ["LeastSquaresResult", "least_squares"]


@dataclass(frozen=True, slots=True)
class LeastSquaresResult:
    """θ at the end, its MSE, iterations run, whether the stopping rule was met."""

    theta: np.ndarray = field(repr=False)
    mse: float
    iterations: int
    converged: bool


def mse(layout: Layout, theta, X, Y) -> float:
    r = regression_function(layout, layout.unpack(theta), X) - Y
    return float(r @ r) / len(Y)


def least_squares(layout: Layout, theta, X, Y, box: Box, ftol=1e-6, max_iter=200, report=None):
    """Projected LM from ``theta`` (module docstring); ``report(iteration, mse)`` after each step."""
    n = len(Y)
    theta = box.clip(np.asarray(theta, dtype=float))
    r, JtJ, Jtr = normal_equations(layout, theta, X, Y)
    cost = float(r @ r) / n
    damping = 1e-3
    span = box.hi - box.lo
    for iteration in range(1, max_iter + 1):
        A, g = JtJ / n, Jtr / n
        pinned = ((theta <= box.lo + PIN_TOLERANCE * span) & (g > 0)) | (
            (theta >= box.hi - PIN_TOLERANCE * span) & (g < 0)
        )
        free = ~pinned & (span > 0)
        A_free = A[np.ix_(free, free)]
        scale = np.maximum(np.diag(A_free), 1e-12 * max(float(np.diag(A_free).max(initial=0.0)), 1e-300))
        while True:
            try:
                step = -cho_solve(cho_factor(A_free + damping * np.diag(scale)), g[free])
            except LinAlgError:
                damping *= 4
                continue
            trial = theta.copy()
            trial[free] += step
            trial = box.clip(trial)
            trial_cost = mse(layout, trial, X, Y)
            move = (trial - theta)[free]
            predicted = -2.0 * (g[free] @ move) - move @ A_free @ move
            if trial_cost < cost:
                agreement = (cost - trial_cost) / predicted if predicted > 0 else 0.0
                damping = max(damping / 3, 1e-15)
                break
            damping *= 4
            if damping > 1e15:
                return LeastSquaresResult(theta, cost, iteration, True)
        decrease = (cost - trial_cost) / cost
        theta, cost = trial, trial_cost
        if report is not None:
            report(iteration, cost)
        r, JtJ, Jtr = normal_equations(layout, theta, X, Y)
        if decrease < ftol and agreement > TRUSTED_AGREEMENT:
            return LeastSquaresResult(theta, cost, iteration, True)
    return LeastSquaresResult(theta, cost, max_iter, False)
