"""Voronoi losses between a fitted mixture G and the truth G* (docs/method.md §10).

Atoms are channels (h, k) with parameters (ω_{h,k}, {(M_{h,i}, a_{h,i,k})}_i). Softmax gating
depends only on differences of the M_{h,i}, so reordering the gating components of a fitted head
and re-anchoring them on the new last component (M̃_i = M'_{π(i)} − M'_{π(N)}) gives the same
function. The distance between a fitted channel (h', k') and a true channel (h, k) is

    D = min_π Σ_i ( ‖M̃_{h',i} − M*_{h,i}‖_F + ‖a'_{h',π(i),k'} − a*_{h,i,k}‖_2 ),

the minimum over the N! orders π (N ≤ 6). **Cells:** V(h, k) holds the fitted channels whose
nearest true channel, in D, is (h, k) (ties to the lower index). Within a pair, ΔM_i and Δa_i are
taken under the minimising π. With ‖·‖ as in D:

    L1,r = Σ_{h,k} |Σ_{V(h,k)} ω' − ω*| + Σ_{h,k} Σ_{V(h,k)} ω' Σ_i (‖ΔM_i‖^r + ‖Δa_i‖^r)          (MHA)
    L2   = Σ_{h,k} |Σ_{V(h,k)} ω' − ω*| + Σ_{|V|=1} ω' Σ_i (‖ΔM_i‖ + ‖Δa_i‖)
                                        + Σ_{|V|>1} ω' Σ_i (‖ΔM_i‖² + ‖Δa_i‖²)                    (gated)

An empty cell contributes ω* (nothing fitted there). With ``positive_only=True`` a channel of
weight 0 is not a cell member (it is no atom of the mixing measure Σ ω δ): it neither makes a cell
|V| > 1 nor fills an empty one. The parameter paths of ``numeric confirm`` use this, because their
splits give the other heads a weight-0 copy (Theorem 1's construction) that must not turn an
exact-fitted cell into a squared one; the fits and the store keep the default (every channel
counts), so that a stored loss is recomputed unchanged.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..model.attention_params import HMoEParams, NumericError

__all__ = ["VoronoiCells", "voronoi_cells", "voronoi_loss"]

MAX_N_FOR_PERMUTATIONS = 6


@dataclass(frozen=True, slots=True)
class VoronoiCells:
    """cells[(h, k)] = list of (h', k', dM (N,), da (N,)) for the fitted channels in V(h, k)."""

    cells: dict
    distances: np.ndarray  # (H', K', H*, K*)


def _pair(fitted: HMoEParams, hf: int, kf: int, truth: HMoEParams, h: int, k: int):
    N = truth.N
    best = None
    for order in itertools.permutations(range(N)):
        anchor = fitted.M[hf, order[-1]]
        dM = np.array([np.linalg.norm(fitted.M[hf, order[i]] - anchor - truth.M[h, i]) for i in range(N)])
        da = np.array([np.linalg.norm(fitted.a[hf, order[i], kf] - truth.a[h, i, k]) for i in range(N)])
        total = dM.sum() + da.sum()
        if best is None or total < best[0]:
            best = (total, dM, da)
    return best


def voronoi_cells(fitted: HMoEParams, truth: HMoEParams, assignment: dict | None = None) -> VoronoiCells:
    """Assign every fitted channel to its nearest true channel (module docstring), or as
    ``assignment`` says.

    Parameters
    ----------
    fitted, truth : HMoEParams
        The fitted and the true parameters.
    assignment : dict, optional
        (h', k') → (h, k), e.g. by the distance between expert functions
        (:func:`numeric.losses.attention_cells.function_assignment`); default: by parameter distance.

    Returns
    -------
    VoronoiCells"""
    if fitted.N != truth.N or fitted.dim != truth.dim:
        raise NumericError(
            f"fitted (N={fitted.N}, d={fitted.dim}) and truth (N={truth.N}, d={truth.dim}) differ in N or d"
        )
    if truth.N > MAX_N_FOR_PERMUTATIONS:
        raise NumericError(f"N={truth.N}: Voronoi matching enumerates N! orders; at most {MAX_N_FOR_PERMUTATIONS}")
    distances = np.zeros((fitted.H, fitted.K, truth.H, truth.K))
    pairs = {}
    for hf, kf, h, k in itertools.product(range(fitted.H), range(fitted.K), range(truth.H), range(truth.K)):
        total, dM, da = _pair(fitted, hf, kf, truth, h, k)
        distances[hf, kf, h, k] = total
        pairs[(hf, kf, h, k)] = (dM, da)
    cells: dict[tuple[int, int], list[tuple]] = {(h, k): [] for h in range(truth.H) for k in range(truth.K)}
    for hf, kf in itertools.product(range(fitted.H), range(fitted.K)):
        if assignment is not None:
            h, k = assignment[(hf, kf)]
        else:
            h, k = divmod(int(np.argmin(distances[hf, kf])), truth.K)
        cells[(h, k)].append((hf, kf, *pairs[(hf, kf, h, k)]))
    return VoronoiCells(cells, distances)


def voronoi_loss(
    fitted: HMoEParams,
    truth: HMoEParams,
    kind: str = "L2",
    r: float = 1.0,
    assignment: dict | None = None,
    positive_only: bool = False,
) -> float:
    """The Voronoi loss L1,r (``kind="L1"``, for MHA) or L2 (``kind="L2"``, for the gated models).

    Parameters
    ----------
    fitted, truth : HMoEParams
        The fitted and the true parameters.
    kind : {"L1", "L2"}
        Which loss (module docstring).
    r : float
        The exponent of L1,r.
    assignment : dict, optional
        As for :func:`voronoi_cells`.
    positive_only : bool
        Weight-0 channels are no cell members.

    Returns
    -------
    float
        Zero at the truth, invariant to relabelling the fitted channels."""
    if kind not in ("L1", "L2"):
        raise NumericError(param="kind", value=kind, reason="choose 'L1' or 'L2'")
    if kind == "L1" and not (isinstance(r, (int, float)) and r >= 1):
        raise NumericError(param="r", value=r, reason="must be a number >= 1")
    cells = voronoi_cells(fitted, truth, assignment).cells
    loss = 0.0
    for (h, k), members in cells.items():
        if positive_only:
            members = [m for m in members if fitted.omega[m[0], m[1]] > 0]
        loss += abs(sum(fitted.omega[hf, kf] for hf, kf, _, _ in members) - truth.omega[h, k])
        power = r if kind == "L1" else (1.0 if len(members) == 1 else 2.0)
        for hf, kf, dM, da in members:
            loss += fitted.omega[hf, kf] * float(np.sum(dM**power) + np.sum(da**power))
    return float(loss)
