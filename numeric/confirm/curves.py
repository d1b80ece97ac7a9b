"""The ratio ρ(t) along a path, and its t → 0 limit.

For a truth G* and a path t ↦ G_t (G_0 = G*, :mod:`numeric.confirm.paths`)

    ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*),      μ = Uniform([−1, 1]²),

the norm a Monte Carlo mean over fixed points with its standard error by the delta method
(se(√m) = se(m)/(2√m)), L2 the Voronoi loss of
:mod:`numeric.losses.attention_voronoi` (a weight-0 channel no cell member).
The gated models' rates rest on ρ ≥ c > 0 near G*; a path with ρ(t) → 0 witnesses that this local
inequality fails.
If ‖Δg‖ ≤ EXACT_TOL·‖g*‖ at every t the function did not move at all (float64 rounding only):
``exact_invariance``, ρ ≡ 0. Otherwise the slope of log ρ on log t is fitted over the ts.

**The t → 0 limit.** ρ₀ = lim_{t→0} ρ(t) is computed from first-order quantities, not read
off the curve: a nearly-null direction (scaled singular value 1e-7) makes ρ fall like t over
the measured window t ≥ 1e-4 and level off at ρ₀ only below it. For a path with a tangent d
(:func:`first_order_limit`): ρ₀ = ‖J d‖_{L²(μ)} / ℓ(d), ℓ(d) = lim L2(G_t, G*)/t (every cell
has one member, so L2 is linear in t), and ρ₀ = 0 when d is a null direction of the model
(scale-free sensitivity ≤ NULL_TOL). A split records its own limit (:mod:`numeric.confirm.splits`).

**The plateau.** A positive ρ₀ is a claim about t → 0; the data must show it. With ``extend``,
when the ratio at the smallest t is not within PLATEAU_FACTOR = 2 of ρ₀, t steps on downwards by
half decades (t/√10) until it is, or until float64 cannot resolve the function distance any
more: t < T_MIN = 1e-12, or ‖Δg‖ < DISTANCE_FLOOR·‖g*‖ = 1e-12·‖g*‖ (rounding of g's values,
≈ 1e-16·‖g*‖ per point, is then ≥ 1e-4 of the distance). The slope is fitted on the standard
window alone (``window`` points), so the rule "→ 0" reads the same three decades for every path.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..losses.attention_voronoi import voronoi_loss
from ..model.attention_declared import AttentionCode
from .paths import NULL_TOL, Path

__all__ = ["RatioCurve", "ratio_curve", "first_order_limit", "EXACT_TOL", "T_MIN", "DISTANCE_FLOOR", "PLATEAU_FACTOR"]

#: ‖Δg‖ ≤ EXACT_TOL·‖g*‖ at every t: the function did not move (float64 rounding only).
EXACT_TOL = 1e-12
#: The smallest t a path is extended to when looking for its plateau.
T_MIN = 1e-12
#: Below ‖Δg‖ = DISTANCE_FLOOR·‖g*‖ float64 no longer resolves the distance: the extension stops.
DISTANCE_FLOOR = 1e-12
#: The plateau: the smallest-t ratio within this factor of the t → 0 limit.
PLATEAU_FACTOR = 2.0


@dataclass(frozen=True, slots=True)
class RatioCurve:
    """ρ(t) along a path, with the Monte Carlo standard error of the function distance."""

    t: tuple
    distance: tuple
    distance_se: tuple
    loss: tuple
    ratio: tuple
    slope: float | None
    exact_invariance: bool
    max_relative_change: float
    limit: float | None = None
    sensitivity: float | None = None
    window: int | None = None  # the first ``window`` ts are the standard window (the slope's); the rest extend it


def _within(ratio: float, limit: float) -> bool:
    return ratio > 0 and 1.0 / PLATEAU_FACTOR <= ratio / limit <= PLATEAU_FACTOR


def ratio_curve(model: AttentionCode, path: Path, ts, X: np.ndarray, extend: bool = False) -> RatioCurve:
    """ρ(t) for ``ts`` on the Monte Carlo points ``X``; slope of log ρ on log t over ``ts`` (None if
    exact); with ``extend``, further ts below ``ts`` until the plateau shows (module docstring)."""
    g_star = model.value(path.truth, X)
    scale = float(np.sqrt(np.mean(g_star**2)))
    n = X.shape[0]
    distances, ses, losses = [], [], []

    def measure(t):
        G = path.build(float(t))
        squared = (model.value(G, X) - g_star) ** 2
        distance = float(np.sqrt(squared.mean()))
        distances.append(distance)
        ses.append(float(squared.std(ddof=1) / np.sqrt(n) / (2 * distance)) if distance > 0 else 0.0)
        losses.append(voronoi_loss(G, path.truth, "L2", positive_only=True))  # a weight-0 copy is no cell member

    ts = [float(t) for t in ts]
    window = len(ts)
    with np.errstate(over="raise", invalid="raise"):
        for t in ts:
            measure(t)
    relative = float(max(distances) / scale) if scale > 0 else float(max(distances))
    exact = relative <= EXACT_TOL
    limit, sensitivity = path.limit, path.sensitivity
    if path.direction is not None:
        limit, sensitivity = first_order_limit(model, path, X)
    if extend and not exact and limit is not None and limit > 0:
        with np.errstate(over="raise", invalid="raise"):
            while not _within(distances[-1] / losses[-1] if losses[-1] > 0 else 0.0, limit):
                t = ts[-1] / np.sqrt(10.0)
                if t < T_MIN or distances[-1] < DISTANCE_FLOOR * scale:
                    break
                ts.append(float(t))
                measure(t)
    distance_values, loss_values = np.array(distances), np.array(losses)
    positive_losses = np.where(loss_values > 0, loss_values, np.inf)
    ratio = np.zeros_like(distance_values) if exact else distance_values / positive_losses
    slope = None
    if not exact and np.all(ratio[:window] > 0):
        slope = float(np.polyfit(np.log(ts[:window]), np.log(ratio[:window]), 1)[0])
    return RatioCurve(
        tuple(ts),
        tuple(distance_values.tolist()),
        tuple(ses),
        tuple(loss_values.tolist()),
        tuple(ratio.tolist()),
        slope,
        exact,
        relative,
        limit,
        sensitivity,
        window,
    )


def first_order_limit(model: AttentionCode, path: Path, X: np.ndarray):
    """(ρ₀, s) for a path with a tangent d at t = 0.

    ρ₀ = lim_{t→0} ρ(t) = ‖J d‖_{L²(μ)} / ℓ(d), ℓ(d) = lim L2(G_t, G*)/t (every cell has one
    member, so L2 is linear in t; ℓ is read at t = 1e-7); and the scale-free sensitivity
    s = ‖J_s d_s‖ / (s_max(J_s)·‖d_s‖) in column-scaled coordinates (J_s = J/‖columns‖,
    d_s = d·‖columns‖): s ≤ NULL_TOL means d is a null direction of the model, ρ₀ = 0.
    """
    _, J = model.value_and_jacobian(path.truth, X[:20_000])
    norms = np.linalg.norm(J, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    Js, ds = J / norms, path.direction * norms
    s_max = float(np.sqrt(np.linalg.eigvalsh(Js.T @ Js)[-1]))
    sensitivity = float(np.linalg.norm(Js @ ds) / (s_max * np.linalg.norm(ds)))
    step = 1e-7
    ell = voronoi_loss(path.build(step), path.truth, "L2", positive_only=True) / step
    limit = float(np.sqrt(np.mean((J @ path.direction) ** 2)) / ell) if ell > 0 else None
    if sensitivity <= NULL_TOL:
        limit = 0.0
    return limit, sensitivity
