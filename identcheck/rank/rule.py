"""Decide whether the columns of a collocation matrix are linearly independent.

A[i, j] = term_j(x_i) at n random points x_i ∈ [−1, 1]^d, n several times the number of terms T.
Independent columns prove the functions independent (up to rounding, which is what the
precision ladder controls); a dependence among the columns at n ≫ T random points is evidence
of a dependence among the functions.

The rule, with its named tolerances (recorded in every :class:`RankDecision`):

1. **Scale.** B = A·D⁻¹, D = diag(‖A_j‖₂): all columns unit length, so the singular values
   measure directions, not units. An exactly zero column is a dependence candidate by itself.
2. **float64.** SVD of B: s_1 ≥ … ≥ s_T. Rounding moves singular values by about
   eps·s_1·√n ≈ 1e-14, so ``s_T ≥ borderline = sqrt(eps)·s_1`` (≈ 1.5e-8·s_1) cannot be an
   artefact: *independent*, settled at 16 digits. Below it the direction is **borderline**:
   a genuine dependence and an ill-conditioned independence look alike in float64 (both occur
   among ordinary activations), so float64 alone decides nothing there.
2b. **Relations proved first, where float64 sees a dependence** (:mod:`~identcheck.rank.relations_first`):
   when float64's smallest singular value is at its rounding floor (below ``PROOF_FLOOR``·s_1) or a
   column is exactly zero, and the caller names and proves relations (``prove_null``), k relations
   proved exactly and independent over ℚ, with the columns off their pivots independent, settle
   the dependence, nullity exactly k, without the ladder; relations that leave part of it leave
   the ladder to the other columns alone. Anything short of that: the ladder below, as if not tried.
3. **Higher precision.** The matrix is re-evaluated in arb ball arithmetic (python-flint),
   and each rung p of a ladder (30, 60, 120) works with 2p digits (the first two rungs share
   one evaluation at 120 digits: what separates them is the working precision of the Gram and
   Schur arithmetic below; the third rung re-evaluates at 240). With H = BᵀB rotated by the float64
   right singular vectors V = [V_r V_b] (resolved | borderline),

       S = H_bb − H_br·H_rr⁻¹·H_rb        (k × k, k = number of borderline directions)

   is the Gram matrix of the borderline directions after removing their components along the
   resolved ones; its eigenvalues are the squares of the k smallest singular values (up to a
   factor near 1). S is itself split the same way when its eigenvalues spread over more than
   eight decades (recursive deflation). A singular value is **collapsed at p** when it is below
   ``10^-p``: the arithmetic carries 2p digits, so an exact dependence lands near 10^-2p.
   **Resolved columns.** The Gram matrix is formed from the arb midpoints, so it is only as good
   as the balls are narrow. Its diagonal carries each column's error: ‖A_j‖² as a ball of radius
   2‖M_j‖ρ_j + ρ_j², ρ_j = Σ_i rad(A_ij) ≥ ‖A_j − M_j‖₂ (M the midpoints). Column j is
   **resolved at p** when that radius is at most ``10^-(p+2)`` × ‖M_j‖² (the scaled matrix then
   moves by less than 10^-p/12 for T ≤ 250 columns), or it is exactly zero (midpoint and radius
   0: a genuine zero column). A rung with an unresolved column decides nothing — it is skipped
   and not recorded in the history. This is what keeps values below the precision (e.g. a
   parameter 1e-300: arb returns [0 ± 1e-120]) from being read as a zero column and a relation.
3a. **Proof first, where float64 sees a value.** When float64's smallest singular value is above
   its rounding floor (``PROOF_FLOOR``·s_1 = 16·eps·s_1 ≈ 3.6e-15·s_1: the catalog's dependences
   land below it, at ≤ 6.3e-16; one landing above it only costs the attempt, and an independence
   below it climbs the ladder as before) and the caller can
   evaluate rows in arb, the matrix's full column rank is first tried by proof: the
   approximate-inverse test of :mod:`~identcheck.rank.interval` on a square minor, in ball arithmetic,
   once, at 2p digits for the first rung p whose 2p covers what float64's value says is lost to
   conditioning (:func:`~identcheck.rank.interval.start_digits`): 60 digits with the default ladder —
   the first rung's working precision (the ladder *evaluates* at 120). Proved ⇒ *independent*,
   settled at that precision (``precision_digits`` is then the proof's working precision, not a
   rung); the smallest singular value recorded is float64's (accurate to about eps·s_1 absolute,
   so a margin, not a bound), the history has the float64 entry only, and the proof (``proof``)
   carries a rigorous lower bound on σ_min of A·2^E, the columns scaled by the recorded powers of
   two (each 2^e_j·‖A_j‖ in [1/2, 1) by float64's norm), so up to float64's rounding of those
   norms (≈ 1e-13 relative) a bound for the unit-column matrix too. Not proved ⇒ the ladder
   below, as if not tried. A proof can also settle a matrix the ladder would have left
   undecided (a tiny independence that does not converge within the ladder, columns unresolved
   at 120 digits on all n rows but narrow on the minor's): rightly, since it is a proof. The
   proof needs T rows evaluated at 60 digits where the ladder needs all n rows at 120 digits, a
   Gram matrix and two deflations: it is the cheap way to settle an ill-conditioned
   independence, and a stronger one (a proof that the functions are independent, where the
   ladder's agreement is evidence).
4. **Decision** on consecutive rungs p < p' (skipped rungs left out): the same number c of collapsed values at both
   ⇒ c > 0: *dependent* (settled at p'); c = 0 and the smallest singular value equal to
   ``agreement`` (1e-6) relative: *independent* (settled at p). Otherwise climb; past the last
   rung: *inconclusive*. A true dependence collapses with precision; an independence converges
   to its (possibly tiny) true value and stays there. When no two rungs were usable, the
   decision is *inconclusive* and its ``note`` names the unresolved columns.

The null directions found at the settling precision are returned in unscaled coordinates, so
that callers can read them as relations between labelled terms.
"""

