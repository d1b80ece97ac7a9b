"""Per-cell parameter errors (the paper's Table 1) and MHA's identified quantities.

**Cells** are the Voronoi cells of :mod:`numeric.losses.attention_voronoi` (nearest true channel in the parameter
distance D). Theorems 2–3 bound L2, which weighs exact-fitted cells (|V| = 1) by first powers of
the parameter errors and over-fitted cells (|V| > 1) by squares, so that, with L2 ≲ (log n/n)^{1/2}:

- exact-fitted: |ω' − ω*| and Σ_i (‖ΔM_i‖ + ‖Δa_i‖) ≲ (log n / n)^{1/2};
- over-fitted: |Σ_V ω' − ω*| ≲ (log n / n)^{1/2}, and the weighted root-mean-square distance
  ( Σ_V ω' Σ_i (‖ΔM_i‖² + ‖Δa_i‖²) / Σ_V ω' )^{1/2} ≲ (log n / n)^{1/4}.

:func:`cell_errors` returns each as the maximum over the cells of its kind (NaN when a fit has no
cell of that kind).

**MHA.** Model (2) depends on the experts only through b_{h,i} = Σ_k ω_{h,k} a_{h,i,k}, and since
the softmax weights sum to 1,

    f(x) = Σ_h Σ_{i<N} σ_{h,i}(x) c_{h,i}ᵀx + Bᵀx,   c_{h,i} = b_{h,i} − b_{h,N},  B = Σ_h b_{h,N}.

The identified quantities are the gating matrices M_{h,i} (i < N), the c_{h,i} and B (the split of
b over channels, heads' last components and the scales of ω and a are not). :func:`mha_identified_error`
is min over head permutations and per-head gating orders (re-anchored, as in the Voronoi
distance) of Σ_h Σ_{i<N} (‖ΔM_{h,i}‖_F + ‖Δc_{h,i}‖) + ‖ΔB‖ — a loss that can vanish, beside the
paper's L1,r, which need not.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..model.attention_params import HMoEParams, NumericError
from .attention_voronoi import voronoi_cells

__all__ = [
    "CellErrors",
    "assignments_differ",
    "cell_errors",
    "function_assignment",
    "mha_identified_error",
    "QUANTITIES",
]

#: Quantities a rate can be fitted to, with the exponent of n the theory gives (None: no power law).
QUANTITIES = {
    "voronoi": "the Voronoi loss (L1,r for MHA, L2 gated)",
    "regression": "||f_fit - f*||_L2(mu), Proposition 1",
    "exact_weight": "exact-fitted cells: |omega' - omega*|",
    "exact_param": "exact-fitted cells: sum_i |dM_i| + |da_i|",
    "over_weight": "over-fitted cells: |sum omega' - omega*|",
    "over_param": "over-fitted cells: weighted rms distance",
    "mha_identified": "MHA: identified M, c = b_i - b_N, B (b = sum_k omega a)",
    "voronoi_function_cells": "the Voronoi loss with cells by expert-function distance (the paper's cells)",
    "voronoi_measure": "the measure-level Voronoi loss L_mu",
}

#: Monte Carlo points for the distance between expert functions (fixed, seeded).
FUNCTION_POINTS = 20_000


@dataclass(frozen=True, slots=True)
class CellErrors:
    """Maximum errors over exact-fitted and over-fitted cells of one fit (module docstring)."""

    exact_weight: float
    exact_param: float
    over_weight: float
    over_param: float
    n_exact: int
    n_over: int
    n_empty: int


def cell_errors(fitted: HMoEParams, truth: HMoEParams) -> CellErrors:
    """The per-cell errors of ``fitted`` against ``truth`` (module docstring)."""
    cells = voronoi_cells(fitted, truth).cells
    exact_w, exact_p, over_w, over_p = [], [], [], []
    empty = 0
    for (h, k), members in cells.items():
        if not members:
            empty += 1
            continue
        weights = np.array([fitted.omega[hf, kf] for hf, kf, _, _ in members])
        if len(members) == 1:
            _, _, dM, da = members[0]
            exact_w.append(abs(weights[0] - truth.omega[h, k]))
            exact_p.append(float(dM.sum() + da.sum()))
        else:
            over_w.append(abs(weights.sum() - truth.omega[h, k]))
            squares = np.array([float(np.sum(dM**2) + np.sum(da**2)) for _, _, dM, da in members])
            total = weights.sum()
            over_p.append(math.sqrt(float(weights @ squares) / total) if total > 0 else math.nan)

    def worst(values):
        return float(max(values)) if values else math.nan

    return CellErrors(worst(exact_w), worst(exact_p), worst(over_w), worst(over_p), len(exact_p), len(over_p), empty)


def _channel_functions(model, params: HMoEParams, X: np.ndarray) -> np.ndarray:
    """The expert function of every channel, f̄^{h,k}(x) (H, K, n): Σ_i σ_{h,i} e(a_{h,i,k}ᵀx) with
    e = identity (mha) or φ (gated1), and φ(Σ_i σ_{h,i} a_{h,i,k}ᵀx) for gated2."""
    out = np.empty((params.H, params.K, X.shape[0]))
    for h in range(params.H):
        for k in range(params.K):
            one = HMoEParams(np.eye(1), params.M[h : h + 1], params.a[h : h + 1, :, k : k + 1])
            out[h, k] = model.value(one, X)
    return out


def function_assignment(model, fitted: HMoEParams, truth: HMoEParams, points: int = FUNCTION_POINTS) -> dict:
    """(h', k') → (h, k): the true channel whose expert function f̄^{h,k} is nearest to the fitted
    channel's in L²(μ) (the paper's cells, eq. before Theorem 2), by Monte Carlo on fixed points."""
    X = np.random.default_rng(0xCE11).uniform(-1.0, 1.0, size=(points, truth.dim))
    f_fit = _channel_functions(model, fitted, X)
    f_true = _channel_functions(model, truth, X)
    distances = np.sqrt(((f_fit[:, :, None, None] - f_true[None, None]) ** 2).mean(axis=-1))  # (H', K', H, K)
    out = {}
    for hf in range(fitted.H):
        for kf in range(fitted.K):
            out[(hf, kf)] = divmod(int(np.argmin(distances[hf, kf])), truth.K)
    return out


def assignments_differ(model, fitted: HMoEParams, truth: HMoEParams) -> bool:
    """Whether the cells by parameter distance (:mod:`numeric.losses.attention_voronoi`) and by expert-function
    distance (:func:`function_assignment`) put some fitted channel in different cells."""
    distances = voronoi_cells(fitted, truth).distances
    by_parameters = {
        (hf, kf): divmod(int(np.argmin(distances[hf, kf])), truth.K) for hf in range(fitted.H) for kf in range(fitted.K)
    }
    return by_parameters != function_assignment(model, fitted, truth)


def _identified(params: HMoEParams, head_order, gate_orders):
    """(M̃ (H, N−1, d, d), c (H, N−1, d), B (d,)) with heads and gating components reordered."""
    b = np.einsum("hk,hikd->hid", params.omega, params.a)
    Ms, cs, last = [], [], []
    for h, order in zip(head_order, gate_orders):
        M = params.M[h][list(order)]
        bb = b[h][list(order)]
        Ms.append(M[:-1] - M[-1])
        cs.append(bb[:-1] - bb[-1])
        last.append(bb[-1])
    return np.array(Ms), np.array(cs), np.sum(last, axis=0)


def mha_identified_error(fitted: HMoEParams, truth: HMoEParams) -> float:
    """min over head and gating orders of Σ ‖ΔM‖_F + ‖Δc‖ + ‖ΔB‖ (module docstring)."""
    if fitted.H != truth.H or fitted.N != truth.N or fitted.dim != truth.dim:
        raise NumericError(f"fitted (H={fitted.H}, N={fitted.N}) and truth (H={truth.H}, N={truth.N}) differ in H or N")
    if math.factorial(truth.H) * math.factorial(truth.N) ** truth.H > 5040:
        raise NumericError(f"H={truth.H}, N={truth.N}: too many orders to enumerate for the identified-quantity loss")
    M_true, c_true, B_true = _identified(truth, range(truth.H), [range(truth.N)] * truth.H)
    best = math.inf
    for heads in itertools.permutations(range(fitted.H)):
        for gates in itertools.product(itertools.permutations(range(fitted.N)), repeat=fitted.H):
            M, c, B = _identified(fitted, heads, gates)
            loss = (
                float(np.linalg.norm(M - M_true, axis=(2, 3)).sum())
                + float(np.linalg.norm(c - c_true, axis=2).sum())
                + float(np.linalg.norm(B - B_true))
            )
            best = min(best, loss)
    return best
