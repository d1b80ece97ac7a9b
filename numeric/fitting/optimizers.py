"""The optimisers of a fit: projected gradient descent, projected Levenberg–Marquardt, scipy's trf.

Each minimises MSE(θ) = (1/n) Σ_j (f_θ(X_j) − Y_j)² over the box Θ = [lo, hi]
(:mod:`numeric.fitting.attention_box`) from a start θ₀ and returns (θ, iterations, converged).

- ``gd`` — the paper's protocol: projected gradient descent with backtracking line search.
  Each epoch starts from step η = 0.05 and halves it (at most 30 times) until the projected
  Armijo condition MSE(θ⁺) ≤ MSE(θ) + ∇ᵀ(θ⁺ − θ) + ‖θ⁺ − θ‖²/(2η) holds; at most 1000
  epochs. Converged when the projected step moves MSE by less than ``rtol`` relative.
  ``gd_objective``: the paper's eq. (3) is a *sum* of squares; ``"mean"`` (default) runs the
  protocol on the MSE, ``"sum"`` on S = n·MSE. Since ∇S = n∇MSE and the Armijo test on S is the
  test on the MSE with η replaced by n·η, ``"sum"`` is the same algorithm started from η = 0.05·n
  (with ⌈log₂ n⌉ more halvings allowed, so its smallest step is no larger than the mean's).
  If no trial step passes the Armijo test, θ stays and the fit stops, not converged.
- ``lm`` — projected Levenberg–Marquardt: each iteration forms A = JᵀJ/n and g = Jᵀr/n from
  the analytic Jacobian (one n×P product), pins the parameters that sit on a bound with the
  gradient pushing outwards, solves (A + λ·diag A) δ = −g on the others by Cholesky, clips the
  step into the box, and accepts it if the MSE drops (λ ← λ/3), else retries with λ ← 4λ.
  Stopping rule tied to the statistical error rather than to machine precision: stop when an
  accepted step, on which the quadratic model agreed with the actual drop (ratio > 0.25, as in
  scipy's ftol test), lowers the MSE by less than ``ftol`` = 1e-6 relative — about 1e-8 in MSE for
  ν = 0.1, some 500× below the statistical resolution ν²·P/n ≈ 5e-6 at n = 10⁵ (P = 46).
  Past that point the over-specified gated fits only creep along nearly flat directions
  (ftol = 1e-8 buys 7e-7 of MSE for 6–11× the time at n = 10⁵). JᵀJ and Jᵀr are accumulated
  over blocks of samples (:meth:`numeric.model.attention.Model.normal_equations`): memory grows with the
  data (n × (d + 3) floats), not with n × P.
- ``trf`` — scipy's bounded trust-region reflective least squares with the same Jacobian and
  ftol, for comparison: it computes an SVD of the n×P Jacobian every iteration, 6–10× slower
  than ``lm`` at n = 10⁵ for the same MSE to 2e-5 relative.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import least_squares

from ..cli.choices import GD_OBJECTIVES, OPTIMIZERS
from ..model.attention_params import HMoEParams

__all__ = ["OPTIMIZERS", "GD_OBJECTIVES", "PIN_TOLERANCE", "optimise"]

#: lm holds a parameter fixed when it is this close (fraction of span) to a bound and the gradient pushes out.
PIN_TOLERANCE = 1e-12
#: actual / predicted decrease above which LM's quadratic model is trusted enough to stop on ftol
TRUSTED_AGREEMENT = 0.25


def _gd(model, X, Y, theta, shape, box, max_epochs=1000, step=0.05, rtol=1e-10, objective="mean", report=None):
    n = len(Y)
    halvings = 30
    if objective == "sum":  # the Armijo test on n·MSE is the test on the MSE with step n·η
        step *= n
        halvings += math.ceil(math.log2(n))
    value, vjp = model.value_and_vjp(HMoEParams.from_vector(theta, *shape), X)
    loss = float(np.mean((value - Y) ** 2))
    converged = False
    epochs = 0
    for epochs in range(1, max_epochs + 1):
        grad = vjp((2.0 / n) * (value - Y))
        t = step
        for _ in range(halvings):
            trial = box.clip(theta - t * grad)
            move = trial - theta
            trial_value, trial_vjp = model.value_and_vjp(HMoEParams.from_vector(trial, *shape), X)
            trial_loss = float(np.mean((trial_value - Y) ** 2))
            if trial_loss <= loss + grad @ move + (move @ move) / (2 * t):
                break
            t /= 2
        else:  # no step passed the Armijo test: stay, not converged
            return theta, epochs, False
        improvement = loss - trial_loss
        theta, value, vjp, loss = trial, trial_value, trial_vjp, trial_loss
        if report is not None:
            report(epochs, loss)
        if improvement <= rtol * loss:
            converged = True
            break
    return theta, epochs, converged


def _lm(model, X, Y, theta, shape, box, ftol=1e-6, max_iter=200, report=None):
    """Projected Levenberg–Marquardt on the normal equations (module docstring)."""
    n = len(Y)
    r, JtJ, Jtr = model.normal_equations(HMoEParams.from_vector(theta, *shape), X, Y)
    cost = float(r @ r) / n
    damping = 1e-3
    span = box.hi - box.lo
    for iteration in range(1, max_iter + 1):
        A = JtJ / n
        g = Jtr / n
        pinned = ((theta <= box.lo + PIN_TOLERANCE * span) & (g > 0)) | (
            (theta >= box.hi - PIN_TOLERANCE * span) & (g < 0)
        )
        free = ~pinned
        A_free = A[np.ix_(free, free)]
        scale = np.maximum(np.diag(A_free), 1e-12 * max(float(np.diag(A_free).max()), 1e-300))
        while True:
            try:
                step = -cho_solve(cho_factor(A_free + damping * np.diag(scale)), g[free])
            except LinAlgError:
                damping *= 4
                continue
            trial = theta.copy()
            trial[free] += step
            trial = box.clip(trial)
            trial_r = model.value(HMoEParams.from_vector(trial, *shape), X) - Y
            trial_cost = float(trial_r @ trial_r) / n
            move = (trial - theta)[free]
            predicted = -2.0 * (g[free] @ move) - move @ A_free @ move  # quadratic model of the MSE drop
            if trial_cost < cost:
                agreement = (cost - trial_cost) / predicted if predicted > 0 else 0.0
                damping = max(damping / 3, 1e-15)
                break
            damping *= 4
            if damping > 1e15:  # no step decreases the cost: a (constrained) stationary point
                return theta, iteration, True
        decrease = (cost - trial_cost) / cost
        theta, cost = trial, trial_cost
        if report is not None:
            report(iteration, cost)
        r, JtJ, Jtr = model.normal_equations(HMoEParams.from_vector(theta, *shape), X, Y)
        if decrease < ftol and agreement > TRUSTED_AGREEMENT:  # small drop, and the quadratic model trusted
            return theta, iteration, True
    return theta, max_iter, False


def _trf(model, X, Y, theta, shape, box, ftol=1e-6, max_nfev=500, report=None):
    """scipy's bounded trust-region reflective least squares, for comparison (``report`` gets the
    number of residual evaluations and their MSE: scipy's iterations are not visible from outside)."""
    scale = np.sqrt(len(Y))
    evaluations = [0]

    def residuals(t):
        r = (model.value(HMoEParams.from_vector(t, *shape), X) - Y) / scale
        evaluations[0] += 1
        if report is not None:
            report(evaluations[0], float(r @ r))
        return r

    def jacobian(t):
        return model.value_and_jacobian(HMoEParams.from_vector(t, *shape), X)[1] / scale

    span = box.hi - box.lo
    inside = np.clip(theta, box.lo + 1e-9 * span, box.hi - 1e-9 * span)
    result = least_squares(
        residuals,
        inside,
        jac=jacobian,
        bounds=(box.lo, box.hi),
        method="trf",
        x_scale="jac",
        ftol=ftol,
        xtol=1e-10,
        gtol=1e-10,
        max_nfev=max_nfev,
    )
    return result.x, int(result.nfev), bool(result.status > 0)


def optimise(
    optimizer: str, model, X, Y, theta, shape, box, max_epochs: int = 1000, gd_objective: str = "mean", report=None
):
    """Run ``optimizer`` (one of :data:`OPTIMIZERS`) from ``theta``; returns (θ, iterations, converged).

    ``report(iteration, mse)``, when given, is called after every iteration (gd: epoch; lm:
    accepted step; trf: residual evaluation) with the MSE reached — for a status line.
    """
    if optimizer == "gd":
        return _gd(model, X, Y, theta, shape, box, max_epochs=max_epochs, objective=gd_objective, report=report)
    if optimizer == "lm":
        return _lm(model, X, Y, theta, shape, box, report=report)
    return _trf(model, X, Y, theta, shape, box, report=report)
