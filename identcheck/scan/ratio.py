"""Every ratio c of parallel experts (shared M, a2 = c·a1): a scan over c (docs/scan.md, "Every ratio").

The families G_s(c) of :mod:`~identcheck.rank.parallel` do not depend on M, a or d, so a verdict at a
ratio c is the verdict of the stratum {shared M, a2 = c·a1} for every (M, a ≠ 0) and every d (φ
real-analytic on ℝ). :class:`RatioFamily` is a :class:`~identcheck.scan.family.Family` whose one axis
is c: its grid, the bisection of verdict changes (:meth:`Family.bisect`) and the choice of simple
numbers inside a bracket (:meth:`Family.exceptional`) are the scan's own; a grid value is decided
per family G_s(c) with the check's rank rule, and a simple ratio is checked exactly by a full check
of the probe "shared M, a2 = c·a1" at that c (relations named by family and proved exactly).
The grid holds the COUNT equally spaced ratios and every simple number p/q (q ≤ 4) inside the range,
where an isolated exceptional ratio such as c = 2 for exp(z) + exp(2z) is found. Between grid values,
:func:`~identcheck.rank.parallel.certify_interval` is tried on each grid cell
[c_i, c_(i+1)] with c one ball: a cell it passes is proved free of exceptional ratios.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace
from fractions import Fraction

import sympy as sp
from threadpoolctl import threadpool_limits

from ..check import make_condition, run
from ..errors import IdentcheckError
from ..evidence import Evidence, Verdict
from ..parse.analyticity import real_singularities
from ..rank.parallel import certify_interval, decide_at, family_name, maximal_families
from ..terms.probes import Component, Probe
from ..terms.strata import Stratum
from .family import SIMPLE, Family
from .override import found_dependence
from .params import Axis, exact, number
from .report import ExceptionalPoint, GridValue, ProbeMargin

__all__ = ["RatioScan", "parse_ratios", "scan_ratios", "DEFAULT_COUNT"]

DEFAULT_COUNT = 17
EXCLUDED = (sp.Integer(-1), sp.Integer(0), sp.Integer(1))
MAX_SIZE = 10**6  # |c| and the denominator of c, at each end of a range
MAX_TEXT = 40  # characters of one end
_EXPONENT = re.compile(r"[eE][+-]?0*\d{3,}")  # an exponent of 100 or more: refused before Fraction expands it
LIMIT = "each end at most 10⁶ in size, its denominator at most 10⁶"
SHARED = "shared M, random a"


def parse_ratios(text) -> tuple:
    """``'LO:HI'`` or ``'LO:HI:COUNT'`` (exact numbers) → (lo, hi, count); an empty range, or one
    containing 0 or ±1 (other strata), is an IdentcheckError naming ``ratios``."""
    parts = str(text).split(":") if not isinstance(text, (tuple, list)) else list(text)
    if len(parts) not in (2, 3):
        raise IdentcheckError(param="ratios", value=text, reason="write LO:HI or LO:HI:COUNT, e.g. 3/2:4")
    lo, hi = (_number(text, p) for p in parts[:2])
    count = DEFAULT_COUNT
    if len(parts) == 3:
        try:
            count = int(parts[2])
        except (TypeError, ValueError):
            count = 0
        if not 2 <= count <= 1001 or str(count) != str(parts[2]).strip():
            raise IdentcheckError(param="ratios", value=text, reason="COUNT must be an integer from 2 to 1001")
    if not lo < hi:
        raise IdentcheckError(param="ratios", value=text, reason=f"the range [{lo}, {hi}] is empty (need LO < HI)")
    inside = [c for c in EXCLUDED if lo <= c <= hi]
    if inside:
        raise IdentcheckError(
            param="ratios",
            value=text,
            reason=f"contains c = {inside[0]}: c = 0, 1, −1 are other strata (a constant expert, equal "
            "components, the sign pair); scan ranges on one side of them",
        )
    return lo, hi, count


def _number(text, part):
    if isinstance(part, str):
        part = part.strip()
        if len(part) > MAX_TEXT or _EXPONENT.search(part):
            raise IdentcheckError(param="ratios", value=text, reason=f"{part[:24]!r} is too large a number ({LIMIT})")
        try:
            part = Fraction(part)  # the grammar of fractions.Fraction, never evaluated
        except (ValueError, ZeroDivisionError, OverflowError):
            raise IdentcheckError(param="ratios", value=text, reason=f"{part!r} is not an exact number") from None
    try:
        value = exact("ratios", part)
        too_large = abs(value) > MAX_SIZE or value.q > MAX_SIZE
    except (ValueError, OverflowError):
        too_large = True
    if too_large:
        raise IdentcheckError(
            param="ratios",
            value=text,
            reason=f"{str(part)[:24]} is too large a number ({LIMIT})",
        )
    return value


def ratio_probe(condition, c) -> Probe:
    """The probe "shared M, a2 = c·a1" at ``c``, on the M and a1 of the condition's own probe."""
    shared = _shared_probe(condition)
    if shared is None:
        raise IdentcheckError(f"the ratio scan needs the probe {SHARED!r} of the type-1 condition")
    M, a = shared.components[0].M, shared.components[0].a
    one = sp.Integer(1)
    return Probe(
        f"shared M, a2 = {c}·a1",
        (Component(M, a), Component(M, tuple(c * v for v in a))),
        stratum=Stratum((0, 0), ((0, one), (0, c))),
    )