from __future__ import annotations

from typing import Callable

import flint
import numpy as np

from ..evidence import Tolerance
from ..terms.compile import arb_precision
from .decision import BORDERLINE_FACTOR, FLOAT64, INTERVAL_PROOF, LADDER, PROOF_FLOOR, ProvedNull, RankDecision
from .interval import IntervalCertificate, certify_full_column_rank, start_digits
from .relations_first import provisional_decision, settle_by_relations

__all__ = ["ProvedNull", "RankDecision", "decide_rank", "raw_gram", "rule_tolerances", "unresolved_columns"]
__all__ += ["DEFAULT_LADDER"]

#: The precision ladder: the decimal digits a borderline probe is re-evaluated at, in turn, until
#: the decision is clear (docs/method.md, "The independence decision").
DEFAULT_LADDER = (30, 60, 120)
AGREEMENT = 1e-6
DEFLATION_GAP = 1e-8  # eigenvalue ratio that counts as resolved inside S
BORDERLINE_RULE = "sqrt(eps) * s_max of the column-scaled float64 matrix"
COLLAPSE_RULE = "singular value < 10**-p at precision p digits (arithmetic carries 2p digits)"
PROOF_RULE = (
    "full column rank proved in ball arithmetic (approximate inverse of a square minor), "
    "tried first when float64's s_min >= 16 eps s_max"
)
RELATIONS_RULE = (
    "at float64's s_min < 16 eps s_max (or a zero column): r relations proved exactly, independent over Q, "
    "and the other columns decided alone (float64, interval proof or the ladder): nullity r + theirs"
)
RESOLUTION_MARGIN = 2  # resolved at p: radius of ||A_j||^2 <= 10**-(p + RESOLUTION_MARGIN) * ||M_j||^2


def rule_tolerances(ladder) -> tuple[Tolerance, ...]:
    """The decision rule's tolerances, as a check records them (the borderline value of each
    matrix is in its :class:`RankDecision`)."""
    return (
        Tolerance("borderline", None, BORDERLINE_RULE),
        Tolerance("collapsed", None, COLLAPSE_RULE),
        Tolerance(
            "agreement",
            AGREEMENT,
            "independent when the smallest singular value agrees to this, relative, on two rungs",
        ),
        Tolerance("ladder", tuple(ladder), "precisions (decimal digits) tried for borderline directions"),
        Tolerance("proof", None, PROOF_RULE),
        Tolerance("relations", None, RELATIONS_RULE),
    )


