"""Relations that hold for every φ, and the reduced set judged instead (type-2, docs/method.md §8).

In the type-2 set, the terms of one channel k and one derivative order m share the factor
φ^(m)(f^k): a *group*. A linear relation among the φ-free factors of a group is a relation
among the terms for **every** φ (the linear expert's PDE Σ_l a_l ∂²u/∂M_jk∂a_l = ∂u/∂M_jk
appears this way, three times per channel at d = 2). Taken literally, the set is then dependent
whatever φ is, which says nothing about φ. So, per probe:

1. each group's φ-free factor matrix goes through the same rank decision
   (:func:`~identcheck.rank.rule.decide_rank`, with higher precision where borderline): its nullity
   is the number of φ-independent relations there;
2. a basis of the group is kept — the *earliest* columns in term order that are independent:
   column j is dropped when it is a combination of the columns before it: the pivots of the
   null space's reduced echelon form in term order (:func:`~identcheck.families.echelon.dependent_columns`).
   The choice is canonical: the same columns on every machine,
   where a column-pivoted QR broke near-ties of equal-norm columns by rounding (tanh type-2 kept
   ∂²u[1,2]/∂M_22∂a_2 on one machine and ∂u[1,2]/∂M_22 on another). Should the elimination not
   find exactly one pivot per null vector, the first columns of a column-pivoted QR of the
   scaled factor matrix are kept, as many as its rank;
3. φ is judged on the kept terms (all groups together); the literal verdict on the full set is
   reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import flint
import numpy as np

from ..families.echelon import dependent_columns, pivoted_rows
from .rule import decide_rank

__all__ = ["Reduction", "reduce_groups", "sub_gram"]


@dataclass(frozen=True)
class Reduction:
    """Kept columns and, per group, the φ-independent decision."""

    kept: np.ndarray = field(repr=False)
    nullities: dict
    undecided: tuple
    null_spaces: dict = field(repr=False)


def sub_gram(gram, columns):
    """A Gram provider restricted to ``columns`` (AᵀA of the selected columns is a submatrix)."""
    columns = [int(c) for c in columns]

    def restricted(digits):
        g = gram(digits).tolist()
        return flint.arb_mat([[g[i][j] for j in columns] for i in columns])

    return restricted


def reduce_groups(factor_matrix: np.ndarray, groups: dict, factor_gram, ladder) -> Reduction:
    """Apply steps 1–2 of the module docstring; ``groups`` maps a group key to its column indices,
    ``factor_gram(digits)`` gives FᵀF of all the factors."""
    kept = []
    nullities = {}
    null_spaces = {}
    undecided = []
    for key, columns in groups.items():
        columns = np.asarray(columns)
        sub = factor_matrix[:, columns]
        decision = decide_rank(sub, ladder=ladder, gram=sub_gram(factor_gram, columns))
        if decision.independent is None:
            undecided.append(key)
        nullity = decision.nullity if decision.independent is False else 0
        nullities[key] = nullity
        if nullity:
            null_spaces[key] = (columns, decision.null_space)
            norms = np.linalg.norm(sub, axis=0)
            dropped = dependent_columns(decision.null_space, nullity)
            if dropped is None:
                scaled = sub / np.where(norms > 0, norms, 1.0)
                kept.extend(columns[np.sort(pivoted_rows(scaled.T, len(columns) - nullity))])
            else:
                kept.extend(columns[[j for j in range(len(columns)) if j not in set(dropped)]])
        else:
            kept.extend(columns)
    return Reduction(np.sort(np.asarray(kept)), nullities, tuple(undecided), null_spaces)
