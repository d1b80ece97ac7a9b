"""Least-squares fits of an over-specified HMoE inside a compact box Θ (docs/method.md §10), one fit at a time.

Objective: MSE(θ) = (1/n) Σ_j (f_θ(X_j) − Y_j)², over θ = (ω, m, a) (layout in
:mod:`numeric.model.attention_params`), constrained to the box Θ = [lo, hi] (ω ≥ 0 always;
:mod:`numeric.fitting.attention_box`),
minimised by one of :data:`numeric.fitting.optimizers.OPTIMIZERS` (``gd``: the paper's projected gradient
descent; ``lm``: projected Levenberg–Marquardt, the default; ``trf``: scipy's, for comparison). The
model is computed by its shipped declaration's array code (``mha``, ``setting1``, ``setting2``,
:mod:`numeric.model.attention_declared`), the hand-written :mod:`numeric.model.attention` on request.

**Initialisation** (the paper's): fitted channel k of head h starts at true channel
(h, k mod K*); channels sharing a true channel split its weight equally; every entry is then
perturbed by U(−δ, δ), δ = n^(−0.083) (``init="paper"``) or δ = ``init_scale`` (``init="fixed"``),
and clipped into the box.

**What a fit reports besides the loss.** The training MSE at the start, at the end and of the
truth on the same data (a converged least-squares fit ends at or below the truth's); the
regression error ‖f_Ĝ − f_G*‖_{L²(μ)} (Proposition 1, :mod:`numeric.losses.regression_error`) by Monte Carlo
on fixed points of μ = Uniform([−1, 1]^d), with its standard error; and how many parameters end
on the box. Before any allocation the fit's peak memory is estimated and refused above the
budget (:mod:`numeric.fitting.memory`).

**Time, before and during.** With ``notice``, a fit whose time is estimated above
``LONG_FIT_SECONDS`` says so in one line before it starts: one iteration's cost is timed on
``CALIBRATION_POINTS`` of the data (lm: the normal equations plus one trial evaluation; trf: ×8
for its SVD of the n × P Jacobian, docs/numeric.md; gd: a value-and-gradient and two trial steps)
and scaled to n, times the iterations the optimiser typically takes (``TYPICAL_ITERATIONS``,
measured in docs/numeric.md: lm 9–146; gd its epochs). With ``progress``, every iteration shows
"iteration, MSE, elapsed" (a status line in the CLI).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import Param
from ..experiments.data import sample
from ..losses.attention_voronoi import voronoi_loss
from ..losses.regression_error import regression_error
from ..model.attention_declared import attention_code
from ..model.attention_params import HMoEParams, NumericError
from ..model.attention_truth import Truth, check_phi_range, load_truth
from ..shipped import shipped_model
from .attention_box import Box
from .memory import estimate_bytes, memory_budget
from .optimizers import GD_OBJECTIVES, OPTIMIZERS, optimise

#: an estimated fit time above this is announced before the fit (``notice``)
LONG_FIT_SECONDS = 60.0
CALIBRATION_POINTS = 4000
#: (fewest, most) iterations per optimiser, from docs/numeric.md's measurements (gd: its epochs)
TYPICAL_ITERATIONS = {"lm": (9, 150), "trf": (9, 150)}
#: one iteration's work in units of the calibrated evaluation
ITERATION_COST = {"lm": 1.5, "trf": 8.0, "gd": 3.0}

__all__ = [
    "Box",
    "FitResult",
    "fit",
    "initial_params",
    "OPTIMIZERS",
    "GD_OBJECTIVES",
    "estimate_bytes",
    "memory_budget",
    "regression_error",
]

PAPER_INIT_EXPONENT = -0.083
#: What computes the model in a fit (:func:`fit`'s ``code``).
CODES = ("declared", "hand-written")


@dataclass(frozen=True, slots=True)
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
    n_params: int = 0  # the fitted model's free parameters (θ's length)
    start_voronoi_loss: float = math.nan  # the Voronoi loss of the start: the scale the fitted loss is read against

    @property
    def underdetermined(self) -> bool:
        """Fewer data points than parameters: the fit can interpolate the data, its losses say nothing."""
        return self.n < self.n_params

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
            "start_voronoi_loss": self.start_voronoi_loss,
            "loss_kind": self.loss_kind,
            "iterations": self.iterations,
            "converged": self.converged,
            "seconds": self.seconds,
            "active_bounds": self.active_bounds,
            "box": self.box,
            "init": self.init,
            "phi": self.phi,
            "params": self.params.to_dict(),
            "n_params": self.n_params,
            "underdetermined": self.underdetermined,
        }


def initial_params(
    truth: HMoEParams, K: int, n: int, seed: int, box: Box, init: str = "paper", init_scale: float = 0.1
) -> np.ndarray:
    """The starting θ (module docstring), clipped into ``box``.

    Fitted channel k of head h starts at true channel k mod K* (weights shared among the copies),
    perturbed by U(−δ, δ) in every coordinate.

    Parameters
    ----------
    truth : HMoEParams
        The true parameters.
    K : int
        Channels per head of the fitted model.
    n : int
        Sample size (``init="paper"``: δ = n^(−0.083)).
    seed : int
        Seeds the perturbation.
    box : Box
        The box Θ the start is clipped into.
    init : {"paper", "fixed"}
        δ = n^(−0.083) (the paper's), or δ = ``init_scale``.
    init_scale : float
        δ for ``init="fixed"``.

    Returns
    -------
    numpy.ndarray, shape (P,)
        The flat parameter vector (:meth:`HMoEParams.to_vector` layout).
    """
    if init not in ("paper", "fixed"):
        raise NumericError(param="init", value=init, reason="choose 'paper' or 'fixed'")
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
    progress=None,
    notice=None,
    code: str = "declared",
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
        Defaults to the shipped truth (:func:`numeric.model.attention_truth.load_truth`); its φ is the gate.
    box_factor : float
        Size of the box Θ relative to the truth (see :class:`Box`).
    init : {"paper", "fixed"}
        The start: true channels perturbed by U(−δ, δ), δ = n^(−0.083) (the paper's) or
        δ = ``init_scale`` (:func:`initial_params`).
    init_scale : float
        δ for ``init="fixed"``.
    max_epochs : int
        ``gd`` only: the epoch cap (the paper's protocol: 1000).
    gd_objective : {"mean", "sum"}
        ``gd`` only: backtracking on the mean or on the sum of squares (module docstring).
    progress : callable, optional
        ``progress(text)`` with a status text after every iteration (module docstring).
    notice : callable, optional
        ``notice(text)`` once, before a fit estimated to take over ``LONG_FIT_SECONDS``.
    code : {"declared", "hand-written"}
        What computes the model: the shipped declaration's array code
        (:func:`numeric.model.attention_declared.attention_code`; the hand-written model when φ has
        named constants) or numeric/model/attention.py.

    Returns
    -------
    FitResult
        The fitted parameters, the training MSE at the start and the end and the truth's on the
        same data, the Voronoi loss, the regression error, iterations, time and the box;
        ``to_dict()`` is ``numeric fit --json``.

    Raises
    ------
    NumericError
        Bad input, naming the parameter.
    """
    started = time.perf_counter()
    truth = truth if truth is not None else load_truth()
    spec = shipped_model(model)
    if code not in CODES:
        raise NumericError(param="code", value=code, reason=f"choose one of {', '.join(CODES)}")
    if optimizer not in OPTIMIZERS:
        raise NumericError(param="optimizer", value=optimizer, reason=f"choose one of {', '.join(OPTIMIZERS)}")
    if gd_objective not in GD_OBJECTIVES:
        raise NumericError(param="gd_objective", value=gd_objective, reason=f"choose one of {', '.join(GD_OBJECTIVES)}")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or not truth.params.K <= K <= 16:
        raise NumericError(
            param="K",
            value=K,
            reason=f"must be an integer from K* = {truth.params.K} (the truth's channels per head) to 16",
        )
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise NumericError(param="n", value=n, reason="must be a positive integer")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise NumericError(param="seed", value=seed, reason="must be a non-negative integer")
    if isinstance(max_epochs, bool) or not isinstance(max_epochs, int) or max_epochs < 1:
        raise NumericError(param="max_epochs", value=max_epochs, reason="must be a positive integer")
    if not (isinstance(init_scale, (int, float)) and 0 < init_scale <= 1e3):
        raise NumericError(param="init_scale", value=init_scale, reason="must be a number in (0, 1000]")
    if not (isinstance(box_factor, (int, float)) and 0 < box_factor <= 1e3):
        raise NumericError(param="box_factor", value=box_factor, reason="must be a number in (0, 1000]")
    P = truth.params
    needed, budget = estimate_bytes(optimizer, int(n), P.H, P.N, int(K), P.dim), memory_budget()
    if needed > budget:
        raise NumericError(
            reason=(
                Param("n", n, shown=f"{n}"),
                ", ",
                Param("K", K, shown=f"{K}"),
                ", ",
                Param("optimizer", optimizer, shown=f"{optimizer}"),
                f": needs about {needed / 2**30:.1f} GB, above the memory budget of "
                f"{budget / 2**30:.1f} GB (NUMERIC_MEMORY_BUDGET_MB sets it)",
            )
        )
    shape = (P.H, P.N, int(K), P.dim)
    box = Box.around(P, P.H, P.N, int(K), box_factor)
    if spec.has_phi:
        bound = P.dim * float(np.max(np.abs(box.hi[-P.H * P.N * int(K) * P.dim :])))
        check_phi_range(truth.phi, tuple(sorted((k, str(v)) for k, v in truth.phi_params.items())), bound)
    m = attention_code(model, truth) if code == "declared" else truth.model(model)
    if progress is not None:
        progress(f"{model} K={K} n={n}: generating the data")
    X, Y = sample(truth, m, n, seed)
    theta0 = initial_params(P, int(K), int(n), seed, box, init, init_scale)
    if notice is not None:
        low, high, per = estimate_seconds(m, X, theta0, shape, optimizer, max_epochs)
        if high > LONG_FIT_SECONDS:
            notice(
                f"this fit may take {_duration(low)}–{_duration(high)} "
                f"(one {optimizer} iteration ≈ {per:.2g} s at n = {n}, "
                f"K = {K}; {optimizer} takes {_iterations_text(optimizer, max_epochs)})"
            )
    report = None
    if progress is not None:

        def report(iteration, mse):
            progress(
                f"{model} K={K} n={n} {optimizer}: iteration {iteration}, MSE {mse:.6g}, "
                f"{time.perf_counter() - started:.0f} s"
            )

    theta, iterations, converged = optimise(
        optimizer, m, X, Y, theta0, shape, box, max_epochs=max_epochs, gd_objective=gd_objective, report=report
    )
    fitted = HMoEParams.from_vector(theta, *shape)
    kind = spec.loss_kind
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
        start_voronoi_loss=voronoi_loss(HMoEParams.from_vector(theta0, *shape), P, kind),
        loss_kind=kind,
        iterations=iterations,
        converged=converged,
        seconds=round(time.perf_counter() - started, 3),
        active_bounds=int(box.active(theta).size),
        box=box.description,
        init=f"{init} (delta = {n**PAPER_INIT_EXPONENT if init == 'paper' else init_scale:.3g})",
        phi=truth.phi_text if spec.has_phi else "identity",
        params=fitted,
        gd_objective=gd_objective,
        n_params=int(fitted.size),
    )


def estimate_seconds(m, X, theta, shape, optimizer: str, max_epochs: int = 1000) -> tuple[float, float, float]:
    """(low, high, one iteration) seconds for a fit on ``X`` (module docstring, "Time")."""
    part = X[:CALIBRATION_POINTS]
    params = HMoEParams.from_vector(theta, *shape)
    zeros = np.zeros(len(part))
    started = time.perf_counter()
    if optimizer == "gd":
        m.value_and_vjp(params, part)
    else:
        m.normal_equations(params, part, zeros)
    per_point = (time.perf_counter() - started) / len(part)
    per = per_point * len(X) * ITERATION_COST[optimizer]
    fewest, most = TYPICAL_ITERATIONS.get(optimizer, (max_epochs, max_epochs))
    return per * fewest, per * most, per


def _iterations_text(optimizer: str, max_epochs: int) -> str:
    if optimizer == "gd":
        return f"{max_epochs} epochs"
    fewest, most = TYPICAL_ITERATIONS[optimizer]
    return f"{fewest}–{most} iterations in docs/numeric.md's measurements"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
