"""The measure-level Voronoi loss: cells of atoms (M_{h,i}, a_{h,i,k}), not of channels (docs/numeric.md).

**Why.** Setting I, model (9), is g(x) = Σ_h Σ_i σ_{h,i}(x) ∫ φ(aᵀx) dμ_{h,i}(a) with the
per-(head, gate) measures

    μ_{h,i} = Σ_k ω_{h,k} δ_{a_{h,i,k}}        (located at the gate's matrix M_{h,i}).

The channels enter only through these: two mixtures with the same μ_{h,i} (and M_{h,i}) have the
same g for every φ, while the channel-level L2 of :mod:`numeric.losses.attention_voronoi` can differ between them
(channel recombination, :mod:`numeric.confirm.recombination`). The loss below is a function of the μ_{h,i}.

**Atoms.** An atom of head h is (M_{h,i}, a_{h,i,k}) with mass ω_{h,k}, one per gate i and channel
k. Atoms of one head and gate at the same a (to the last bit) are one atom, their masses added;
atoms of mass 0 are no atoms (they are not in the measure).

**Head and gate matching.** As in the channel distance D of :mod:`numeric.losses.attention_voronoi`, gating
components are reordered by π and re-anchored on the last (M̃_i = M'_{π(i)} − M'_{π(N)}; softmax
depends on differences only). Each fitted head h' goes to the true head h and order π minimising

    D_head(h', h, π) = Σ_i ( ‖M̃_{h',i} − M*_{h,i}‖_F + Σ_{k'} ω'_{h',k'} min_k ‖a'_{h',π(i),k'} − a*_{h,i,k}‖₂ ),

D with the channel's expert distance replaced by the head's measure's (a mass-weighted nearest
distance), so that the matching is a function of the measures too (ties to the lower index).

**Cells.** The atom at gate π(i) of fitted head h' goes to the cell V(h, i, k) of the nearest true
atom, k = argmin_k ‖a' − a*_{h,i,k}‖₂ (ties to the lower k), with ΔM = ‖M̃_{h',i} − M*_{h,i}‖_F and
Δa = ‖a' − a*_{h,i,k}‖₂. The loss follows L2's recipe, cell by cell:

    L_μ = Σ_{h,i,k} (1/N)|Σ_{V(h,i,k)} m' − ω*_{h,k}| + Σ_{|V|=1} m' (ΔM + Δa) + Σ_{|V|>1} Σ_V m' (ΔM² + Δa²),

m' an atom's mass. The mass term is weighted 1/N: a channel has one atom at each of the N gates,
and its weight must not count N times. An empty cell contributes ω*_{h,k}/N.

**Properties** (tests/numeric/losses/test_measure_loss.py): 0 at the truth and at every exact alternative
of :mod:`numeric.confirm.recombination`; unchanged under relabelling channels and under any recombination
(the μ_{h,i} do not change); equal to L2 where no recombination exists — when every fitted channel
has positive weight, goes (in L2) to a true channel of the head and order its head is matched to,
and each of its atoms is nearest to that channel's atom at the same gate: then V(h, i, k) holds
the atoms of the channels in L2's V(h, k), the N mass terms (1/N)|·| add up to L2's, and the
parameter terms are L2's term by term. L2 counts a zero-weight channel as a cell member; L_μ does not.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from ..model.attention_params import HMoEParams, NumericError
from .attention_voronoi import MAX_N_FOR_PERMUTATIONS, voronoi_cells

__all__ = ["Atom", "MeasureCells", "measure_cells", "measure_loss", "recombined"]


@dataclass(frozen=True, slots=True)
class Atom:
    """One atom of a fitted head in a cell: its mass, distances to the cell's true atom, and the
    fitted channels (h', k') whose atoms coincide here."""

    mass: float
    dM: float
    da: float
    channels: tuple


@dataclass(frozen=True, slots=True)
class MeasureCells:
    """``heads[h'] = (h, π)``; ``cells[(h, i, k)]`` = tuple of :class:`Atom` (module docstring)."""

    heads: dict
    cells: dict


def _anchored(M: np.ndarray, order) -> np.ndarray:
    """M̃_i = M_{π(i)} − M_{π(N)} for one head's (N, d, d) matrices."""
    return np.array([M[j] - M[order[-1]] for j in order])


def _head_distance(fitted: HMoEParams, hf: int, truth: HMoEParams, h: int, order) -> float:
    M = _anchored(fitted.M[hf], order)
    total = 0.0
    for i, j in enumerate(order):
        total += float(np.linalg.norm(M[i] - truth.M[h, i]))
        nearest = np.linalg.norm(fitted.a[hf, j][:, None, :] - truth.a[h, i][None, :, :], axis=2).min(axis=1)  # (K',)
        total += float(fitted.omega[hf] @ nearest)
    return total


def measure_cells(fitted: HMoEParams, truth: HMoEParams) -> MeasureCells:
    """Match heads and gates, then put every atom of positive mass in its cell (module docstring)."""
    if fitted.N != truth.N or fitted.dim != truth.dim:
        raise NumericError(
            f"fitted (N={fitted.N}, d={fitted.dim}) and truth (N={truth.N}, d={truth.dim}) differ in N or d"
        )
    if truth.N > MAX_N_FOR_PERMUTATIONS:
        raise NumericError(f"N={truth.N}: the gate matching enumerates N! orders; at most {MAX_N_FOR_PERMUTATIONS}")
    heads = {}
    for hf in range(fitted.H):
        best: tuple[float, int, tuple[int, ...]] | None = None
        for h in range(truth.H):
            for order in itertools.permutations(range(truth.N)):
                value = _head_distance(fitted, hf, truth, h, order)
                if best is None or value < best[0]:
                    best = (value, h, order)
        assert best is not None  # a truth has a head and a gate order
        heads[hf] = best[1:]
    found: dict = {}  # (h, i, k) → {location key: [mass, dM, da, channels]}
    for hf, (h, order) in heads.items():
        M = _anchored(fitted.M[hf], order)
        for i, j in enumerate(order):
            dM = float(np.linalg.norm(M[i] - truth.M[h, i]))
            for kf in range(fitted.K):
                mass = float(fitted.omega[hf, kf])
                if mass == 0.0:
                    continue
                a = fitted.a[hf, j, kf]
                distances = np.linalg.norm(truth.a[h, i] - a, axis=1)
                k = int(np.argmin(distances))
                key = (M[i].tobytes(), a.tobytes())
                atom = found.setdefault((h, i, k), {}).setdefault(key, [0.0, dM, float(distances[k]), []])
                atom[0] += mass
                atom[3].append((hf, kf))
    cells = {}
    for h, i, k in itertools.product(range(truth.H), range(truth.N), range(truth.K)):
        atoms = found.get((h, i, k), {}).values()
        cells[(h, i, k)] = tuple(Atom(m, dM, da, tuple(ch)) for m, dM, da, ch in atoms)
    return MeasureCells(heads, cells)


def measure_loss(fitted: HMoEParams, truth: HMoEParams) -> float:
    """L_μ(fitted, truth), the measure-level Voronoi loss (module docstring).

    A function of the per-(head, gate) measures μ_{h,i} = Σ_k ω_{h,k} δ_{a_{h,i,k}}: zero at any
    recombination of the channels, equal to L2 where nothing is recombined.

    Parameters
    ----------
    fitted, truth : HMoEParams
        The fitted and the true parameters.

    Returns
    -------
    float
    """
    cells = measure_cells(fitted, truth).cells
    N = truth.N
    loss = 0.0
    for (h, i, k), atoms in cells.items():
        loss += abs(sum(atom.mass for atom in atoms) - truth.omega[h, k]) / N
        power = 1.0 if len(atoms) == 1 else 2.0
        for atom in atoms:
            loss += atom.mass * (atom.dM**power + atom.da**power)
    return float(loss)


def recombined(fitted: HMoEParams, truth: HMoEParams) -> bool:
    """Whether some channel of positive weight has an atom outside the cells of the true channel L2
    puts it with (:func:`numeric.losses.attention_voronoi.voronoi_cells`): atoms of one channel in two true channels'
    cells, or in another head's. False exactly when the condition under which L_μ equals L2 (module
    docstring) holds for every channel — up to coincident atoms, which L_μ merges."""
    home = {}
    for (h, k), members in voronoi_cells(fitted, truth).cells.items():
        for hf, kf, _, _ in members:
            home[(hf, kf)] = (h, k)
    for (h, i, k), atoms in measure_cells(fitted, truth).cells.items():
        for atom in atoms:
            if any(home[channel] != (h, k) for channel in atom.channels):
                return True
    return False
