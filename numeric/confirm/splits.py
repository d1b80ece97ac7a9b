"""Construction 4, the split: one channel becomes two, a ± √t·v, with first-order compensation.

For a relation among ū, ∂ū/∂θ and ∂²ū/∂a_j∂a_l (e.g. heat φ'' = cφ: ∂ū/∂M_jl ∝ ∂²ū/∂a_j∂a_l),
channel k of head h is split into two channels of weight ω/2 with a_{h,i,k} ± √t·v, so that
Σ_± ½ū(a ± √t v) = ū + (t/2)vᵀ∇²ū v + … carries the relation's second-order part; every other
head gets a weight-0 copy of its channel 1 (as in Theorem 1's sequence). The odd orders cancel
between the two halves. A generic split (the random one) shifts every gate, a_{h,i,k} ± √t·v_i
for all i, as Theorem 1's a* ± e₁/n does; a witness split shifts the gate of the relation's
component (v is zero elsewhere). The first-order moves t·w compensate the second-order change

    Q = lim_{t→0} (g_{split(√t)} − g*)/t,      w = argmin_w ‖Q + J w‖

(least squares on the first COMPENSATION_POINTS Monte Carlo points; J the model Jacobian at
the split, with its extra channel; Q by two-step Richardson extrapolation from t₀ = RICHARDSON_T:
D(t) = Q + a·t + b·t² + …, so (8D(t₀/4) − 6D(t₀/2) + D(t₀))/3 = Q + O(t₀³)). Then
G_t = split(√t) + t·w, **not clipped**: the weight-0 copies of the other heads are left out of the
compensation (their columns of J are zeroed, so the least-squares w does not move them — it used
to give them a negative weight that a clip at 0 then bent into a path neither bounded nor
vanishing), and they stay weight 0; every other weight is positive at t = 0 (ω/2 for the halves),
and ``t_positive`` — the largest t at which all stay ≥ 0 — is recorded in the note. The loss along
the path counts weight-0 channels as no cell members (:func:`numeric.losses.attention_voronoi.voronoi_loss`,
``positive_only``), so the copies do not turn the other heads' exact-fitted cells into |V| = 2.

If Q + Jw = 0 then ‖Δg‖ = O(t²) against L2 ≍ t (|V| = 2 cells are squared: ω t‖v‖²): ρ ≍ t.
If the residual is not 0 the relation does not lift to the softmax-normalised model and
ρ → ρ₀ = ‖Q + Jw‖_{L²(μ)} / ℓ > 0, ℓ = lim L2/t (read at t = 1e-8): bounded. The relative
residual ‖Q + Jw‖/‖Q‖ is recorded; ρ₀ = 0 when it is ≤ RESIDUAL_TOL (the Richardson estimate is
good to about t₀³ = 1e-9 relative; an exact compensation, e.g. the polynomial φ = z + z²,
measures ≈ 1e-12). Q below Q_FLOOR·‖g*‖ is float rounding of the difference quotient: Q = 0.

Theorem 1's sequence (:mod:`numeric.confirm.ratio`) is this split for the linear expert with v = e₁ and
no compensation: u is linear in a, so Q = 0 exactly and only the weight error moves the function.
"""

from __future__ import annotations

import numpy as np

from ..losses.attention_voronoi import voronoi_loss
from ..model.attention_params import HMoEParams
from .paths import COMPENSATION_POINTS, Path, index_of, shape_of

__all__ = ["compensated_split", "RESIDUAL_TOL", "Q_FLOOR", "RICHARDSON_T"]

#: A split whose second-order change is compensated up to ‖Q + Jw‖ ≤ RESIDUAL_TOL·‖Q‖ has ρ₀ = 0.
RESIDUAL_TOL = 1e-7
#: ‖Q‖ ≤ Q_FLOOR·‖g*‖ is float rounding of the difference quotient (eps/t₀ ≈ 1e-13): Q = 0.
Q_FLOOR = 1e-9
#: t₀ of the Richardson extrapolation of Q.
RICHARDSON_T = 1e-3


