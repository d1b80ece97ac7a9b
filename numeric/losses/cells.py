r"""Voronoi cells of a declared part: fitted atoms by their nearest target atom, up to the symmetries.

For a part with fitted atoms θ_1 … θ_k and target atoms θ*_1 … θ*_{k*}, on the columns C of the
declared ``cells`` parameters,

    V_j = { i : j = argmin_l ‖θ_{i,C} − θ*_{l,C}‖ }         (Euclidean; ties to the lower j).

**Softmax shift** (the ``softmax-shift`` symmetry, for a part whose gate is shift-invariant in the
parameters S: β1, β0; β; M). A fit is the same model after adding one c to every atom's S, so it
is re-anchored before its cells are formed:

1. cells V⁰ on the columns C \ S (invariant to the shift; all of C if C ⊆ S);
2. the reference atom r of the target (the declaration's ``reference``) and its cell V⁰_r give the
   shift: for the intercept (β0, or β of a Laplace gate) c_0 = log Σ_{i∈V⁰_r} e^{β0_i} − β0*_r
   (the cell's gate mass matched to the reference atom's), for the other parameters of S the
   e^{β0}-weighted mean over V⁰_r minus the reference atom's value (equal weights without an
   intercept); an empty V⁰_r leaves the fit as it is;
3. every fitted atom's S moves by −c, and the cells are formed on all of C.

A fit shifted by any c gives the same re-anchored atoms, so the loss is invariant to the shift;
permutations of the fitted atoms only relabel the cells (the ``permutations`` symmetry holds by
construction).
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from identcheck.declaration import GATES

__all__ = ["assign", "reanchor", "shift_invariant_names"]

_INTERCEPTS = ("beta0", "beta")


def shift_invariant_names(kind: str, of: str | None) -> tuple[str, ...]:
    """The parameters a common shift leaves a gate's weights unchanged in (top-K of a normalised
    sigmoid: none, σ is not shift-invariant)."""
    if kind == "top-k" and of != "softmax":
        return ()
    return GATES[kind].shift_invariant


def columns_of(names: tuple, wanted) -> list[int]:
    """The columns whose declared parameter is in ``wanted``, in column order."""
    return [c for c, name in enumerate(names) if name in wanted]


def assign(fitted: np.ndarray, target: np.ndarray, columns: list[int]) -> np.ndarray:
    """The target atom nearest to each fitted atom on ``columns``: shape (k,)."""
    diff = fitted[:, None, columns] - target[None, :, columns]
    return np.argmin((diff**2).sum(axis=2), axis=1)


def reanchor(fitted: np.ndarray, target: np.ndarray, names: tuple, cells: tuple, shifted: tuple, reference: int):
    """The fitted atoms with their shift-invariant parameters ``shifted`` re-anchored (module
    docstring, steps 1–3) and the shift c, one value per shifted column."""
    cell_columns = columns_of(names, cells)
    moved = columns_of(names, shifted)
    if not moved:
        return fitted, np.zeros(0)
    fixed = [c for c in cell_columns if c not in moved] or cell_columns
    owner = assign(fitted, target, fixed)
    members = np.flatnonzero(owner == reference)
    if members.size == 0:
        return fitted, np.zeros(len(moved))
    intercept = next((c for c in moved if names[c] in _INTERCEPTS), None)
    if intercept is not None:
        weights = np.exp(fitted[members, intercept] - fitted[members, intercept].max())
    else:
        weights = np.ones(members.size)
    weights /= weights.sum()
    shift = []
    for c in moved:
        if c == intercept:
            shift.append(float(logsumexp(fitted[members, c])) - target[reference, c])
        else:
            shift.append(float(weights @ fitted[members, c]) - target[reference, c])
    out = fitted.copy()
    out[:, moved] -= np.array(shift)
    return out, np.array(shift)