def _shared_probe(condition) -> Probe | None:
    return next((p for p in condition.probes() if p.name.startswith(SHARED)), None)


class RatioFamily(Family):
    """The scan's :class:`Family` with the ratio c as its axis (the condition: type-1 on φ)."""

    def __init__(self, condition, lo, hi, count, families):
        self.subject, self.noun = "phi", "phi"
        self.text, self.condition_name, self.options = condition.activation.text, condition.name, {}
        self.dim, self.seed, self.points_per_term = condition.dim, condition.seed, condition.points_per_term
        self.axes, self.fixed = (Axis("c", lo, hi, count),), ()
        self.condition, self.families, self._built = condition, families, {}
        self.probes = ()
        self.proved: dict = {}  # c → every family's independence at c proved (RankDecision.proof)
        self.witnesses: dict = {}  # c → the exact check's witness ProbeResult (None: none)

    def evaluate(self, values) -> GridValue:
        (c,) = values
        margins, decisions = [], []
        for family in self.families:
            decision = decide_at(family, self.condition.activation, c, self.condition.ladder)
            if decision is None:
                return GridValue(tuple(values), None, (), "phi: not finite at c·z")
            decisions.append(decision)
            dependent = None if decision.independent is None else not decision.independent
            margins.append(
                ProbeMargin(family_name(family), decision.smallest_singular_value, decision.precision_digits, dependent)
            )
        outcomes = [m.dependent for m in margins]
        self.proved[c] = all(d is not None and d.proof is not None for d in decisions)
        verdict = (
            Verdict.NOT_IDENTIFIABLE
            if any(o is True for o in outcomes)
            else Verdict.INCONCLUSIVE
            if any(o is None for o in outcomes)
            else Verdict.IDENTIFIABLE
        )
        return GridValue(tuple(values), verdict, tuple(margins))

    def exact_check(self, values, certify):
        (c,) = values
        probe = ratio_probe(self.condition, c)
        setup = self.condition
        cls = type(setup)
        one = cls.__new__(cls)
        one.__dict__.update(setup.__dict__)
        one.probes = lambda: [probe]  # the full check of this probe alone
        result = run(one, certify=certify)
        self.witnesses[c] = result.witness_probe
        relation = result.witness_probe.relation if result.witness_probe is not None else None
        point = ExceptionalPoint(
            values=(("c", c),),
            verdict=result.verdict,
            evidence=str(result.evidence),
            family=None if relation is None else relation.family,
            relation=None if relation is None else str(relation),
            proved=result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF,
            summary=result.summary,
            hypothesis=None if relation is None else relation.hypothesis,
        )
        return point, one, result


