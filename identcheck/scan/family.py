"""One family φ(z; p) of a scan, built once: the scanned constants symbolic, the condition and
its probes shared by every grid value (:mod:`identcheck.scan`).

:class:`Family` evaluates a grid value (the probes' rank decisions at the bound values,
:func:`~identcheck.check.decide_probe`), bisects a verdict change, checks simple numbers inside a
bracket exactly (:data:`SIMPLE`: p/q with q ≤ 4 and |p/q| ≤ 16, simplest first) and looks for a
family hypothesis that sympy proves with the parameters left symbolic (:class:`ForAll`).
"""

from __future__ import annotations

import copy
import re

import numpy as np
import sympy as sp

from ..activation import Activation
from ..budget import SIMPLIFY_SECONDS
from ..budget import run as budgeted
from ..check import decide_probe, make_condition, run, verdict_of
from ..errors import IdentcheckError
from ..evidence import Evidence, Verdict
from ..grammar import Z, parse_text
from ..rank import DEFAULT_LADDER
from .report import Bracket, ExceptionalPoint, ForAll, GridValue, ProbeMargin, number, split_params

__all__ = ["SIMPLE", "Family", "with_value"]

SIMPLE = sorted(
    {sp.Rational(p, q) for q in (1, 2, 3, 4) for p in range(-16 * q, 16 * q + 1)},
    key=lambda r: (r.q, abs(r.p), r.p < 0),
)
_SIMPLE_SET = frozenset(SIMPLE)


class Family:
    """φ with its scanned parameters symbolic, the condition and probes built once."""

    def __init__(self, phi, params, condition, dim, seed, points_per_term, options):
        if not isinstance(phi, str):
            raise IdentcheckError(f"phi={phi!r}: a scan takes phi as text, e.g. 'sigmoid(z + b)'")
        if condition not in ("type1", "type2"):
            raise IdentcheckError(f"condition={condition!r}: a scan takes type1 or type2")
        self.text, self.condition_name, self.options = phi.strip(), condition, options
        axes, fixed = split_params(phi, params)
        self.axes, self.fixed = tuple(axes), tuple(fixed)
        self.symbols = tuple(sp.Symbol(a.name, real=True) for a in axes)
        expr = parse_text(self.text, dict(fixed) | {a.name: s for a, s in zip(axes, self.symbols)})
        first = sp.diff(expr, Z)
        self.derivatives = (expr, first, sp.diff(first, Z))
        self.numpy = tuple(sp.lambdify((Z, *self.symbols), d, modules=["scipy", "numpy"]) for d in self.derivatives)
        self.condition = self._condition(dim, seed, points_per_term)
        self.probes = self.condition.probes()
        self.bound = max(c.l1 for p in self.probes for c in p.components)

    def _condition(self, dim, seed, points_per_term):
        """make_condition at the first grid value where φ parses (validates every other argument)."""
        error = None
        for values in self.points():
            try:
                return make_condition(
                    self.text,
                    self.condition_name,
                    dim,
                    self.params_at(values),
                    seed,
                    points_per_term,
                    DEFAULT_LADDER,
                    **self.options,
                )
            except IdentcheckError as exc:
                if "phi=" not in str(exc):
                    raise
                error = error or exc
        raise IdentcheckError(f"phi={self.text!r}: no grid value gives a valid phi (first: {error})")

    def points(self) -> list:
        grids = [a.values for a in self.axes]
        return [(u,) for u in grids[0]] if len(grids) == 1 else [(u, v) for u in grids[0] for v in grids[1]]

    def params_at(self, values) -> dict:
        return dict(self.fixed) | {a.name: v for a, v in zip(self.axes, values)}

    def activation_at(self, values) -> Activation:
        subs = dict(zip(self.symbols, values))
        derivatives = tuple(d.xreplace(subs) for d in self.derivatives)
        shown = ", ".join(f"{k}={number(v)}" for k, v in self.params_at(values).items())
        text = f"{self.text} [{shown}]"
        if any(d.has(sp.zoo, sp.oo, -sp.oo, sp.nan) for d in derivatives):
            raise IdentcheckError(f"phi={text!r} is not finite (it contains an infinity or 0/0)")
        floats = [float(v) for v in values]
        functions = tuple(_bind(f, floats) for f in self.numpy)
        return Activation(text=text, expr=derivatives[0], derivatives=derivatives, _numpy=functions)

    def evaluate(self, values) -> GridValue:
        """Verdict and per-probe margins at one grid value (or the reason it has none)."""
        try:
            activation = self.activation_at(values)
            activation.check_domain(self.bound)
        except IdentcheckError as exc:
            return GridValue(tuple(values), None, (), _reason(str(exc)))
        condition = copy.copy(self.condition)
        condition.activation = activation
        margins = []
        for index, probe in enumerate(self.probes):
            try:  # the driver's own per-probe core: the φ-free arb parts are kept by the compiled terms
                _, decision, dependent = decide_probe(condition, probe, index)
            except IdentcheckError as exc:
                return GridValue(tuple(values), None, (), _reason(str(exc)))
            margins.append(
                ProbeMargin(
                    probe.name,
                    decision.smallest_singular_value,
                    decision.precision_digits,
                    dependent,
                    probe.counts and probe.admissible,
                )
            )
        return GridValue(tuple(values), _verdict(margins), tuple(margins))

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
            else:  # a third outcome (inconclusive, or φ invalid there): the bracket stays as it is
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
                    points += [point] if point is not None else []
        return points

    def exact_check(self, values, certify) -> ExceptionalPoint | None:
        """A full check at exact ``values`` (None where φ is not valid there)."""
        try:
            setup = make_condition(
                self.text,
                self.condition_name,
                self.condition.dim,
                self.params_at(values),
                self.condition.seed,
                self.condition.points_per_term,
                DEFAULT_LADDER,
                **self.options,
            )
            result = run(setup, certify=certify)
        except IdentcheckError:
            return None
        witness = result.witness_probe
        relation = None if witness is None else witness.relation
        return ExceptionalPoint(
            values=tuple(zip([a.name for a in self.axes], values)),
            verdict=result.verdict,
            evidence=str(result.evidence),
            family=None if relation is None else relation.family,
            relation=None if relation is None else str(relation),
            proved=result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF,
            summary=result.summary,
            hypothesis=None if relation is None else relation.hypothesis,
        )

    def for_all(self, grid) -> ForAll | None:
        """A family hypothesis proved with the scanned parameters symbolic, when it explains the scan."""
        evaluated = [g for g in grid if g.verdict is not None]
        if not evaluated or any(g.verdict != Verdict.NOT_IDENTIFIABLE for g in evaluated):
            return None
        hypotheses = _symbolic_families(self.derivatives)
        if not hypotheses:
            return None
        point = self.exact_check(evaluated[0].values, certify=False)
        for family, hypothesis in hypotheses:
            if point is not None and point.family is not None and point.family.startswith(family) and point.proved:
                return ForAll(family, hypothesis, tuple(a.name for a in self.axes))
        return None


