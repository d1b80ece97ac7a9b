"""What a rank decision says (:mod:`~identcheck.rank.rule` decides it): outcome, nullity, null
directions, the precisions tried and what settled it, as frozen dataclasses.

A decision is settled by one of :data:`SETTLED_BY` — float64 alone (step 2 of the rule), the proof
of independence first (3a), the precision ladder (3–4), or relations proved exactly with the other
columns decided by float64, that proof or the ladder (2b, :mod:`~identcheck.rank.relations_first`);
an undecided one by none (``settled_by`` None). Step numbers are the rule module's
(:mod:`~identcheck.rank.rule`); docs/method.md §3 numbers the same steps 1–6.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .interval import IntervalCertificate

__all__ = ["ProvedNull", "RankDecision", "SETTLED_BY", "BY_RELATIONS", "BORDERLINE_FACTOR", "PROOF_FLOOR"]

EPS = np.finfo(float).eps
BORDERLINE_FACTOR = float(np.sqrt(EPS))  # borderline = sqrt(eps) * s_1: float64 settles an independence above it
PROOF_FLOOR = 16 * EPS  # float64's rounding floor, 16 eps * s_1: a dependence lands below it

#: What settled a decision (``RankDecision.settled_by``; None when undecided): float64 alone, the
#: proof of independence first (3a), the precision ladder (3–4), or proved relations with the
#: other columns decided by float64, by the proof of 3a, or by the ladder on them alone
#: (:mod:`~identcheck.rank.relations_first`).
SETTLED_BY = (
    "float64",
    "interval proof",
    "precision ladder",
    "proved relations, other columns float64",
    "proved relations, other columns interval proof",
    "proved relations, other columns precision ladder",
)
FLOAT64, INTERVAL_PROOF, LADDER, RELATIONS_FLOAT64, RELATIONS_PROOF, RELATIONS_LADDER = SETTLED_BY
#: the ways a dependence is settled by relations proved first
BY_RELATIONS = (RELATIONS_FLOAT64, RELATIONS_PROOF, RELATIONS_LADDER)


@dataclass(frozen=True, slots=True)
class RankDecision:
    """Outcome of the independence decision for one matrix.

    Attributes
    ----------
    independent : bool or None
        True / False, or None when the ladder ended without a consistent answer.
    smallest_singular_value : float
        Of the column-scaled matrix, at ``precision_digits`` (float64's when ``proof`` settled it,
        or proved relations with the other columns independent; the other columns' collapsed
        value when the ladder on them found a dependence too).
    precision_digits : int
        16 when float64 settled it, the proof's working precision when ``proof`` did (60 with
        the default ladder), else the ladder rung that did. For proved relations: 16, the proof's
        precision, or the rung of the ladder on the other columns — how those were decided.
    nullity : int
        The dimension of the null space found (0 unless dependent): the collapsed directions, plus
        the proved relations when they settled it.
    null_space : ndarray, shape (T, nullity)
        Unit null directions, in unscaled column coordinates: near-orthonormal from the ladder; the
        proved relations, each normalised (not orthogonal), from step 2b.
    history : tuple of (int, float, int)
        (digits, smallest singular value, collapsed count) per precision tried; the float64 entry's
        count is the exactly zero columns. For proved relations, the float64 entry of the whole
        matrix, then the rungs of the ladder on the other columns, if it ran.
    tolerances : tuple of Tolerance
        The thresholds used on this matrix (``borderline`` with its value).
    note : str or None
        Why the ladder could not decide, when columns stayed unresolved (:mod:`~identcheck.rank.rule`, step 3).
    proof : IntervalCertificate or None
        When the independence was proved (:mod:`~identcheck.rank.rule`, step 3a): the proof (its
        ``sigma_min_lower_bound`` a rigorous lower bound), which a certificate reuses.
    settled_by : str or None
        One of :data:`SETTLED_BY`; None when undecided.
    explained : tuple
        When proved relations settled it (:mod:`~identcheck.rank.relations_first`): what
        ``prove_null`` returned with them (the caller's relation records), so that they are not
        read again; empty when the caller must read the null space itself.
    provisional : bool
        True only for the provisional null space handed to ``prove_null``
        (:mod:`~identcheck.rank.relations_first`): read from float64, accurate enough to recognise
        a template by its residual, not to read a raw relation from.
    """

    independent: bool | None
    smallest_singular_value: float
    precision_digits: int
    nullity: int
    null_space: np.ndarray = field(repr=False)
    history: tuple
    tolerances: tuple = field(repr=False)
    note: str | None = None
    proof: IntervalCertificate | None = field(default=None, repr=False)
    settled_by: str | None = None
    explained: tuple = field(default=(), repr=False)
    provisional: bool = False


@dataclass(frozen=True, slots=True)
class ProvedNull:
    """What ``prove_null`` returns (:mod:`~identcheck.rank.relations_first`): the relations it proved exactly.

    Attributes
    ----------
    vectors : tuple of tuple of (int, Fraction)
        Each proved relation's non-zero coefficients by column, exact rationals.
    records : tuple
        The caller's records of the same relations, in the same order (returned in
        ``RankDecision.explained``).
    """

    vectors: tuple
    records: tuple