@dataclass(frozen=True, slots=True)
class RatioScan:
    """Every ratio c in [lo, hi]: the grid, the brackets of verdict changes, the exact checks at simple
    ratios, the grid cells proved free (c one ball), and the statement; ``why_not`` when not run."""

    lo: sp.Rational
    hi: sp.Rational
    count: int
    grid: tuple = ()
    brackets: tuple = ()
    exceptional: tuple = ()
    proved_free: tuple = ()  # ((u, v), ...) merged cells proved free of exceptional ratios
    statement: str = ""
    why_not: str | None = None
    seconds: float = 0.0
    witnesses: tuple = field(default=(), compare=False, repr=False)  # per exceptional ratio: its ProbeResult or None

    def to_dict(self) -> dict:
        return {
            "range": [number(self.lo), number(self.hi)],
            "count": self.count,
            "statement": self.statement,
            "why_not": self.why_not,
            "exceptional": [
                {
                    "c": number(p.values[0][1]),
                    "verdict": str(p.verdict),
                    "family": p.family,
                    "relation": p.relation,
                    "proved": p.proved,
                }
                for p in self.exceptional
            ],
            "brackets": [[number(b.lo), number(b.hi), str(b.lo_verdict), str(b.hi_verdict)] for b in self.brackets],
            "not_identifiable_at": [number(g.values[0]) for g in self.grid if g.verdict == Verdict.NOT_IDENTIFIABLE],
            "proved_free": [[number(u), number(v)] for u, v in self.proved_free],
            "smallest_margin": min(
                (g.margin for g in self.grid if g.margin is not None and g.verdict == Verdict.IDENTIFIABLE),
                default=None,
            ),
        }


def scan_ratios(condition, lo, hi, count=DEFAULT_COUNT, certify=False, seconds=30.0) -> RatioScan:
    """The ratio scan of :mod:`identcheck.scan.ratio` on a type-1 ``condition``, within ``seconds`` for
    the interval proofs between grid values."""
    started = time.perf_counter()
    families = maximal_families(condition.term_set)
    singular = real_singularities(condition.activation.expr)
    if families is None or not singular.empty or _shared_probe(condition) is None:
        why = (
            "the term set is not of the lemma's form"
            if families is None
            else f"phi is not decided real-analytic on ℝ ({singular.describe()})"
            if not singular.empty
            else f"the scan needs the probe {SHARED!r} (its M and a1), which this condition lacks"
        )
        return RatioScan(lo, hi, count, statement=f"every ratio: not scanned ({why})", why_not=why)
    family = RatioFamily(condition, lo, hi, count, families)
    simple = [r for r in SIMPLE if lo < r < hi]  # isolated exceptional ratios sit at simple numbers (c = 2, 1/2)
    grid = [family.evaluate((c,)) for c in sorted(set(family.axes[0].values) | set(simple))]
    target = (hi - lo) / 1024
    brackets = [
        family.bisect(0, [None], g.values[0], h.values[0], g.verdict, h.verdict, target)
        for g, h in zip(grid, grid[1:])
        if g.verdict is not None and h.verdict is not None and g.verdict != h.verdict
    ]
    exceptional = family.exceptional(brackets, certify)
    cells: list = []
    deadline = started + seconds
    for g, h in zip(grid, grid[1:]):
        if time.perf_counter() > deadline:
            break
        if g.verdict == h.verdict == Verdict.IDENTIFIABLE:
            certs = [certify_interval(f, condition.activation, g.values[0], h.values[0]) for f in families]
            if all(c is not None and c.proved for c in certs):
                if cells and cells[-1][1] == g.values[0]:
                    cells[-1] = (cells[-1][0], h.values[0])
                else:
                    cells.append((g.values[0], h.values[0]))
    proved = sum(family.proved.get(g.values[0], False) for g in grid)
    statement = _statement(lo, hi, grid, exceptional, cells, condition.dim, proved)
    return RatioScan(
        lo,
        hi,
        count,
        tuple(grid),
        tuple(brackets),
        tuple(exceptional),
        tuple(cells),
        statement,
        seconds=round(time.perf_counter() - started, 3),
        witnesses=tuple(family.witnesses.get(p.values[0][1]) for p in exceptional),
    )


