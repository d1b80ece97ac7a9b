"""Per-probe certificates (``--certify``): what a probe's outcome rests on, beyond numerics.

- **independent** → an interval certificate (:mod:`interval`): a square minor of the collocation
  matrix, enclosed in arb balls, is proved nonsingular by ‖I − R·S‖_F < 1. Kind ``"interval"``;
  the detail holds the sample points of the minor (float64 hex, exact), the column scaling, the
  working precision and the bounds — enough to replay it (:func:`identcheck.replay.replay`, which finds
  the condition by name and reads the record, :func:`identcheck.replay.interval_record`;
  :func:`replay_interval` here, given the condition, checks the record against the probe's claim,
  :func:`claim_mismatch`, and repeats the test).
- **dependent** → exact relations: the numerical null space is turned into rational relations
  (:func:`~identcheck.families.recovery.recover_relations`) and each is proved identically zero in x in exact arithmetic
  (:func:`~certify.is_exact_zero`). One proved relation proves the dependence: kind ``"proof"``.
  When all k basis relations are proved *and* the remaining columns are certified independent
  by the interval test, the nullity is exactly k (``"nullity_exact": true``).
- **undecided**, or a test that failed → kind None, with the reason.

A certified probe proves a statement at *its* parameter values only; the verdict says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np
from sympy import Rational

from ..errors import IdentcheckError
from ..evidence import Certificate, CertificateDetail, CertificateKind
from ..families.recovery import recover_relations
from ..families.relations import tied_components
from ..results import Relation
from ..util.budget import Outcome
from .interval import IntervalCertificate, approximate_inverse_test, arb_columns, certify_full_column_rank

__all__ = [
    "IntervalDetail",
    "RelationsDetail",
    "certify_probe",
    "claim_mismatch",
    "dependence_mismatch",
    "hex_points",
    "replay_interval",
]

RECOVERED = "rational relation recovered from a 120-digit null space, proved identically zero in exact arithmetic"


@dataclass(frozen=True, slots=True)
class IntervalDetail:
    """An interval certificate as recorded: the test's outcome (:class:`~identcheck.rank.interval.IntervalCertificate`)
    and what :func:`replay_interval` needs besides — the minor's sample points (float64 hex, exact) and its
    columns' positions in the probe's full column list."""

    test: IntervalCertificate
    points: tuple
    columns: tuple

    @classmethod
    def of(cls, test: IntervalCertificate, points: np.ndarray, columns) -> "IntervalDetail":
        """The record of ``test``: its minor's rows of ``points`` (as hex) and the ``columns``."""
        return cls(test, tuple(map(tuple, hex_points(points[list(test.rows)]))), tuple(int(c) for c in columns))

    @property
    def why_not(self) -> str | None:
        return None if self.test.proved else f"||I - R S||_F < 1 not reached up to {self.test.digits} digits"

    def brief(self) -> str:
        return f"interval, σ_min ≥ {self.test.sigma_min_lower_bound:.2g} at {self.test.digits} digits"

    def to_dict(self, rest: bool = False) -> dict:
        """Schema 1; as a dependence's ``rest_certificate`` (``rest``): columns before points, no ``why_not``."""
        if rest:
            return self.test.to_dict() | {"columns": list(self.columns), "points": [list(p) for p in self.points]}
        where = {"points": [list(p) for p in self.points], "columns": list(self.columns)}
        return self.test.to_dict() | where | ({"why_not": self.why_not} if self.why_not else {})

    @classmethod
    def from_dict(cls, data: dict) -> "IntervalDetail":
        """Read back from the JSON (schema 1); a malformed record is a one-line error."""
        try:
            test = IntervalCertificate(
                bool(data["proved"]),
                tuple(int(r) for r in data["rows"]),
                tuple(int(e) for e in data["column_exponents"]),
                int(data["digits"]),
                float(data["residual_bound"]),
                float(data["sigma_min_lower_bound"]),
                tuple((int(a["digits"]), float(a["residual_bound"])) for a in data["attempts"]),
            )
            return cls(
                test,
                tuple(tuple(str(v) for v in row) for row in data["points"]),
                tuple(int(c) for c in data["columns"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise IdentcheckError(
                f"certificate detail: malformed interval record ({type(exc).__name__}: {exc})"
            ) from None


@dataclass(frozen=True, slots=True)
class RelationsDetail:
    """A dependence's certificate as recorded: the exact relations recovered and proved, and
    whether the nullity is exact (every basis relation proved and the rest of the columns
    certified independent by ``rest``, an :class:`IntervalDetail`; None when no column is left)."""

    nullity: int
    recovered: int
    relations: tuple
    method: str
    nullity_exact: bool
    rest: IntervalDetail | None
    timed_out: int = 0
    why_not: str | None = None

    def brief(self) -> str:
        return f"{len(self.relations)} of {self.nullity} relations exact" + (
            " (nullity exact)" if self.nullity_exact else ""
        )

    def to_dict(self) -> dict:
        data = {
            "nullity": self.nullity,
            "recovered": self.recovered,
            "proved": len(self.relations),
            "relations": [r.to_dict() for r in self.relations],
            "method": self.method,
            "nullity_exact": self.nullity_exact,
        }
        if len(self.relations) == self.nullity:
            data["rest_certificate"] = None if self.rest is None else self.rest.to_dict(rest=True)
        if self.timed_out:  # only when it happened: the JSON keeps its shape otherwise
            data["timed_out"] = self.timed_out
        return data | ({"why_not": self.why_not} if self.why_not else {})


def hex_points(points: np.ndarray) -> list:
    """Points as exact float64 hex strings (``float.fromhex`` reads them back)."""
    return [[float(v).hex() for v in row] for row in np.atleast_2d(points)]


def certify_probe(decision, matrix, prove: Callable[[tuple], bool], relations: tuple) -> tuple[Certificate, tuple]:
    """The certificate of one probe, and its relations (raw ones replaced by proved exact ones).

    Parameters
    ----------
    decision : RankDecision
        The rank decision on ``matrix``.
    matrix : ~identcheck.conditions.base.ProbeMatrix
        The columns decided: ``float64()``, ``arb(digits)``, ``rows(rows, digits)`` (balls
        containing the exact values), ``points``, ``labels``, ``keys`` and ``columns`` (their positions in
        the probe's full column list, recorded for :func:`replay_interval`).
    prove : callable
        ``prove(coefficients)`` → truthy when Σ λ_c column_c ≡ 0 was proved exactly (an
        :class:`~identcheck.util.budget.Outcome` also says when the proof timed out: counted in
        ``detail["timed_out"]``, present only when non-zero).
    relations : tuple of Relation
        What the numerical explanation found.
    """
    values, points, columns = matrix.float64(), matrix.points, list(matrix.columns)
    if decision.independent is None:
        return Certificate(None, "the rank was not settled on the precision ladder; nothing to certify"), relations
    if decision.independent:
        # the rank decision's own proof when it has one (rank.py, 3a); else the test from the start
        cert = decision.proof or certify_full_column_rank(values, matrix.rows, decision.smallest_singular_value)
        detail: CertificateDetail = IntervalDetail.of(cert, points, columns)
        return Certificate(CertificateKind.INTERVAL if cert.proved else None, detail), relations

    exact = recover_relations(decision.null_space, matrix.arb)
    outcomes: list[tuple[tuple, Outcome | bool]] = []
    for c in (c for c in exact if c is not None):
        # after one timeout the probe's budget is spent: the rest count as timed out, untried
        late = outcomes and getattr(outcomes[-1][1], "timed_out", False)
        outcomes.append((c, Outcome(False, True) if late else prove(c)))
    proved = [c for c, outcome in outcomes if outcome]
    timed_out = sum(bool(getattr(outcome, "timed_out", False)) for _, outcome in outcomes)
    exact_relations = tuple(_relation(c, matrix, outcome) for c, outcome in outcomes if outcome)
    recovered = sum(c is not None for c in exact)
    rest_detail, nullity_exact = None, False
    if len(proved) == decision.nullity:
        pivots = {relation[0][0] for relation in proved}
        rest = [j for j in range(values.shape[1]) if j not in pivots]
        if rest:
            cert = certify_full_column_rank(
                values[:, rest], lambda rows, digits: arb_columns(matrix.rows(rows, digits), rest)
            )
            rest_detail = IntervalDetail.of(cert, points, [columns[j] for j in rest])
        nullity_exact = rest_detail is None or rest_detail.test.proved
        if all(r.family is None for r in relations):  # nothing recognised: show the exact relations instead
            relations = exact_relations
    already = any(r.proved for r in relations)
    if proved or not already:
        method = RECOVERED
    else:
        method = (
            "a family relation proved identically zero in exact arithmetic (rational recovery did not prove the basis)"
        )
    why_not = None
    if not (proved or already):
        why_not = (
            "coefficients not recognised as rationals"
            if not recovered
            else "the recovered relations did not reduce to 0 in exact arithmetic"
        ) + (f" ({timed_out} exact proof(s) timed out)" if timed_out else "")
    detail = RelationsDetail(
        decision.nullity, recovered, exact_relations, method, nullity_exact, rest_detail, timed_out, why_not
    )
    return Certificate(CertificateKind.PROOF if proved or already else None, detail), relations


def _relation(coefficients, matrix, outcome=None) -> Relation:
    """A recovered relation, proved; named by the family whose rewrite proved it, if one did."""
    return Relation(
        terms=tuple((matrix.labels[c], float(v)) for c, v in coefficients),
        exact=tuple((matrix.labels[c], str(v)) for c, v in coefficients),
        keys=tuple(matrix.keys[c] for c, _ in coefficients),
        family=getattr(outcome, "family", None),
        hypothesis=getattr(outcome, "hypothesis", None),
        proved=True,
        ties=tied_components(tuple(matrix.keys[c] for c, _ in coefficients)),
    )


def replay_interval(condition, probe: dict, detail: IntervalDetail, relations: list | None = None) -> dict:
    """Re-run the interval test of ``probe`` (its JSON, with its record ``detail``) for ``condition``,
    after checking that the record is the one its probe's claim needs (:func:`claim_mismatch`).

    The condition rebuilds the probe (``condition.probe_from_json``: its component type reads the
    parameters exactly) and its full column list at the recorded points (``full_matrix``, points
    read back exactly from hex); the recorded minor is evaluated in arb at the recorded precision
    and the approximate-inverse test repeated with the recorded column scaling. Returns the new bounds
    and ``reason`` (None when proved): a record that does not fit the claim is not replayed at all
    (bounds ∞ and 0). A record that cannot be read against its probe is a one-line IdentcheckError.
    """
    test = detail.test
    try:
        points = np.array([[float.fromhex(v) for v in row] for row in detail.points])
        rebuilt = condition.probe_from_json(probe["name"], probe["components"])
        full = condition.full_matrix(rebuilt, points)
        if points.shape[1] != condition.dim or not all(0 <= c < len(full.labels) for c in detail.columns):
            raise IndexError(f"{points.shape[1]}-dimensional points, columns {list(detail.columns)}")
        arb = arb_columns(full.arb(test.digits), detail.columns)
    except (KeyError, ValueError, IndexError, TypeError) as exc:
        raise IdentcheckError(
            param="probe",
            value=probe["name"],
            reason=f"the interval record does not fit its probe ({type(exc).__name__}: {exc})",
        ) from None
    reason = claim_mismatch(condition, probe, rebuilt, detail, relations)
    if reason is not None:
        return {"proved": False, "residual_bound": float("inf"), "sigma_min_lower_bound": 0.0, "reason": reason}
    bound, sigma = approximate_inverse_test(arb, list(test.column_exponents), test.digits)
    why = None if bound < 1 else f"‖I − R·S‖_F ≤ {bound:.3g}, not < 1 at {test.digits} digits (recorded "
    why = why and f"{why}{test.residual_bound:.3g}): the record does not prove its minor nonsingular"
    return {"proved": bound < 1, "residual_bound": bound, "sigma_min_lower_bound": sigma, "reason": why}


def claim_mismatch(
    condition, probe: dict, rebuilt, detail: IntervalDetail, relations: list | None = None
) -> str | None:
    """Why ``detail`` is not the interval record the claim of ``probe`` (its JSON) needs, or None.

    What the claim needs is rebuilt from the condition, never read from the record: the condition's
    own probe of that name (``condition.probes()``: its components must be the recorded ones),
    its matrix (``condition.matrix``: the columns the rank decision judged and the sample points).
    An independent probe (``dependent: false``, nullity 0; ``relations`` None) needs a minor on
    exactly all of its columns. A dependent probe of nullity k (``relations``: its k recorded
    relations) needs k relations, each proved again here by the condition's prover, each with its
    own pivot (its first column) that no other relation uses — so they are linearly independent —
    and a minor on exactly the columns that are not pivots: then the nullity is exactly k. The
    minor's rows must be distinct sample points of the probe (as many as its columns, inside the
    sampled domain).
    """
    name = probe["name"]
    own = next(((i, p) for i, p in enumerate(condition.probes()) if p.name == name), None)
    if own is None:
        return f"the condition {condition.name!r} has no probe {name!r} (seed {condition.seed})"
    index, expected = own
    if tuple(rebuilt.components) != tuple(expected.components):
        return f"its components are not those of the condition's probe {name!r}: the record is about other parameters"
    k = 0 if relations is None else len(relations)
    if probe.get("dependent") is not (k > 0) or probe.get("nullity") != k:
        return f"the probe is recorded dependent={probe.get('dependent')!r}, nullity={probe.get('nullity')!r}: " + (
            "an interval certificate proves an independent probe" if relations is None else f"{k} relations proved"
        )
    matrix = condition.matrix(expected, index)
    want = list(matrix.columns)
    if relations is not None:
        pivots, why = _proved_pivots(condition.prover(expected, matrix), matrix, relations)
        if why is not None:
            return why
        want = [c for j, c in enumerate(want) if j not in pivots]
    return _minor_mismatch(want, matrix.points, detail, "the probe's" if relations is None else "the rest's")


def dependence_mismatch(condition, probe: dict, relations: list) -> str | None:
    """Why ``relations`` (a dependent probe's recorded exact relations, shape checked) do not prove
    ``probe`` (its JSON) dependent, or None: the condition's own probe of that name, with exactly the
    recorded components, and at least one relation, each proved identically zero again by the
    condition's prover on its columns (a witness of ``not identifiable`` without a rest certificate)."""
    name = probe["name"]
    own = next(((i, p) for i, p in enumerate(condition.probes()) if p.name == name), None)
    if own is None:
        return f"the condition {condition.name!r} has no probe {name!r} (seed {condition.seed})"
    index, expected = own
    try:
        rebuilt = condition.probe_from_json(name, probe["components"])
    except (KeyError, ValueError, TypeError) as exc:
        return f"its components do not read ({type(exc).__name__}: {exc})"
    if tuple(rebuilt.components) != tuple(expected.components):
        return f"its components are not those of the condition's probe {name!r}"
    if not relations:
        return "no exact relation is recorded to prove again"
    matrix = condition.matrix(expected, index)
    return _proved_pivots(condition.prover(expected, matrix), matrix, relations)[1]


def _proved_pivots(prove, matrix, relations: list) -> tuple[set, str | None]:
    """(the relations' pivots, None) when each relation is proved again and its pivot is its own;
    else (…, why not)."""
    where = {_tuples(key): j for j, key in enumerate(matrix.keys)}
    # schema 2 has no keys: a column is read by its label when the probe's labels name one column each
    # (sound: the relations are proved again below on the columns read, whatever a label meant then)
    labelled = {label: j for j, label in enumerate(matrix.labels) if list(matrix.labels).count(label) == 1}
    found = []
    for i, relation in enumerate(relations, 1):
        if "keys" in relation:
            columns = [where.get(_tuples(key)) for key in relation["keys"]]
        else:
            columns = [labelled.get(label) for label, _ in relation["exact"]]
            if None in columns:
                unread = next(label for (label, _), c in zip(relation["exact"], columns) if c is None)
                return set(), (
                    f"schema 2: relations without keys; re-run check (relation {i}'s column {unread!r} is not "
                    "one column of the probe by its label)"
                )
        if None in columns or len(set(columns)) != len(columns):
            return set(), f"relation {i} names columns that are not the probe's (or one twice)"
        shown = [label for label, _ in relation["exact"]]
        if shown != [matrix.labels[c] for c in columns]:  # the text a reader sees must be the relation proved
            return set(), f"relation {i}'s labels {shown} are not those of the columns its keys name"
        try:
            values = [Fraction(text) for _, text in relation["exact"]]
        except (ValueError, ZeroDivisionError):
            return set(), f"relation {i}: a coefficient is not an exact rational"
        if values[0] == 0:
            return set(), f"relation {i}: its pivot (first column) has coefficient 0"
        found.append(list(zip(columns, values)))
    pivots = [c[0][0] for c in found]
    if any(p in {j for j, v in c[1:] if v} for p in pivots for c in found) or len(set(pivots)) != len(pivots):
        return set(), "the relations' pivots (first columns) are not each in one relation only: not independent"
    for i, coefficients in enumerate(found, 1):
        if not prove([(j, Rational(v.numerator, v.denominator)) for j, v in coefficients]):
            return set(), f"relation {i} is not proved identically zero again"
    return set(pivots), None


def _tuples(key):
    return tuple(map(_tuples, key)) if isinstance(key, (list, tuple)) else key


def _minor_mismatch(want: list, points: np.ndarray, detail: IntervalDetail, whose: str) -> str | None:
    got = list(detail.columns)
    if sorted(got) != sorted(want):
        missing = sorted(set(want) - set(got))
        extra = sorted(set(got) - set(want)) + sorted({c for c in got if got.count(c) > 1})
        return (
            f"the minor has {len(got)} columns, {whose} claim needs all {len(want)} of its columns"
            + (f"; missing {_few(missing)}" if missing else "")
            + (f"; not in the claim, or twice: {_few(extra)}" if extra else "")
        )
    rows = list(detail.test.rows)
    if len(set(rows)) != len(rows) or not all(0 <= r < len(points) for r in rows):
        return f"the minor's rows {_few(rows)} are not distinct rows of the {len(points)} sample points"
    if tuple(map(tuple, hex_points(points[rows]))) != tuple(detail.points):
        return "its points are not the probe's sample points at the recorded rows"
    return None


def _few(values: list) -> str:
    return ", ".join(map(str, values[:8])) + (f", … ({len(values)})" if len(values) > 8 else "")