def _split_base(G: HMoEParams, h0: int, k0: int):
    """K+1 channels: channel K of head h0 is a copy of (h0, k0) sharing its weight; other heads get a weight-0 copy."""
    H, N, K, d = G.a.shape
    omega = np.zeros((H, K + 1))
    a = np.zeros((H, N, K + 1, d))
    omega[:, :K], a[:, :, :K] = G.omega, G.a
    a[:, :, K] = G.a[:, :, 0]
    a[h0, :, K] = G.a[h0, :, k0]
    omega[h0, k0] = omega[h0, K] = G.omega[h0, k0] / 2
    return omega, a


def _copy_columns(base: HMoEParams, h0: int) -> list:
    """Positions in θ of the weight and expert vectors of the other heads' weight-0 copies (channel K)."""
    omega_i, _, a_i = index_of(base)
    K = base.K - 1
    return [omega_i(h, K) for h in range(base.H) if h != h0] + [
        a_i(h, i, K, j) for h in range(base.H) if h != h0 for i in range(base.N) for j in range(base.dim)
    ]


def _split_builder(G, h0, k0, v):
    omega, a = _split_base(G, h0, k0)
    K = G.K

    def split(root_t):
        b = a.copy()
        b[h0, :, k0] += root_t * v
        b[h0, :, K] -= root_t * v
        return HMoEParams(omega, G.M, b)

    return split


def compensated_split(model, G, h, k, v, X, kind, name, compensate=True) -> Path:
    """Construction 4 (or, with ``compensate=False``, a bare split); records its t → 0 limit.

    ρ₀ = lim ρ(t) = ‖Q + J w‖_{L²(μ)} / ℓ, ℓ = lim L2/t (read at t = 1e-8), on the first
    20 000 Monte Carlo points (w is fitted on the first 4 000, so the residual is out of sample);
    the relative residual ‖Q + Jw‖/‖Q‖ ≤ RESIDUAL_TOL = 1e-7 counts as 0 (the two-step Richardson
    estimate of Q is good to about t₀³ = 1e-9 relative; an exact compensation, e.g. the polynomial
    φ = z + z², measures ≈ 1e-12).
    """
    split = _split_builder(G, h, k, v)
    Xe = X[:20_000]
    g_star = model.value(G, Xe)
    base = split(0.0)
    theta, shape = base.to_vector(), shape_of(base)

    def quotient(t):
        return (model.value(split(np.sqrt(t)), Xe) - g_star) / t

    # D(t) = Q + a·t + b·t² + …: two Richardson steps leave an error O(t₀³) ≈ 1e-9 (rounding ≈ eps/t₀ ≈ 1e-12)
    Q = (8 * quotient(RICHARDSON_T / 4) - 6 * quotient(RICHARDSON_T / 2) + quotient(RICHARDSON_T)) / 3
    _, J = model.value_and_jacobian(base, Xe)
    copies = _copy_columns(base, h)
    J[:, copies] = 0.0  # the other heads' weight-0 copies do not move
    w = np.zeros_like(theta)
    if compensate:
        w, *_ = np.linalg.lstsq(J[:COMPENSATION_POINTS], -Q[:COMPENSATION_POINTS], rcond=None)
        w[copies] = 0.0  # exactly (the least-squares solution leaves rounding there)
    remainder = Q + J @ w
    size = float(np.sqrt(np.mean(Q**2)))
    # Q below Q_FLOOR·‖g*‖ is float rounding of the difference quotient (eps/t₀ ≈ 1e-13): Q = 0
    residual = float(np.sqrt(np.mean(remainder**2)) / size) if size > Q_FLOOR * np.sqrt(np.mean(g_star**2)) else 0.0

    def build(t):
        return HMoEParams.from_vector(split(np.sqrt(t)).to_vector() + t * w, *shape)

    weights, slopes = base.omega.ravel(), w[: shape[0] * shape[2]]
    falling = (slopes < 0) & (weights > 0)
    t_positive = float(np.min(weights[falling] / -slopes[falling])) if np.any(falling) else float("inf")
    step = 1e-8
    ell = voronoi_loss(build(step), G, "L2", positive_only=True) / step
    limit = 0.0 if residual <= RESIDUAL_TOL else float(np.sqrt(np.mean(remainder**2)) / ell)
    what = "second-order change Q compensated by t·w" if compensate else "uncompensated split"
    note = f"{what}; relative residual ‖Q + Jw‖/‖Q‖ = {residual:.2e}; weights ≥ 0 for t ≤ {t_positive:.3g}"
    return Path(kind, name, "split", G, build, note, None, limit, residual)