def _statement(lo, hi, grid, exceptional, cells, dim, proved=0) -> str:
    """The one-line outcome. A grid ratio's verdict is the rank rule's: numeric evidence unless its
    independence was proved (``proved`` grid ratios); dependence at a grid ratio is numeric, and
    proved only by an exact check (``exceptional``). Undecided grid ratios are named."""
    where = f"shared M, a2 = c·a1, c in [{number(lo)}, {number(hi)}]"
    bad = [number(g.values[0]) for g in grid if g.verdict == Verdict.NOT_IDENTIFIABLE]
    undecided = [number(g.values[0]) for g in grid if g.verdict not in (Verdict.IDENTIFIABLE, Verdict.NOT_IDENTIFIABLE)]
    named = [
        f"c = {number(p.values[0][1])} ({p.family or 'a relation'}{', proved' if p.proved else ''})"
        for p in exceptional
        if p.verdict == Verdict.NOT_IDENTIFIABLE
    ]
    dims = "every d" if dim > 1 else "d = 1"
    parts = [f"every ratio ({where}; a ratio's verdict holds for every (M, a ≠ 0), {dims}):"]
    if not bad and not undecided:
        evidence = (
            "proved at each"
            if proved == len(grid)
            else "numeric evidence" + (f"; proved at {proved}" if proved else "")
        )
        parts.append(f"independent at all {len(grid)} grid ratios ({evidence})")
    else:
        parts.append(
            f"dependent at {len(bad)} of {len(grid)} grid ratios"
            + (f" ({', '.join(bad[:6])}{', …' if len(bad) > 6 else ''})" if bad else "")
            + " (numeric evidence)"
        )
        if undecided:
            shown = ", ".join(undecided[:6]) + (", …" if len(undecided) > 6 else "")
            parts.append(f"undecided at {len(undecided)} (c = {shown})")
    if named:
        parts.append("exceptional " + ", ".join(named))
    covered = sum((v - u for u, v in cells), sp.Integer(0))
    parts.append(
        "between grid ratios: not proved (interval margins too small)"
        if not cells
        else f"proved free on {float(covered / (hi - lo)):.0%} of the range"
    )
    return " ".join(parts[:1]) + " " + "; ".join(parts[1:])


def refuse_bad_ratios(ratios, conditions) -> None:
    """Refuse, before any job runs, a ``ratios`` range :func:`parse_ratios` refuses, or one asked of a
    condition (in ``conditions``) other than type1."""
    parse_ratios(ratios)
    other = next((c for c in conditions if c != "type1"), None)
    if other is not None:
        raise IdentcheckError(param="ratios", value=ratios, reason=f"applies to type1 only, not {other}")


def check_every_ratio(phi, ratios, *, certify: bool = False, progress=None, include_inadmissible=False, **arguments):
    """:func:`identcheck.check` of a type-1 φ, then the scan of every ratio c in ``ratios`` (``"LO:HI[:COUNT]"``
    or (lo, hi[, count])) of parallel experts, shared M and a2 = c·a1 (module docstring);
    ``details["ratios"]`` holds the outcome. A ratio proved exceptional makes the verdict *not identifiable*
    (proof), the stratum's, its probe "shared M, a2 = c·a1" the witness (:mod:`identcheck.scan.override`).
    A range that is empty or contains 0 or ±1, or a condition other than type1, is refused
    (:class:`~identcheck.errors.IdentcheckError`) before any probe runs."""
    started = time.perf_counter()
    lo, hi, count = parse_ratios(ratios)
    condition = arguments.pop("condition", "type1")
    if condition != "type1":
        raise IdentcheckError(param="ratios", value=ratios, reason=f"applies to type1 only, not {condition}")
    setup = make_condition(phi, condition, **arguments)
    if not isinstance(include_inadmissible, bool):
        raise IdentcheckError(param="include_inadmissible", value=include_inadmissible, reason="must be True or False")
    result = run(setup, certify=certify, progress=progress, started=started, include_inadmissible=include_inadmissible)
    with threadpool_limits(limits=1):
        every = scan_ratios(setup, lo, hi, count, certify=certify)
    seconds = round(time.perf_counter() - started, 3)
    result = replace(result, details={**result.details, "ratios": every}, seconds=seconds)
    found = next(((p, w) for p, w in zip(every.exceptional, every.witnesses) if p.proved), None)
    if found is None or result.verdict == Verdict.NOT_IDENTIFIABLE:
        return result
    point, witness = found
    c = point.values[0][1]  # a proved dependence at an admissible ratio: the verdict is that of the stratum there
    summary = (
        f"dependent at the ratio c = {c} of parallel experts (shared M, a2 = {c}·a1), found by the "
        f"ratio scan and proved exactly: {point.relation}"
    )
    return found_dependence(result, witness, setup.scope, summary, "the ratio scan")
