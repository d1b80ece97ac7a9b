"""Least-squares fits of an over-specified HMoE inside a compact box Θ (SPEC §4).

Objective: MSE(θ) = (1/n) Σ_j (f_θ(X_j) − Y_j)², over θ = (ω, m, a) (layout in
:mod:`numeric.params`), constrained to the box Θ = [lo, hi] (ω ≥ 0 always). The box is part
of the estimator (assumption A.1): unconstrained, a converged fit of an over-specified gated
model lowers its training MSE below the truth's by sending redundant channels' experts far out
with tiny weights, which is not the estimator the theory describes.

**Box.** ``Box.around(truth, K, factor)``: ω ∈ [0, factor·max ω*], every free entry of M in
±factor·max|M*|, every entry of a in ±factor·max|a*| (factor 2 by default). The box is reported
with every fit, with the parameters that end on a bound.

**Initialisation** (the paper's): fitted channel k of head h starts at true channel
(h, k mod K*); channels sharing a true channel split its weight equally; every entry is then
perturbed by U(−δ, δ), δ = n^(−0.083) (``init="paper"``) or δ = ``init_scale`` (``init="fixed"``),
and clipped into the box.

**Optimisers.**

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
  over blocks of samples (:meth:`numeric.models.Model.normal_equations`): memory grows with the
  data (n × (d + 3) floats), not with n × P.

**What a fit reports besides the loss.** The training MSE at the start, at the end and of the
truth on the same data (a converged least-squares fit ends at or below the truth's); the
regression error ‖f_Ĝ − f_G*‖_{L²(μ)} (Proposition 1) by Monte Carlo on :data:`MC_POINTS` fixed
points of μ = Uniform([−1, 1]^d) (the same points for every fit), with its standard error; and
how many parameters end on the box.

**Memory.** Before any allocation a fit's peak memory is estimated (:func:`estimate_bytes`) and
refused above the budget (:func:`memory_budget`: half the machine's memory, or the environment
variable ``NUMERIC_MEMORY_BUDGET_MB``).
- ``trf`` — scipy's bounded trust-region reflective least squares with the same Jacobian and
  ftol, for comparison: it computes an SVD of the n×P Jacobian every iteration, 6–10× slower
  than ``lm`` at n = 10⁵ for the same MSE to 2e-5 relative.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.optimize import least_squares

from .data import sample
from .models import CHUNK, Model
from .params import HMoEParams, NumericError
from .truth import Truth, check_phi_range, load_truth
from .voronoi import voronoi_loss

__all__ = ["Box", "FitResult", "fit", "initial_params", "OPTIMIZERS", "GD_OBJECTIVES", "estimate_bytes", "memory_budget", "regression_error"]

OPTIMIZERS = ("gd", "lm", "trf")
GD_OBJECTIVES = ("mean", "sum")
PAPER_INIT_EXPONENT = -0.083
#: Monte Carlo points of μ for the regression error; fixed (seeded) and shared by every fit.
MC_POINTS = 100_000
#: A parameter within this fraction of the box's span from a bound counts as on the bound.
BOUND_TOLERANCE = 1e-9
#: lm holds a parameter fixed when it is this close (fraction of span) to a bound and the gradient pushes out.
PIN_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Box:
    """Bounds lo ≤ θ ≤ hi on the flat parameter vector, and how they were chosen."""

    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    description: str = ""

    @classmethod
    def around(cls, truth: HMoEParams, H: int, N: int, K: int, factor: float = 2.0) -> "Box":
        if not (isinstance(factor, (int, float)) and np.isfinite(factor) and factor > 0):
            raise NumericError(f"box factor={factor!r}: must be a positive number")
        d = truth.dim
        p = d * (d + 1) // 2
        w_max = factor * float(truth.omega.max())
        m_max = factor * float(np.abs(truth.M).max())
        a_max = factor * float(np.abs(truth.a).max())
        sizes = (H * K, H * (N - 1) * p, H * N * K * d)
        lo = np.concatenate([np.zeros(sizes[0]), np.full(sizes[1], -m_max), np.full(sizes[2], -a_max)])
        hi = np.concatenate([np.full(sizes[0], w_max), np.full(sizes[1], m_max), np.full(sizes[2], a_max)])
        text = f"omega in [0, {w_max:g}], M entries in [-{m_max:g}, {m_max:g}], a entries in [-{a_max:g}, {a_max:g}] (factor {factor:g} x truth)"
        return cls(lo, hi, text)

    def clip(self, theta: np.ndarray) -> np.ndarray:
        return np.clip(theta, self.lo, self.hi)

    def active(self, theta: np.ndarray, tol: float = BOUND_TOLERANCE) -> np.ndarray:
        """Indices of parameters on a bound (ω = 0 excluded: a switched-off channel is not a box effect)."""
        span = self.hi - self.lo
        at_hi = theta >= self.hi - tol * span
        at_lo = (theta <= self.lo + tol * span) & (self.lo != 0)
        return np.flatnonzero(at_hi | at_lo)


@dataclass(frozen=True)
class FitResult:
    """One fit: what was fitted, how well, how fast."""

    model: str
    K: int
    n: int
    seed: int
    optimizer: str
    mse: float
    truth_mse: float
    start_mse: float
    regression_l2: float
    regression_se: float
    voronoi_loss: float
    loss_kind: str
    iterations: int
    converged: bool
    seconds: float
    active_bounds: int
    box: str
    init: str
    phi: str
    params: HMoEParams = field(repr=False)
    gd_objective: str = "mean"

    def to_dict(self) -> dict:
        return {
            "model": self.model,
            "K": self.K,
            "n": self.n,
            "seed": self.seed,
            "optimizer": self.optimizer,
            "gd_objective": self.gd_objective,
            "mse": self.mse,
            "truth_mse": self.truth_mse,
            "start_mse": self.start_mse,
            "regression_l2": self.regression_l2,
            "regression_se": self.regression_se,
            "voronoi_loss": self.voronoi_loss,
            "loss_kind": self.loss_kind,
            "iterations": self.iterations,
            "converged": self.converged,
            "seconds": self.seconds,
            "active_bounds": self.active_bounds,
            "box": self.box,
            "init": self.init,
            "phi": self.phi,
            "params": self.params.to_dict(),
        }


def initial_params(truth: HMoEParams, K: int, n: int, seed: int, box: Box, init: str = "paper", init_scale: float = 0.1) -> np.ndarray:
    """The starting θ (module docstring), clipped into ``box``."""
    if init not in ("paper", "fixed"):
        raise NumericError(f"init={init!r}: choose 'paper' or 'fixed'")
    Ks = truth.K
    source = np.arange(K) % Ks
    copies = np.bincount(source, minlength=Ks)
    omega = truth.omega[:, source] / copies[source]
    a = truth.a[:, :, source, :]
    start = HMoEParams(omega, truth.M, a).to_vector()
    delta = n**PAPER_INIT_EXPONENT if init == "paper" else float(init_scale)
    rng = np.random.default_rng([int(seed), 0x1217])
    theta = start + rng.uniform(-delta, delta, size=start.shape)
    return box.clip(theta)


def _mse(model, X, Y, theta, shape):
    return float(np.mean((model.value(HMoEParams.from_vector(theta, *shape), X) - Y) ** 2))


def _gd(model, X, Y, theta, shape, box, max_epochs=1000, step=0.05, rtol=1e-10, objective="mean"):
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
        if improvement <= rtol * loss:
            converged = True
            break
    return theta, epochs, converged


def _lm(model, X, Y, theta, shape, box, ftol=1e-6, max_iter=200):
    """Projected Levenberg–Marquardt on the normal equations (module docstring)."""
    n = len(Y)
    r, JtJ, Jtr = model.normal_equations(HMoEParams.from_vector(theta, *shape), X, Y)
    cost = float(r @ r) / n
    damping = 1e-3
    span = box.hi - box.lo
    for iteration in range(1, max_iter + 1):
        A = JtJ / n
        g = Jtr / n
        pinned = ((theta <= box.lo + PIN_TOLERANCE * span) & (g > 0)) | ((theta >= box.hi - PIN_TOLERANCE * span) & (g < 0))
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
        r, JtJ, Jtr = model.normal_equations(HMoEParams.from_vector(theta, *shape), X, Y)
        if decrease < ftol and agreement > 0.25:  # small drop, and the quadratic model trusted
            return theta, iteration, True
    return theta, max_iter, False


def _trf(model, X, Y, theta, shape, box, ftol=1e-6, max_nfev=500):
    """scipy's bounded trust-region reflective least squares, for comparison."""
    scale = np.sqrt(len(Y))

    def residuals(t):
        return (model.value(HMoEParams.from_vector(t, *shape), X) - Y) / scale

    def jacobian(t):
        return model.value_and_jacobian(HMoEParams.from_vector(t, *shape), X)[1] / scale

    span = box.hi - box.lo
    inside = np.clip(theta, box.lo + 1e-9 * span, box.hi - 1e-9 * span)
    result = least_squares(
        residuals, inside, jac=jacobian, bounds=(box.lo, box.hi), method="trf", x_scale="jac",
        ftol=ftol, xtol=1e-10, gtol=1e-10, max_nfev=max_nfev,
    )
    return result.x, int(result.nfev), bool(result.status > 0)