def _bind(function, values):
    def evaluate(z):
        z = np.asarray(z, dtype=float)
        return np.broadcast_to(np.asarray(function(z, *values)), z.shape)

    return evaluate


def with_value(base, axis, value) -> list:
    out = list(base)
    out[axis] = value
    return out


def _reason(message: str) -> str:
    return re.sub(r"^phi='[^']*'", "phi", message)


def _verdict(margins) -> Verdict:
    """:func:`identcheck.check.conclude`'s rule (:func:`~identcheck.check.verdict_of`) on the probes that count."""
    return verdict_of(m.dependent for m in margins if m.counts)


def _constant_in_z(expr):
    value, _ = budgeted(sp.simplify, expr, seconds=SIMPLIFY_SECONDS)
    if value is None or value.has(Z) or value.has(sp.nan, sp.zoo) or value == 0:
        return None
    return value


def _symbolic_families(derivatives) -> list[tuple[str, str]]:
    """The family hypotheses sympy proves for φ(z; p) with p symbolic: (family, hypothesis)."""
    phi, d1, d2 = derivatives
    out = []
    zero, _ = budgeted(sp.simplify, d2, seconds=SIMPLIFY_SECONDS)
    if zero == 0:
        out.append(("zero second derivative", "phi'' = 0"))
    for family, ratio, shown in (
        ("Euler/homogeneity", Z * d1 / phi, "z*phi' = ({})*phi"),
        ("heat type", d2 / phi, "phi'' = ({})*phi"),
        ("Gaussian type", d2 / (Z * d1), "phi'' = ({})*z*phi'"),
    ):
        if zero != 0 or family == "Euler/homogeneity":
            value = _constant_in_z(ratio)
            if value is not None:
                out.append((family, shown.format(value)))
    for s in (1, -1):
        difference = phi.subs(Z, -Z) - s * phi
        q, _ = budgeted(sp.expand, difference, seconds=1.0)
        if q is None or not q.is_polynomial(Z):
            q, _ = budgeted(sp.simplify, difference, seconds=SIMPLIFY_SECONDS)
        if q is not None and q.is_polynomial(Z):
            out.append(("symmetry", f"phi(-z) = {s}*phi(z) + ({sp.expand(q)})"))
            break
    return out
