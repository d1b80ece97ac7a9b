"""A canonical basis of a numerical null space: reduced echelon form in term order.

A null space N ⊂ R^T (the coefficient vectors c with A c = 0) has many bases; an SVD returns
one that depends on the BLAS, so relations printed from it differ between machines. The
reduced echelon basis does not: order the columns (terms) as the term set does, and call
column j *dependent* when it is a combination of the columns before it. There are exactly
k = dim N dependent columns p_1 < … < p_k, and exactly one basis v_1, …, v_k of N with

    v_i[p_i] = 1,   v_i[p_j] = 0 (j ≠ i),   v_i[j] = 0 for j > p_i,

i.e. v_i says "column p_i = −Σ_{j < p_i, j not a pivot} v_i[j]·column j". Numerically the
pivots are found by Gauss–Jordan elimination on Nᵀ from the last column backwards with partial
pivoting, a pivot where an entry exceeds ``PIVOT_TOL`` = 1e-6 of the unit null vectors (exact
dependences leave rounding-level entries ≲ 1e-10 where the echelon form has zeros); then
V = (Nᵀ[:, P])⁻¹ Nᵀ. Used for the type-2 reduction's kept columns (:mod:`reduce`), the raw
relations (:mod:`relations`) and the recovered exact relations of a certificate (:mod:`certify`).

Where a choice by conditioning is wanted instead (the rows of an interval proof's minor, and the
fallbacks when a null space is too ill-separated for an echelon form), :func:`pivoted_rows` picks
rows as a column-pivoted QR of the transpose does — at each step the row of largest norm after
removing its components along the rows already picked (modified Gram–Schmidt, the projection
applied twice) — in numpy alone: scipy.linalg's import was a tenth of every check's start-up.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PIVOT_TOL", "dependent_columns", "echelon_basis", "pivoted_rows"]

PIVOT_TOL = 1e-6


def dependent_columns(null_space: np.ndarray, nullity: int | None = None) -> list | None:
    """The pivots p_1 < … < p_k of the module docstring, from any basis of N (T × k; orthonormalised
    first, so the result does not depend on which basis).

    None when the elimination does not find exactly ``nullity`` (default k) pivots above
    ``PIVOT_TOL`` (an ill-separated null space).

    >>> dependent_columns(np.array([[1.0], [2.0], [0.0]]))  # c0 + 2 c1 = 0: c1 depends on c0
    [1]
    """
    basis = np.array(null_space, dtype=float)
    nullity = basis.shape[1] if nullity is None else nullity
    # an orthonormal basis of the same space: the threshold below then means the same for every basis
    # given (a skewed one, v1 ± 1e-4·w, moved a pivot)
    rows = np.linalg.qr(basis)[0].T.copy() if basis.size else basis.T.copy()
    free = list(range(rows.shape[0]))
    pivots = []
    for j in range(rows.shape[1] - 1, -1, -1):
        if not free:
            break
        r = max(free, key=lambda i: abs(rows[i, j]))
        if abs(rows[r, j]) <= PIVOT_TOL:
            continue
        rows[r] /= rows[r, j]
        for i in range(rows.shape[0]):
            if i != r:
                rows[i] -= rows[i, j] * rows[r]
        free.remove(r)
        pivots.append(j)
    return sorted(pivots) if len(pivots) == nullity else None


def echelon_basis(null_space: np.ndarray, pivots: list | None = None) -> tuple[list, np.ndarray] | None:
    """(pivots, V): V (k × T) the reduced echelon basis of the module docstring, in the coordinates
    of ``null_space`` (T × k); None when the pivots cannot be found.

    >>> pivots, v = echelon_basis(np.array([[2.0], [4.0], [0.0]]))
    >>> pivots, v.tolist()
    ([1], [[0.5, 1.0, 0.0]])
    """
    null_space = np.asarray(null_space, dtype=float)
    pivots = dependent_columns(null_space) if pivots is None else pivots
    if pivots is None or not pivots:
        return None if pivots is None else (pivots, np.zeros((0, null_space.shape[0])))
    rows = null_space.T
    return pivots, np.linalg.solve(rows[:, pivots], rows)


def pivoted_rows(matrix: np.ndarray, count: int) -> list:
    """The first ``count`` pivots of a column-pivoted QR of ``matrix``ᵀ (module docstring): row
    indices of ``matrix`` (n × m), in the order picked.

    >>> pivoted_rows(np.array([[1.0, 0.0], [0.0, 3.0], [1.0, 1.0]]), 2)
    [1, 0]
    """
    rows = np.array(matrix, dtype=float)
    if not 0 <= count <= rows.shape[0]:
        raise ValueError(f"count={count}: must be from 0 to the {rows.shape[0]} rows")
    picked: list = []
    free = np.ones(rows.shape[0], dtype=bool)
    for _ in range(count):
        norms = np.where(free, np.einsum("ij,ij->i", rows, rows), -1.0)
        k = int(np.argmax(norms))
        q = rows[k] / np.sqrt(norms[k]) if norms[k] > 0 else np.zeros(rows.shape[1])
        for _ in range(2):  # twice: one projection loses orthogonality on ill-conditioned rows
            rows -= np.outer(rows @ q, q)
        picked.append(k)
        free[k] = False
    return picked