def memory_budget() -> int:
    """Bytes a fit may use: ``NUMERIC_MEMORY_BUDGET_MB`` if set, else half the machine's memory."""
    text = os.environ.get("NUMERIC_MEMORY_BUDGET_MB")
    if text is not None:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not (value > 0 and math.isfinite(value)):
            raise NumericError(f"NUMERIC_MEMORY_BUDGET_MB={text!r}: must be a positive number of megabytes")
        return int(value * 2**20)
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (ValueError, OSError, AttributeError):  # not a POSIX system: assume 8 GB
        return 8 * 2**30


def estimate_bytes(optimizer: str, n: int, H: int, N: int, K: int, d: int) -> int:
    """Peak memory of one fit, in bytes (a conservative estimate, checked before allocating).

    Data: X, Y, residuals and a trial residual, n·(d + 3) floats. ``lm`` adds a block of the
    Jacobian and its temporaries (:data:`numeric.models.CHUNK` rows); ``gd`` holds the forward
    pass's per-sample arrays, about 8·H·N·K·n floats (measured: 7.3); ``trf`` (scipy) the whole n × P Jacobian
    and its scaled copy and SVD factors, about six times.
    """
    P = H * K + H * (N - 1) * d * (d + 1) // 2 + H * N * K * d
    data = n * (d + 3) * 8 + MC_POINTS * (d + 2) * 8
    block = min(n, CHUNK)
    if optimizer == "lm":
        work = 4 * block * P * 8 + 6 * H * N * K * block * 8
    elif optimizer == "gd":
        work = 8 * H * N * K * n * 8 + 4 * H * N * n * 8  # measured 938 B/sample at H=N=2, K=4 (tracemalloc)
    else:
        work = 6 * n * P * 8
    return int(data + work + 100 * 2**20)  # + the interpreter and libraries