def decide_rank(
    matrix: np.ndarray,
    high_precision: Callable[[int], "flint.arb_mat"] | None = None,
    ladder: tuple = DEFAULT_LADDER,
    gram: Callable[[int], "flint.arb_mat"] | None = None,
    rows: Callable[[list, int], "flint.arb_mat"] | None = None,
    prove_null: Callable[[RankDecision], ProvedNull | None] | None = None,
    gram_of: Callable[[list, int], "flint.arb_mat"] | None = None,
) -> RankDecision:
    """Decide the column rank of ``matrix`` (float64), re-evaluating borderline cases.

    Parameters
    ----------
    matrix : ndarray, shape (n, T)
        The float64 collocation matrix.
    high_precision : callable
        ``high_precision(digits)`` returns the same matrix as a ``flint.arb_mat`` whose entries
        carry at least ``digits`` correct digits.
    ladder : tuple of int
        Increasing precisions p (decimal digits of resolution) to try.
    gram : callable, optional
        Instead of ``high_precision``: ``gram(digits)`` returns AᵀA (unscaled) as a
        ``flint.arb_mat`` computed at ``digits`` digits — lets callers share one Gram matrix
        among decisions on subsets of its columns.
    rows : callable, optional
        ``rows(indices, digits)`` returns those rows as a ``flint.arb_mat`` of balls containing
        the exact entries: enables the proof of independence (module docstring, 3a).
    prove_null : callable, optional
        ``prove_null(provisional)`` returns the relations proved exactly on the provisional null
        space (a :class:`ProvedNull`), or None: enables step 2b.
    gram_of : callable, optional
        ``gram_of(columns, digits)``: AᵀA of those columns alone, like ``gram``: lets step 2b
        climb the ladder on the columns its relations leave.

    Returns
    -------
    RankDecision
    """
    n, T = matrix.shape
    norms = np.linalg.norm(matrix, axis=0)
    zero = norms == 0
    if not np.all(np.isfinite(matrix)):
        raise FloatingPointError("the collocation matrix has non-finite entries")
    live = np.flatnonzero(~zero)
    scaled = matrix[:, live] / norms[live]
    _, s, vt = np.linalg.svd(scaled, full_matrices=False) if live.size else (None, np.zeros(0), np.zeros((0, 0)))
    s_max = s[0] if s.size else 1.0
    borderline = BORDERLINE_FACTOR * s_max
    values = {"borderline": float(borderline), "proof": float(PROOF_FLOOR * s_max)}  # this matrix's thresholds
    tolerances = tuple(Tolerance(t.name, values.get(t.name, t.value), t.rule) for t in rule_tolerances(ladder))
    s_min64 = s[-1] if s.size else 0.0
    history = [(16, float(s_min64) if not zero.any() else 0.0, int(zero.sum()))]
    if not zero.any() and s_min64 >= borderline:
        return RankDecision(
            True, float(s_min64), 16, 0, np.zeros((T, 0)), tuple(history), tolerances, settled_by=FLOAT64
        )

    if rows is not None and not zero.any() and s_min64 >= PROOF_FLOOR * s_max:
        proof = _prove_independent(matrix, rows, float(s_min64), ladder)
        if proof is not None:
            return RankDecision(
                True,
                float(s_min64),
                proof.digits,
                0,
                np.zeros((T, 0)),
                tuple(history),
                tolerances,
                proof=proof,
                settled_by=INTERVAL_PROOF,
            )

    if prove_null is not None and (zero.any() or s_min64 < PROOF_FLOOR * s_max):
        provisional = provisional_decision(s, vt, norms, zero, PROOF_FLOOR * s_max, tuple(history), tolerances)
        found, floor = prove_null(provisional), PROOF_FLOOR * s_max
        settled = settle_by_relations(
            matrix, found, provisional, rows, ladder, gram_of, decide_rank, _prove_independent, floor
        )
        if settled is not None:
            return settled

    # Rotation: full V for the live columns, identity for the zero ones; borderline directions last.
    v_full = np.zeros((T, T))
    v_full[np.ix_(live, np.arange(live.size))] = vt.T
    v_full[np.flatnonzero(zero), live.size + np.arange(zero.sum())] = 1.0
    order_resolved = [i for i in range(live.size) if s[i] >= borderline]
    order_borderline = [i for i in range(live.size) if s[i] < borderline] + list(range(live.size, T))
    scale = norms.copy()

    results = []
    grams: dict = {}
    def gram_at(digits: int):
        """AᵀA at ``digits``: from ``gram``, else from ``high_precision``'s matrix."""
        if gram is not None:
            return gram(digits)
        if high_precision is None:
            raise ValueError("decide_rank: a borderline matrix needs high_precision or gram to re-evaluate it")
        return raw_gram(high_precision(digits), digits)

    unresolved = None
    for rung, digits in enumerate(ladder):
        # The first two rungs share one evaluation at the second rung's precision: what tells
        # them apart is the working precision (2p digits) of the Gram and Schur arithmetic.
        evaluate_at = 2 * (max(ladder[:2]) if rung < 2 else digits)
        if evaluate_at not in grams:
            raw = gram_at(evaluate_at)
            grams[evaluate_at] = (_scaled_gram(raw, scale, zero, evaluate_at), _column_errors(raw))
        scaled_gram, errors = grams[evaluate_at]
        unresolved = np.flatnonzero(errors > 10.0 ** -(digits + RESOLUTION_MARGIN))
        if unresolved.size:
            continue
        with arb_precision(2 * digits):
            values, vectors = _deflate(scaled_gram, v_full, order_resolved, order_borderline, digits)
        values = np.sqrt(np.maximum(values, 0.0))
        collapsed = values < 10.0 ** (-digits)
        results.append((digits, values, vectors, collapsed))
        history.append((digits, float(values.min()), int(collapsed.sum())))
        if len(results) < 2:
            continue
        (p, v_p, _, c_p), (q, v_q, vec_q, c_q) = results[-2], results[-1]
        if c_p.sum() == c_q.sum() and c_q.sum() > 0:
            null = vec_q[:, c_q] / np.where(scale > 0, scale, 1.0)[:, None]
            null /= np.linalg.norm(null, axis=0)
            return RankDecision(
                False, float(v_q.min()), q, int(c_q.sum()), null, tuple(history), tolerances, settled_by=LADDER
            )
        if c_p.sum() == 0 and c_q.sum() == 0:
            if abs(v_p.min() - v_q.min()) <= AGREEMENT * v_q.min():
                return RankDecision(
                    True, float(v_q.min()), p, 0, np.zeros((T, 0)), tuple(history), tolerances, settled_by=LADDER
                )
    smallest = float(results[-1][1].min()) if results else history[0][1]
    note = None
    if unresolved is not None and unresolved.size:
        note = (
            f"{unresolved.size} column(s) not resolved at {ladder[-1]} digits (their arb balls are wider "
            "than their values: values below the precision, e.g. a degenerate scaling of phi's argument)"
        )
    return RankDecision(None, smallest, ladder[-1], 0, np.zeros((T, 0)), tuple(history), tolerances, note)  # undecided


