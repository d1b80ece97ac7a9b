"""Read a numerical null space as relations between labelled terms.

Given the null space N found by :func:`~identcheck.rank.decide_rank` (nullity k) and the
templates of the known families (:mod:`families`), all in column-scaled coordinates:

1. a template t is **recognised** when it lies in the null space:
   ‖(I − Q Qᵀ) t‖ ≤ ``IN_NULL_SPACE`` · ‖t‖ (Q an orthonormal basis of N; 1e-6);
2. recognised templates are kept greedily while they add rank (a basis of what they explain):
   numerical rank of the kept unit vectors with singular values above ``ADDS_RANK`` (1e-8);
3. if they explain fewer than k directions, the rest of N (its part orthogonal to the kept
   templates) is reported raw — "unrecognised" — scaled so its largest coefficient is 1.

Kept templates are proved exactly with sympy (:mod:`certify`).
"""

from __future__ import annotations

import numpy as np

from .budget import Outcome
from .evidence import Tolerance
from .report import Relation

__all__ = ["explain_null_space", "IN_NULL_SPACE", "NULL_SPACE_TOLERANCE"]

IN_NULL_SPACE = 1e-6
ADDS_RANK = 1e-8  # a template adds rank when the kept unit vectors' singular values stay above this
RAW_CUTOFF = 1e-9  # raw coefficients below this (relative to the largest) are dropped
NULL_SPACE_TOLERANCE = Tolerance(
    "in_null_space", IN_NULL_SPACE, "a template is recognised when ||(I - Q Q^T) t|| <= this * ||t||"
)


def explain_null_space(decision, matrix, templates, labels, keys, prove=None, hypotheses_timed_out=()) -> tuple:
    """Relations explaining ``decision.null_space`` (a tuple of :class:`Relation`).

    ``labels`` and ``keys`` name each column, for people and for code (a structural key,
    :class:`~identcheck.conditions.base.ProbeMatrix`); each relation carries both.
    ``templates`` are candidate exact relations (:class:`~identcheck.families.Template`);
    ``prove(coefficients, thorough, family)`` returns whether sympy proved one (None: no proofs),
    truthy when proved; an :class:`~identcheck.budget.Outcome` also says when the proof timed out,
    and the relation is then kept with ``timed_out=True`` (never dropped). After one timeout the
    probe's later templates are not tried (each would likely spend a whole budget too): they are
    kept, ``timed_out=True``, on their numeric evidence.
    The first kept template is proved ``thorough``-ly (sympy's slow ``simplify`` as last resort).
    ``hypotheses_timed_out`` names φ's family hypotheses whose check ran out of its budget
    (:func:`~identcheck.families.phi_properties`): an unrecognised relation might have been a
    family's, so it is reported ``timed_out`` with those names as its hypothesis.
    """
    norms = np.linalg.norm(matrix, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    null = decision.null_space * norms[:, None]
    q, _ = np.linalg.qr(null)
    kept_vectors = []
    relations = []
    out_of_time = False
    for template in templates:
        vector = np.zeros(matrix.shape[1])
        for column, coeff in template.coefficients:
            vector[column] = float(coeff)
        scaled = vector * norms
        size = np.linalg.norm(scaled)
        if size == 0 or np.linalg.norm(scaled - q @ (q.T @ scaled)) > IN_NULL_SPACE * size:
            continue
        trial = np.column_stack(kept_vectors + [scaled / size])
        if np.linalg.matrix_rank(trial, tol=ADDS_RANK) <= len(kept_vectors):
            continue
        kept_vectors.append(scaled / size)
        if prove is None:
            outcome = False
        elif out_of_time:  # one proof on this probe ran out: the probe's budget is spent
            outcome = Outcome(False, True)
        else:
            outcome = prove(template.coefficients, not relations, template.family)
            out_of_time = bool(getattr(outcome, "timed_out", False))
        relations.append(
            Relation(
                terms=tuple((labels[c], float(v)) for c, v in template.coefficients),
                exact=tuple((labels[c], str(v)) for c, v in template.coefficients),
                keys=tuple(keys[c] for c, _ in template.coefficients),
                family=template.family,
                hypothesis=template.hypothesis,
                proved=bool(outcome),
                timed_out=bool(getattr(outcome, "timed_out", False)),
            )
        )
        if len(kept_vectors) == decision.nullity:
            break
    missing = decision.nullity - len(kept_vectors)
    if missing > 0:
        rest = q
        if kept_vectors:
            basis, _ = np.linalg.qr(np.column_stack(kept_vectors))
            rest = q - basis @ (basis.T @ q)
        u, _, _ = np.linalg.svd(rest, full_matrices=False)
        for direction in u[:, :missing].T:
            coeffs = direction / norms
            coeffs /= coeffs[np.argmax(np.abs(coeffs))]
            keep = np.flatnonzero(np.abs(coeffs) > RAW_CUTOFF)
            relations.append(
                Relation(
                    terms=tuple((labels[c], float(coeffs[c])) for c in keep),
                    exact=None,
                    keys=tuple(keys[c] for c in keep),
                    family=None,
                    hypothesis=(
                        "not recognised; the check of " + ", ".join(hypotheses_timed_out) + " ran out of time"
                        if hypotheses_timed_out
                        else None
                    ),
                    proved=False,
                    timed_out=bool(hypotheses_timed_out),
                )
            )
    return tuple(relations)
