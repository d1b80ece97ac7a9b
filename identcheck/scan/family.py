"""One scanned family — an expression (φ, or an expert h) with one or two constants scanned — for
any registered condition (:mod:`identcheck.scan`).

:class:`Family` is the scan's one code path: a grid value's condition (:meth:`Family.condition_at`)
is :func:`~identcheck.check.make_condition` with the scanned constants written in as exact
numbers, so every condition of the registry scans as it checks, and a new condition module is
scanned with no edit here. On that condition every probe is decided by the driver's own
per-probe core (:func:`~identcheck.check.decide_probe`); the verdict is
:func:`~identcheck.check.verdict_of`'s on the probes that count. :meth:`Family.bisect` shrinks a
verdict change, :meth:`Family.exceptional` checks simple numbers inside a bracket exactly
(:data:`SIMPLE`: p/q with q ≤ 4 and |p/q| ≤ 16, simplest first) with a full
:func:`~identcheck.check.run` (``certify`` as for a check), and :meth:`Family.for_all` turns "not
identifiable at every grid value" into "for every value" when the witness of a full check holds
with the scanned constants left symbolic:

- a condition on φ (one that reads φ as an activation: type1, type2, type1-full) scans through
  :class:`~identcheck.scan.phi.PhiFamily`, the same path made fast — term set and probes built
  once, only φ's placeholders rebound per value — and proves a family hypothesis on φ(z; p);
- any other condition is rebuilt per value; its "for all" is the witness relation re-proved on its
  probe with p symbolic when the condition's matrices carry their symbolic side (the expert
  conditions, :mod:`~identcheck.scan.expert`).
"""

from __future__ import annotations

import inspect

import sympy as sp

from ..check import decide_probe, make_condition, run, verdict_of
from ..conditions import CONDITIONS, Condition, unknown_condition
from ..errors import IdentcheckError
from ..evidence import Evidence, Verdict
from ..rank.rule import DEFAULT_LADDER
from .expert import symbolic_witness
from .params import split_params
from .report import Bracket, ExceptionalPoint, GridValue, ProbeMargin

__all__ = ["SIMPLE", "Family", "reads_phi", "with_value"]

SIMPLE = sorted(
    {sp.Rational(p, q) for q in (1, 2, 3, 4) for p in range(-16 * q, 16 * q + 1)},
    key=lambda r: (r.q, abs(r.p), r.p < 0),
)
_SIMPLE_SET = frozenset(SIMPLE)


def reads_phi(condition: str) -> bool:
    """Whether ``condition`` judges the user's text as an activation φ (its ``subject`` is ``"phi"``) read
    as :meth:`Condition.activation_for` reads it: its term set and probes do not depend on φ's constants."""
    cls = CONDITIONS[condition]
    own = inspect.getattr_static(cls, "activation_for")  # the classmethod object, inherited or not
    return cls.subject == "phi" and own is inspect.getattr_static(Condition, "activation_for")


