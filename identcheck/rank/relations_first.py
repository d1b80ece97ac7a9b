"""Step 2b of the rank rule (:mod:`~identcheck.rank.rule`): a dependence settled by relations proved first.

When float64's smallest singular value of the unit-column matrix B is at its rounding floor
(s_T < ``PROOF_FLOOR``·s_1 = 16·eps·s_1: the catalog's dependences land below it; independences do
too — tanh(z)'s probe 'shared M, a2 = −1/2·a1' at 1.8e-17 — and for them the attempt only costs the
reading of the templates before the ladder), or a column is exactly zero, and the caller can name and
prove relations (``prove_null``), the k directions float64 finds there — the right singular vectors
of s_i < 16·eps·s_1 among the non-zero columns, and e_j for each zero column j — are handed over as
a *provisional* null space (``provisional=True``: templates are recognised against it by their
residual ‖B t‖, no raw relation is read from it, :mod:`~identcheck.families.relations`). The caller
returns the r ≥ 1 relations it proved exactly (sympy: identically zero in x,
:mod:`~identcheck.families.proofs`), each with rational coefficients. They must be independent over
ℚ (exact rank r, flint's ``fmpq_mat``); the leading columns P of their reduced echelon form are
then pivots (R_P = I), and the other columns C are decided alone.

**r = k and C independent at once** — by float64 (s_min(B_C) ≥ sqrt(eps)·s_1(B_C)) or the proof of
step 3a on C:

    nullity(A) ≥ r      (r exact relations, independent over ℚ, proved)
    nullity(A) ≤ r      (rank A ≥ rank A_C = T − r: the columns C are independent)

so the nullity is exactly r: *dependent*, settled without the ladder (``settled_by``
``"proved relations, other columns float64"`` or ``"… interval proof"``; ``precision_digits`` 16,
or the proof's working precision; the history holds the float64 entry only; the null space is
spanned by the proved relations, returned as ``explained``). A proved relation is stronger evidence
of the dependence than the ladder's collapse with precision; the bound on the nullity is as strong
as C's independence (float64's evidence, or a proof).

**Otherwise, the ladder on C alone** (given ``gram_of``, the Gram matrix of a subset of the
columns): each pivot column is a combination of the columns C (reduced echelon form), so A and A_C
have the same column space and

    nullity(A) = r + nullity(A_C).

The ladder decides A_C (``settled_by`` ``"proved relations, other columns precision ladder"``;
``precision_digits`` its rung; the history the full matrix's float64 entry, then C's rungs). C
independent: the nullity is r and the proved relations are the whole null space. C dependent: the
null space is the relations' span plus C's null directions (zero on P), which the caller reads as
relations itself (``explained`` empty), as after the ladder on the whole matrix — on a Gram matrix
of |C| columns instead of T.

The caller leaves out a relation that is not proved or not rational. Anything short of the above —
no relation left, relations dependent over ℚ or more than k, one that B does not map to its
rounding floor (‖B v‖ > 16·eps·s_1‖v‖: not the matrix's relation), C undecided on its ladder —
leaves the whole matrix to the ladder, as if not tried.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import flint
import numpy as np

from .decision import (
    BORDERLINE_FACTOR,
    PROOF_FLOOR,
    RELATIONS_FLOAT64,
    RELATIONS_LADDER,
    RELATIONS_PROOF,
    ProvedNull,
    RankDecision,
)
from .interval import arb_columns

__all__ = ["provisional_decision", "settle_by_relations"]


def provisional_decision(s, vt, norms, zero, floor, history, tolerances) -> RankDecision:
    """The provisional null space handed to ``prove_null``: the live columns' right singular vectors
    whose singular values ``s`` lie below ``floor`` (unscaled by ``norms``), and e_j for each zero column j."""
    live = np.flatnonzero(~zero)
    T = zero.size
    near = np.flatnonzero(s < floor)
    null = np.zeros((T, near.size + int(zero.sum())))
    null[live, : near.size] = vt[near].T / norms[live, None]
    null[np.flatnonzero(zero), near.size + np.arange(zero.sum())] = 1.0
    null /= np.linalg.norm(null, axis=0)
    return RankDecision(False, history[0][1], 16, null.shape[1], null, history, tolerances, provisional=True)


def settle_by_relations(
    matrix, found: ProvedNull | None, provisional: RankDecision, rows, ladder, gram_of, decide, prove_independent, floor
):
    """The dependent decision the proved relations ``found`` settle, or None (``decide`` and
    ``prove_independent``: the rule's :func:`~identcheck.rank.rule.decide_rank` and its proof of step 3a).

    Needs r ≤ k = ``provisional.nullity`` relations, rational and independent over ℚ; then the
    columns C off their echelon pivots are decided alone: when r = k by float64 or the proof of
    step 3a, else (or when those leave it open) by the ladder on C, given ``gram_of``. The
    nullity is r + C's."""
    k, T = provisional.nullity, matrix.shape[1]
    if found is None or not 0 < len(found.vectors) <= k or len(found.records) != len(found.vectors):
        return None
    r = len(found.vectors)
    exact, null = flint.fmpq_mat(r, T), np.zeros((T, r))  # the relations over Q, and in float64
    for i, vector in enumerate(found.vectors):
        if len({int(column) for column, _ in vector}) != len(vector):
            return None  # a column named twice: not a vector of coefficients
        for column, value in vector:
            value = Fraction(value)
            exact[i, int(column)] = flint.fmpq(value.numerator, value.denominator)
            null[int(column), i] = float(value)
    echelon, rank = exact.rref()
    if rank != r:
        return None
    pivots = {next(j for j in range(T) if echelon[i, j] != 0) for i in range(r)}
    others = [j for j in range(T) if j not in pivots]
    rest = matrix[:, others]
    if not np.all(_residuals(matrix, null) <= floor):
        return None  # a relation float64 does not see at its rounding floor: not the matrix's (a mislabelled column?)
    null /= np.linalg.norm(null, axis=0)
    settled = replace(provisional, nullity=r, null_space=null, explained=tuple(found.records), provisional=False)
    if r == k:
        independence = _independent_at_once(rest, others, rows, ladder, prove_independent)
        if independence is not None:
            return replace(settled, precision_digits=independence[1], settled_by=independence[0])
    if gram_of is None or not others:
        return None
    alone = decide(rest, ladder=ladder, gram=lambda digits: gram_of(others, digits))
    if alone.independent is None:
        return None
    history = provisional.history + alone.history[1:]  # the full matrix in float64, then C's rungs
    if alone.independent:  # the nullity is r: the margin stays the full matrix's float64 value, at its floor
        return replace(
            settled,
            precision_digits=alone.precision_digits,
            history=history,
            settled_by=RELATIONS_LADDER,
        )
    extended = np.zeros((T, alone.nullity))
    extended[others] = alone.null_space
    return replace(
        settled,
        smallest_singular_value=alone.smallest_singular_value,
        precision_digits=alone.precision_digits,
        nullity=r + alone.nullity,
        null_space=np.concatenate([null, extended], axis=1),
        history=history,
        settled_by=RELATIONS_LADDER,
        explained=(),  # C's relations are the ladder's to read: the caller reads them all
    )


def _residuals(matrix, vectors) -> np.ndarray:
    """‖B·(D v)‖ / ‖D v‖ per column v of ``vectors`` (unscaled coefficients), B = A·D⁻¹ the unit-column
    matrix (D the column norms; a zero column's taken as 1): how far each is from the matrix's null space."""
    norms = np.linalg.norm(matrix, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    return np.linalg.norm(matrix @ vectors, axis=0) / np.linalg.norm(vectors * norms[:, None], axis=0)


def _independent_at_once(rest, others, rows, ladder, prove_independent):
    """(settled_by, digits) when the columns ``rest`` (the matrix's ``others``) are independent by
    float64 alone or by the proof of step 3a; None when neither settles it."""
    if not others:
        return RELATIONS_FLOAT64, 16
    norms = np.linalg.norm(rest, axis=0)
    if not np.all(norms > 0):
        return None  # a zero column no proved relation accounts for
    s = np.linalg.svd(rest / norms, compute_uv=False)
    s_min, s_max = float(s[-1]), float(s[0])
    if s_min >= BORDERLINE_FACTOR * s_max:
        return RELATIONS_FLOAT64, 16
    if rows is None or s_min < PROOF_FLOOR * s_max:
        return None
    proof = prove_independent(rest, lambda indices, digits: arb_columns(rows(indices, digits), others), s_min, ladder)
    return None if proof is None else (RELATIONS_PROOF, proof.digits)
