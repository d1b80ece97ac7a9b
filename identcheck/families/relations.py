"""Read a numerical null space as relations between labelled terms.

Given the null space N found by :func:`~identcheck.rank.rule.decide_rank` (nullity k) and the
templates of the known families (:mod:`families`), all in column-scaled coordinates:

1. a template t is **recognised** when it lies in the null space:
   ‖(I − Q Qᵀ) t‖ ≤ ``IN_NULL_SPACE`` · ‖t‖ (Q an orthonormal basis of N; 1e-6) — or, on a
   *provisional* null space (float64's, handed over by step 2b of :mod:`~identcheck.rank.rule`,
   whose directions are only as accurate as float64's spectral gap allows), when the unit-column
   matrix B maps it to float64's rounding floor: ‖B t‖ ≤ 16·eps·s_1·‖t‖ (the rule's ``proof``
   tolerance; on the catalog every template a ladder's null space recognises has ‖B t‖ ≤
   1.2e-16·s_1·‖t‖), a test that does not depend on how well float64 separated the directions;
2. recognised templates are kept greedily while they add rank (a basis of what they explain):
   numerical rank of the kept unit vectors with singular values above ``ADDS_RANK`` (1e-8);
3. if they explain fewer than k directions, the rest is reported raw (not from a *provisional*
   null space, float64's handed over by step 2b of :mod:`~identcheck.rank.rule`: it returns the
   templates' relations alone, fewer than k) — "unrecognised" — in a
   canonical form, the same on every machine: the reduced echelon basis of N in term order
   (:mod:`echelon`; each vector writes its last term, coefficient 1, through earlier ones), of
   which the first vectors that add rank to the kept templates are reported. Their coefficients
   are read as exact rationals p/q (q ≤ ``RATIONAL_DENOMINATOR`` = 4096, each within
   ``RATIONAL_TOL`` = 1e-9 of the float, and within ``RATIONAL_GAP``/q² = 1e-4/q²: every real
   number lies within 1/q² of some p/q, so a looser test read 9π² as 109523/1233) where they
   all are — exact-looking, *not* proved here: the
   check's sympy budget goes to the templates (a raw relation is often a family no template
   knows, whose proofs time out: erf's type-2 relations spent a whole check's budget); the driver
   then proves the witness probe's alone, when no dependent probe has a proved relation and its
   budget allows (:func:`identcheck.check.run`). With
   ``--certify`` the certificate recovers these same relations at 120 digits (the same echelon
   pivots) and proves them (:func:`~identcheck.rank.certificates.certify_probe`). Otherwise a raw
   relation is printed with float coefficients.

Kept templates are proved exactly (:mod:`~identcheck.families.proofs`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..evidence import Tolerance
from ..results import Relation
from ..util.budget import Outcome
from .echelon import echelon_basis

__all__ = ["explain_null_space", "tied_components", "IN_NULL_SPACE", "NULL_SPACE_TOLERANCE"]

IN_NULL_SPACE = 1e-6
ADDS_RANK = 1e-8  # a template adds rank when the kept unit vectors' singular values stay above this
RAW_CUTOFF = 1e-9  # raw coefficients below this (relative to the largest) are dropped
RATIONAL_DENOMINATOR = 4096  # a raw coefficient is read as p/q with q at most this …
RATIONAL_TOL = 1e-9  # … when within this (relative, at least absolute) of it
RATIONAL_GAP = 1e-4  # … and within this fraction of 1/q² (every real number is within 1/q² of some p/q)
NULL_SPACE_TOLERANCE = Tolerance(
    "in_null_space",
    IN_NULL_SPACE,
    "a template is recognised when ||(I - Q Q^T) t|| <= this * ||t||; on float64's provisional null space "
    "when ||B t|| <= 16 eps s_1 ||t|| (B the unit-column matrix)",
)


def explain_null_space(
    decision, matrix, templates, labels, keys, prove=None, hypotheses_timed_out=(), more=None
) -> tuple:
    """Relations explaining ``decision.null_space`` (a tuple of :class:`Relation`).

    ``labels`` and ``keys`` name each column, for people and for code (a structural key,
    :class:`~identcheck.conditions.base.ProbeMatrix`); each relation carries both.
    ``templates`` are candidate exact relations (:class:`~identcheck.families.Template`);
    ``prove(coefficients, thorough, family)`` returns whether sympy proved one (None: no proofs),
    truthy when proved; an :class:`~identcheck.util.budget.Outcome` also says when the proof timed out,
    and the relation is then kept with ``timed_out=True`` (never dropped). After one timeout the
    probe's later templates are not tried (each would likely spend a whole budget too): they are
    kept, ``timed_out=True``, on their numeric evidence.
    The first kept template is proved ``thorough``-ly (sympy's slow ``simplify`` as last resort), except
    on a provisional null space.
    ``hypotheses_timed_out`` names φ's family hypotheses whose check ran out of its budget
    (:func:`~identcheck.families.phi_properties`): an unrecognised relation might have been a
    family's, so it is reported ``timed_out`` with those names as its hypothesis.
    ``more()``, when given, returns further templates, tried after ``templates`` and only when
    those leave part of the null space unexplained (the ``ode`` family: guessing φ's ODEs costs
    time, and a named family always comes first — an ODE never hides one). A raw relation whose
    terms belong to several components (keys ``(c, …)``, c an int: type-1) says which it ties
    (:attr:`~identcheck.results.Relation.ties`).
    """
    norms = np.linalg.norm(matrix, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    null = decision.null_space * norms[:, None]
    q, _ = np.linalg.qr(null)
    if decision.provisional:  # a float64 null space: a template is recognised by its residual ‖B t‖ instead
        unit = matrix / norms
        floor = _rounding_floor(decision, unit)
    kept_vectors: list[np.ndarray] = []
    relations: list[Relation] = []
    out_of_time = False
    for template in _then(templates, more, lambda: len(kept_vectors) < decision.nullity):
        vector = np.zeros(matrix.shape[1])
        for column, coeff in template.coefficients:
            vector[column] = float(coeff)
        scaled = vector * norms
        size = np.linalg.norm(scaled)
        if size == 0:
            continue
        if decision.provisional:
            if np.linalg.norm(unit @ (scaled / size)) > floor:
                continue
        elif np.linalg.norm(scaled - q @ (q.T @ scaled)) > IN_NULL_SPACE * size:
            continue
        trial = np.column_stack(kept_vectors + [scaled / size])
        if np.linalg.matrix_rank(trial, tol=ADDS_RANK) <= len(kept_vectors):
            continue
        kept_vectors.append(scaled / size)
        outcome: bool | Outcome
        if prove is None:
            outcome = False
        elif out_of_time:  # one proof on this probe ran out: the probe's budget is spent
            outcome = Outcome(False, True)
        else:
            # thorough (sympy's slow simplify last) for the first kept relation — not on a provisional null
            # space, where a template float64 cannot tell from a relation may be kept and fail
            outcome = prove(template.coefficients, not relations and not decision.provisional, template.family)
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
    if missing > 0 and decision.provisional:  # a float64 null space: too coarse to read a raw relation from
        return tuple(relations)
    if missing > 0:
        hypothesis = (
            "not recognised; the check of " + ", ".join(hypotheses_timed_out) + " ran out of time"
            if hypotheses_timed_out
            else None
        )
        for coeffs, exact in _raw_directions(q, norms, kept_vectors, missing):
            keep = np.flatnonzero(np.abs(coeffs) > RAW_CUTOFF * np.max(np.abs(coeffs)))
            columns = keep if exact is None else [c for c, _ in exact]
            relations.append(
                Relation(
                    terms=tuple((labels[c], float(coeffs[c])) for c in keep)
                    if exact is None
                    else tuple((labels[c], float(v)) for c, v in exact),
                    exact=None if exact is None else tuple((labels[c], str(v)) for c, v in exact),
                    keys=tuple(keys[c] for c in keep) if exact is None else tuple(keys[c] for c, _ in exact),
                    family=None,
                    hypothesis=hypothesis,
                    proved=False,  # the witness's by the driver, every probe's with --certify
                    timed_out=bool(hypotheses_timed_out),
                    ties=tied_components(keys[c] for c in columns),
                )
            )
    return tuple(relations)


def _rounding_floor(decision, unit) -> float:
    """float64's rounding floor on the unit-column matrix ``unit``, 16·eps·s_1: the decision's ``proof``
    tolerance, which holds that value (computed here when a decision does not carry it)."""
    for tolerance in decision.tolerances:
        if tolerance.name == "proof" and tolerance.value is not None:
            return float(tolerance.value)
    return 16 * float(np.finfo(float).eps) * float(np.linalg.norm(unit, 2))


def _then(templates, more, needed):
    """``templates``, then — while ``needed()`` — those ``more()`` returns (called at most once)."""
    yield from templates
    if more is not None and needed():
        yield from more()


def tied_components(keys) -> tuple:
    """The components (1-based) a relation's terms belong to, when it ties two or more: type-1 keys
    are ``(c, derivative)`` with c the 0-based component; () for one component or other keys."""
    keys = list(keys)
    if not keys or not all(isinstance(k, tuple) and k and isinstance(k[0], int) for k in keys):
        return ()
    components = sorted({k[0] + 1 for k in keys})
    return tuple(components) if len(components) > 1 else ()


def _raw_directions(q, norms, kept_vectors, missing) -> list:
    """The ``missing`` directions of the null space that the kept templates leave unexplained, as
    (coefficients in the original columns, exact ((column, Rational), ...) or None).

    Canonical (:mod:`echelon`): the reduced echelon basis of the null space in term order (each
    vector: its last term, coefficient 1, as a combination of earlier ones), of which the first
    ones — by pivot — that add rank to the templates are kept. Coefficients are read as rationals
    p/q (q ≤ ``RATIONAL_DENOMINATOR``) when every one is within ``RATIONAL_TOL`` of one. Should the
    null space be too ill-separated for an echelon form, the SVD directions of its part orthogonal
    to the templates, scaled so the largest coefficient is 1 (not canonical, said in the docstring).
    """
    echelon = echelon_basis(q)
    if echelon is None:
        rest = q
        if kept_vectors:
            basis, _ = np.linalg.qr(np.column_stack(kept_vectors))
            rest = q - basis @ (basis.T @ q)
        u, _, _ = np.linalg.svd(rest, full_matrices=False)
        directions: list[tuple[np.ndarray, tuple | None]] = []
        for direction in u[:, :missing].T:
            coeffs = direction / norms
            directions.append((coeffs / coeffs[np.argmax(np.abs(coeffs))], None))
        return directions
    pivots, v_scaled = echelon
    rows = [t[pivots] / np.linalg.norm(t[pivots]) for t in kept_vectors]  # templates in the echelon basis
    chosen: list[int] = []
    for i in range(len(pivots)):
        if len(chosen) == missing:
            break
        trial = np.array(rows + [np.eye(len(pivots))[i]])
        if np.linalg.matrix_rank(trial, tol=ADDS_RANK) > len(rows):
            rows.append(np.eye(len(pivots))[i])
            chosen.append(i)
    directions = []
    for i in chosen:
        coeffs = v_scaled[i] / norms
        coeffs = coeffs / coeffs[pivots[i]]
        directions.append((coeffs, _rationals(coeffs)))
    return directions


def _rationals(coeffs) -> tuple | None:
    """((column, sympy.Rational), ...) for the non-zero coefficients, or None unless all are rational."""
    exact = []
    for column in np.flatnonzero(np.abs(coeffs) > RAW_CUTOFF * np.max(np.abs(coeffs))):
        value = float(coeffs[column])
        guess = Fraction(value).limit_denominator(RATIONAL_DENOMINATOR)
        miss = abs(value - float(guess))
        # a best approximation p/q is always within 1/q² of value: only a miss far below that is a reading
        if miss > RATIONAL_TOL * max(1.0, abs(value)) or miss > RATIONAL_GAP / guess.denominator**2:
            return None
        if guess != 0:
            exact.append((int(column), sp.Rational(guess.numerator, guess.denominator)))
    return tuple(exact)