def regression_error(model: Model, fitted: HMoEParams, truth: HMoEParams, dim: int, points: int = MC_POINTS) -> tuple[float, float]:
    """‖f_fitted − f_truth‖_{L²(μ)} by Monte Carlo on ``points`` fixed uniform points, and its
    standard error (delta method: se(√m) = se(m)/(2√m))."""
    X = np.random.default_rng(0xE7A1).uniform(-1.0, 1.0, size=(points, dim))
    squared = (model.value(fitted, X) - model.value(truth, X)) ** 2
    mean = float(squared.mean())
    l2 = math.sqrt(mean)
    se = float(squared.std(ddof=1) / math.sqrt(points) / (2 * l2)) if l2 > 0 else 0.0
    return l2, se


def fit(
    model: str,
    K: int,
    n: int,
    seed: int = 0,
    optimizer: str = "lm",
    truth: Truth | None = None,
    box_factor: float = 2.0,
    init: str = "paper",
    init_scale: float = 0.1,
    max_epochs: int = 1000,
    gd_objective: str = "mean",
) -> FitResult:
    """Generate data from ``truth``, fit a ``model`` with K channels per head, evaluate.

    Parameters
    ----------
    model : {"mha", "gated1", "gated2"}
    K : int
        Channels per head of the fitted model (K ≥ K* of the truth; K = K* is exact-specified).
    n : int
        Sample size.
    seed : int
        Seeds the data and the initialisation.
    optimizer : {"gd", "lm", "trf"}
    truth : Truth, optional
        Defaults to the shipped truth (:func:`numeric.truth.load_truth`); its φ is the gate.
    box_factor : float
        Size of the box Θ relative to the truth (see :class:`Box`).
    gd_objective : {"mean", "sum"}
        ``gd`` only: backtracking on the mean or on the sum of squares (module docstring).
    """
    started = time.perf_counter()
    truth = truth if truth is not None else load_truth()
    if model not in ("mha", "gated1", "gated2"):
        raise NumericError(f"model={model!r}: unknown; choose one of mha, gated1, gated2")
    if optimizer not in OPTIMIZERS:
        raise NumericError(f"optimizer={optimizer!r}: choose one of {', '.join(OPTIMIZERS)}")
    if gd_objective not in GD_OBJECTIVES:
        raise NumericError(f"gd_objective={gd_objective!r}: choose one of {', '.join(GD_OBJECTIVES)}")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or not truth.params.K <= K <= 16:
        raise NumericError(f"K={K!r}: must be an integer from K* = {truth.params.K} (the truth's channels per head) to 16")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise NumericError(f"n={n!r}: must be a positive integer")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise NumericError(f"seed={seed!r}: must be a non-negative integer")
    if isinstance(max_epochs, bool) or not isinstance(max_epochs, int) or max_epochs < 1:
        raise NumericError(f"max_epochs={max_epochs!r}: must be a positive integer")
    if not (isinstance(init_scale, (int, float)) and 0 < init_scale <= 1e3):
        raise NumericError(f"init_scale={init_scale!r}: must be a number in (0, 1000]")
    if not (isinstance(box_factor, (int, float)) and 0 < box_factor <= 1e3):
        raise NumericError(f"box_factor={box_factor!r}: must be a number in (0, 1000]")
    P = truth.params
    needed, budget = estimate_bytes(optimizer, int(n), P.H, P.N, int(K), P.dim), memory_budget()
    if needed > budget:
        raise NumericError(
            f"n={n}, K={K}, optimizer={optimizer}: needs about {needed / 2**30:.1f} GB, above the memory budget of "
            f"{budget / 2**30:.1f} GB (NUMERIC_MEMORY_BUDGET_MB sets it)"
        )
    shape = (P.H, P.N, int(K), P.dim)
    box = Box.around(P, P.H, P.N, int(K), box_factor)
    if model != "mha":
        bound = P.dim * float(np.max(np.abs(box.hi[-P.H * P.N * int(K) * P.dim :])))
        check_phi_range(truth.phi, tuple(sorted((k, str(v)) for k, v in truth.phi_params.items())), bound)
    m = truth.model(model)
    X, Y = sample(truth, m, n, seed)
    theta0 = initial_params(P, int(K), int(n), seed, box, init, init_scale)
    if optimizer == "gd":
        theta, iterations, converged = _gd(m, X, Y, theta0, shape, box, max_epochs=max_epochs, objective=gd_objective)
    elif optimizer == "lm":
        theta, iterations, converged = _lm(m, X, Y, theta0, shape, box)
    else:
        theta, iterations, converged = _trf(m, X, Y, theta0, shape, box)
    fitted = HMoEParams.from_vector(theta, *shape)
    kind = "L1" if model == "mha" else "L2"
    mse = _mse(m, X, Y, theta, shape)
    if not math.isfinite(mse):
        raise NumericError(f"phi={truth.phi!r}: the {model} model is not finite on the data (overflow); nothing stored")
    l2, l2_se = regression_error(m, fitted, P, P.dim)
    return FitResult(
        model=model,
        K=int(K),
        n=int(n),
        seed=int(seed),
        optimizer=optimizer,
        mse=mse,
        truth_mse=float(np.mean((m.value(P, X) - Y) ** 2)),
        start_mse=_mse(m, X, Y, theta0, shape),
        regression_l2=l2,
        regression_se=l2_se,
        voronoi_loss=voronoi_loss(fitted, P, kind),
        loss_kind=kind,
        iterations=iterations,
        converged=converged,
        seconds=round(time.perf_counter() - started, 3),
        active_bounds=int(box.active(theta).size),
        box=box.description,
        init=f"{init} (delta = {n ** PAPER_INIT_EXPONENT if init == 'paper' else init_scale:.3g})",
        phi=truth.phi_text if model != "mha" else "identity",
        params=fitted,
        gd_objective=gd_objective,
    )