def _prove_independent(matrix, rows, smallest: float, ladder) -> IntervalCertificate | None:
    """The proof of step 3a, or None when it was not found (or no rung's 2p covers it).

    One attempt, at 2p digits for the first rung p with 2p ≥ what ``smallest`` asks for (60
    with the default ladder): a fixed set of precisions, so that a cache of φ-free work at a
    precision (type-2's factors) serves every activation's proofs."""
    needed = start_digits(smallest)
    digits = next((2 * p for p in ladder if 2 * p >= needed), None)
    if digits is None:
        return None
    proof = certify_full_column_rank(matrix, rows, smallest, max_digits=digits, digits=digits)
    return proof if proof.proved else None


def raw_gram(arb_matrix, digits):
    """AᵀA of an arb matrix's midpoints M, at ``digits`` digits; the diagonal carries the columns' error.

    Off the diagonal: (MᵀM)_ij. On it: a ball around (MᵀM)_jj that holds the exact ‖A_j‖², radius
    2‖M_j‖ρ_j + ρ_j² with ρ_j = Σ_i rad(A_ij) ≥ ‖A_j − M_j‖₂ (read off the ball sum 1ᵀA), so that
    :func:`unresolved_columns` can tell a column that is zero from one that is too small to see.
    """
    n, T = arb_matrix.nrows(), arb_matrix.ncols()
    with arb_precision(digits):
        a = arb_matrix.mid()
        product = a.transpose() * a
        gram = product.mid()
        if n == 0:
            return gram
        sums = flint.arb_mat([[1] * n]) * arb_matrix
        for j in range(T):
            rho = flint.arb(sums[0, j].rad())
            error = 2 * gram[j, j].sqrt() * rho + rho * rho
            gram[j, j] = product[j, j] + flint.arb(0, error.upper())
        return gram