class Family:
    """The text with its scanned constants, a condition per grid value; evaluates, bisects, checks exactly."""

    def __init__(self, text, params, condition, dim, seed, points_per_term, options):
        if condition not in CONDITIONS:
            raise unknown_condition(condition)
        #: what the text is to the condition (Condition.subject): "phi" or "expert", the parameter errors name
        self.subject = CONDITIONS[condition].subject
        if self.subject is None:  # it fixes what it judges (mha): no expression, no constant to scan
            raise IdentcheckError(
                param="condition",
                value=condition,
                reason="takes no expression (it judges a fixed one): nothing to scan",
            )
        #: what the text is, in the summary ("where phi is defined", "where the expert is defined")
        self.noun = "phi" if self.subject == "phi" else "the expert"
        if not isinstance(text, str):
            raise IdentcheckError(
                param=self.subject, value=text, reason="a scan takes the expression as text, e.g. 'sigmoid(z + b)'"
            )
        self.text, self.condition_name, self.options = text.strip(), condition, options
        self.dim, self.seed, self.points_per_term = dim, seed, points_per_term
        axes, fixed = split_params(self.text, params, self.subject)
        self.axes, self.fixed = tuple(axes), tuple(fixed)
        self._built: dict = {}  # conditions built during the set-up, used once by evaluate
        self.condition = self._first_condition()
        self.probes = self.condition.probes()

    def make(self, values) -> Condition:
        """The condition at exact ``values`` of the scanned constants, as :func:`check` sets it up."""
        return make_condition(
            self.text,
            self.condition_name,
            self.dim,
            self.params_at(values),
            self.seed,
            self.points_per_term,
            DEFAULT_LADDER,
            **self.options,
        )

    def _first_condition(self, enough: int = 2) -> Condition:
        """The condition at the first grid value where the expression is valid (validates every other
        argument); with ``enough`` = 2 a second value's too, to refuse a condition that does not read
        the scanned constants (both are kept for :meth:`evaluate`)."""
        error, built = None, []
        for values in self.points():
            try:
                built.append((values, self.make(values)))
            except IdentcheckError as exc:
                if not _about_expression(exc):
                    raise
                error = error or exc
            if len(built) == enough:
                break
        if not built:
            raise IdentcheckError(
                param=self.subject, value=self.text, reason=f"no grid value gives a valid expression (first: {error})"
            )
        if len(built) == 2 and built[0][1].activation.text == built[1][1].activation.text:
            names = ", ".join(a.name for a in self.axes)
            raise IdentcheckError(
                param="condition",
                value=self.condition_name,
                reason=f"does not read the scanned constant(s) {names} of {self.text!r}: "
                "every value would give the same verdict",
            )
        self._built = dict(built)
        return built[0][1]

    def points(self) -> list:
        grids = [a.values for a in self.axes]
        return [(u,) for u in grids[0]] if len(grids) == 1 else [(u, v) for u in grids[0] for v in grids[1]]

    def params_at(self, values) -> dict:
        return dict(self.fixed) | {a.name: v for a, v in zip(self.axes, values)}

    def condition_at(self, values) -> Condition:
        """The condition at ``values`` (raises IdentcheckError where the expression is not valid)."""
        built = self._built.pop(tuple(values), None)
        return built if built is not None else self.make(values)

    def evaluate(self, values) -> GridValue:
        """Verdict and per-probe margins at one grid value (or the reason it has none)."""
        margins = []
        try:
            condition = self.condition_at(values)
            for index, probe in enumerate(condition.probes()):
                _, decision, dependent = decide_probe(condition, probe, index, relations_first=False)
                counts = probe.counts and probe.admissible
                margins.append(
                    ProbeMargin(
                        probe.name, decision.smallest_singular_value, decision.precision_digits, dependent, counts
                    )
                )
        except IdentcheckError as exc:
            if not _about_expression(exc):
                raise
            return GridValue(tuple(values), None, (), _reason(exc))
        return GridValue(tuple(values), verdict_of(m.dependent for m in margins if m.counts), tuple(margins))

    def bisect(self, axis, base, lo, hi, lo_verdict, hi_verdict, target) -> Bracket:
        """Shrink [lo, hi] along ``axis`` (other axes at ``base``) while the ends keep their verdicts."""
        steps, trail = 0, []
        while hi - lo > target:
            mid = (lo + hi) / 2
            point = self.evaluate(with_value(base, axis, mid))
            verdict = point.verdict
            trail.append((mid, verdict, point.margin))
            if verdict == lo_verdict:
                lo = mid
            elif verdict == hi_verdict:
                hi = mid
            else:  # a third outcome (inconclusive, or the expression invalid there): the bracket stays as it is
                break
            steps += 1
        at = tuple((a.name, base[i]) for i, a in enumerate(self.axes) if i != axis)
        return Bracket(self.axes[axis].name, at, lo, hi, lo_verdict, hi_verdict, target, steps, tuple(trail))

    def exceptional(self, brackets, certify) -> list[ExceptionalPoint]:
        """Full checks at simple numbers of each closed bracket: an end that is a simple number
        and not identifiable on the grid (an isolated exceptional value, e.g. b = 0), else the
        simplest number strictly inside the bracket (if any)."""
        names = [a.name for a in self.axes]
        seen, points = set(), []
        for b in brackets:
            axis = names.index(b.parameter)
            base = [dict(b.at).get(n) for n in names]
            ends = [
                r
                for r, v in ((b.lo, b.lo_verdict), (b.hi, b.hi_verdict))
                if r in _SIMPLE_SET and v != Verdict.IDENTIFIABLE
            ]
            candidates = ends or [r for r in SIMPLE if b.lo < r < b.hi][:1]
            for r in candidates:
                values = tuple(with_value(base, axis, r))
                if values not in seen:
                    seen.add(values)
                    point = self.exact_check(values, certify)
                    points += [point[0]] if point is not None else []
        return points

    def exact_check(self, values, certify) -> tuple | None:
        """(ExceptionalPoint, its condition, its CheckResult): a full check at exact ``values``
        (None where the expression is not valid there)."""
        try:
            setup = self.make(values)
            result = run(setup, certify=certify)
        except IdentcheckError as exc:
            if not _about_expression(exc):
                raise
            return None
        witness = result.witness_probe
        relation = None if witness is None else witness.relation
        hypothesis = None if relation is None else relation.hypothesis or getattr(relation, "template", None)
        point = ExceptionalPoint(
            values=tuple(zip([a.name for a in self.axes], values)),
            verdict=result.verdict,
            evidence=str(result.evidence),
            family=None if relation is None else relation.family,
            relation=None if relation is None else str(relation),
            proved=result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF,
            summary=result.summary,
            hypothesis=hypothesis,  # φ: the property behind the family; an expert: the template sharing it
        )
        return point, setup, result

    def for_all(self, grid):
        """A :class:`~identcheck.scan.report.ForAll` when every evaluated value is not identifiable and
        the witness of a full check at one of them holds with the scanned constants symbolic, else None."""
        evaluated = [g for g in grid if g.verdict is not None]
        if not evaluated or any(g.verdict != Verdict.NOT_IDENTIFIABLE for g in evaluated):
            return None
        return self.symbolic_reading(evaluated[0].values)

    def symbolic_reading(self, values):
        """The "for all" reading at grid ``values``: the witness relation re-proved with the constants
        symbolic (:func:`~identcheck.scan.expert.symbolic_witness`; None for a condition whose matrices
        carry no symbolic side — it claims nothing beyond the grid). :class:`~identcheck.scan.phi.PhiFamily`
        reads φ's family hypotheses instead."""
        return symbolic_witness(self, values)


def _about_expression(exc: IdentcheckError) -> bool:
    """An error about the expression at these values (reported per grid value), not about an argument."""
    return exc.param in ("phi", "expert")


def with_value(base, axis, value) -> list:
    out = list(base)
    out[axis] = value
    return out


def _reason(exc: IdentcheckError) -> str:
    """The error at a grid value, without the expression's text (the grid value says it): ``phi: …``."""
    return f"{exc.param}: {exc.reason}"