def _column_errors(raw) -> np.ndarray:
    """Relative error of each column's squared norm (0 for an exact zero, inf for [0 ± r], r > 0)."""
    errors = np.zeros(raw.nrows())
    for j in range(raw.nrows()):
        g = raw[j, j]
        if g.mid() == 0:
            errors[j] = 0.0 if g.rad() == 0 else np.inf
        else:
            errors[j] = float((flint.arb(g.rad()) / abs(g.mid())).upper())
    return errors


def unresolved_columns(raw, digits: int) -> np.ndarray:
    """Columns of a :func:`raw_gram` not resolved at ``digits`` (module docstring, step 3)."""
    return np.flatnonzero(_column_errors(raw) > 10.0 ** -(digits + RESOLUTION_MARGIN))


def _scaled_gram(raw, scale, zero, digits):
    """BᵀB for B = A·D⁻¹ (unit columns), from AᵀA, at ``digits`` digits.

    Columns that float64 saw as exactly zero take their norm from arb (0 if truly zero).
    """
    T = len(scale)
    with arb_precision(digits):
        for j in np.flatnonzero(zero):
            scale[j] = float(raw[j, j].mid().sqrt().mid())
        inv = [flint.arb(1.0 / v) if v > 0 else flint.arb(0) for v in scale]
        entries = raw.tolist()
        return flint.arb_mat([[entries[i][j] * inv[i] * inv[j] for j in range(T)] for i in range(T)]).mid()


def _deflate(gram, basis, resolved, borderline, digits, depth=0):
    """Eigenvalues of the Schur complement of ``gram`` in the rotated basis, deflated recursively.

    Returns (eigenvalues, directions) for the ``borderline`` columns of ``basis``.
    """
    rotation = _arb_from(basis)
    rotated = (rotation.transpose() * gram * rotation).mid()
    b_idx, r_idx = list(borderline), list(resolved)
    entries = rotated.tolist()
    h_bb = _sub(entries, b_idx, b_idx)
    if r_idx:
        h_rr = _sub(entries, r_idx, r_idx)
        h_rb = _sub(entries, r_idx, b_idx)
        x = h_rr.solve(h_rb, algorithm="approx")
        schur = (h_bb - h_rb.transpose() * x).mid()
        x_mid = _float(x)
        directions = basis[:, b_idx] - basis[:, r_idx] @ x_mid
    else:
        schur = h_bb
        directions = basis[:, b_idx]
    s = _float(schur)
    s = (s + s.T) / 2
    floor = 10.0 ** (-2 * digits)
    top = np.max(np.abs(s)) if s.size else 0.0
    if top <= floor or depth >= 8 or s.shape[0] == 0:
        if not s.size:
            return np.zeros(0), directions
        w, q = np.linalg.eigh(s)
        return np.abs(w), directions @ q
    w, q = np.linalg.eigh(s / top)
    w = w * top
    keep = w >= DEFLATION_GAP * w.max()
    if keep.all():
        return w, directions @ q
    inner_values, inner_vectors = _deflate(
        schur, q, list(np.flatnonzero(keep)), list(np.flatnonzero(~keep)), digits, depth + 1
    )
    values = np.concatenate([w[keep], inner_values])
    vectors = np.concatenate([directions @ q[:, keep], directions @ inner_vectors], axis=1)
    return values, vectors


def _arb_from(array: np.ndarray):
    """The float64 entries as exact arb balls."""
    return flint.arb_mat(np.atleast_2d(np.asarray(array, dtype=float)).tolist())


def _sub(entries, rows, cols):
    """The submatrix of a matrix given as nested lists (``arb_mat.tolist()``)."""
    return flint.arb_mat([[entries[i][j] for j in cols] for i in rows])


def _float(matrix) -> np.ndarray:
    """The midpoints, rounded to float64."""
    return np.array([float(v) for v in matrix.mid().entries()], dtype=float).reshape(matrix.nrows(), matrix.ncols())
