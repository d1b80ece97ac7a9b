"""Identifiability maps: one φ(z; p) over a grid of one or two parameters p (issue 13).

For a family φ_p the condition's term set and probes do not depend on p (:mod:`conditions`):
only the placeholders φ^(m)(s) do. So everything is built once:

    φ(z; p), φ'(z; p), φ''(z; p)          sympy, p left symbolic (the grammar reads p as a symbol)
    F_m(z, p) = lambdify(φ^(m))           numpy, once; the terms are compiled once per term set
    columns(x; θ) at p                    = compiled terms with P_m = F_m(aᵀx, p)

and per grid value p only the matrices are evaluated and decided — with the rank rule of
:func:`~identcheck.rank.decide_rank` unchanged (float64; where borderline, a proof of full rank
at 60 digits when float64 sees a value above its rounding floor, else 30/60/120 digits; the arb
path substitutes the exact rational p). Per value: φ's domain check
(:meth:`~identcheck.activation.Activation.check_domain`); a value where it fails is reported
with its reason and the scan goes on. The verdict per value is the rule of
:func:`identcheck.check.conclude`.

**Exceptional set.** Where the verdict differs between grid neighbours (along either axis), the
pair is a bracket [p_lo, p_hi]; bisection at exact rational midpoints, with the same rule,
shrinks it to ``width``. Then a simple number (0, ±1, ±1/2, ±2, ±1/3, …: p/q, q ≤ 4, |p/q| ≤ 16) is
checked exactly by a full :func:`~identcheck.check.run` at that rational value (relations named
and proved by sympy; with ``certify`` also certified): a bracket end that is simple and not
identifiable (an isolated exceptional value such as b = 0), else the simplest number inside.

**For all p.** When every evaluated value is not identifiable, each relation family's
hypothesis (:mod:`~identcheck.families`) is tried with p symbolic: φ'' ≡ 0, zφ'/φ, φ''/φ or
φ''/(zφ') free of z, φ(−z) − sφ(z) a polynomial in z. A hypothesis sympy proves this way holds
for every p where φ is defined, and the family's identity follows from it for every φ
(:mod:`~identcheck.pde`); it is reported only when a full check at a grid value names the same
family as its witness.
"""

from __future__ import annotations

import copy
import re
import time
from typing import Callable, Mapping

import numpy as np
import sympy as sp
from threadpoolctl import threadpool_limits

from .activation import Activation
from .budget import SIMPLIFY_SECONDS, run as budgeted
from .check import decide_probe, make_condition, run, verdict_of
from .environment import environment
from .errors import IdentcheckError
from .evidence import Evidence, Verdict
from .grammar import Z, parse_text
from .pool import WorkerPool
from .rank import DEFAULT_LADDER
from .scan_report import MAX_COUNT, Bracket, ExceptionalPoint, ForAll, GridValue, ProbeMargin, ScanResult, exact, number
from .scan_report import MAX_VALUES, parse_scan_param, split_params
from .scan_summary import summarize

__all__ = ["MAX_BRACKETS", "MAX_COUNT", "MAX_VALUES", "parse_scan_param", "scan"]

MAX_BRACKETS = 24  # verdict changes refined by bisection, at most
WIDTH_FRACTION = sp.Rational(1, 10000)  # default bracket width: (HI − LO) / 10⁴
SIMPLE = sorted(
    {sp.Rational(p, q) for q in (1, 2, 3, 4) for p in range(-16 * q, 16 * q + 1)},
    key=lambda r: (r.q, abs(r.p), r.p < 0),
)
_SIMPLE_SET = frozenset(SIMPLE)
_FAMILY: "_Family | None" = None  # the family a worker process evaluates (set before forking)


def scan(
    phi: str,
    params: Mapping[str, object],
    condition: str = "type1",
    dim: int = 2,
    seed: int = 0,
    points_per_term: int = 4,
    width=None,
    certify: bool = False,
    jobs: int = 1,
    progress: Callable | None = None,
    max_brackets: int = MAX_BRACKETS,
    **options,
) -> ScanResult:
    """Scan ``phi`` over a grid of one or two of its named constants.

    Parameters
    ----------
    phi : str
        The activation in ``z`` and named constants, e.g. ``"sigmoid(z + b)"``.
    params : mapping
        name → ``(lo, hi, count)`` for a scanned parameter (one or two), name → value for a fixed one.
        Values are exact (int, Fraction, sympy Rational; a float is read as the decimal it prints as).
    condition : {"type1", "type2"}
    dim, seed, points_per_term, options
        As for :func:`identcheck.check`.
    width : number, optional
        Bisection stops when a bracket is this narrow (default (hi − lo)/10⁴ of its axis).
    certify : bool
        Certify the exact checks at simple numbers (:mod:`~identcheck.certificates`).
    jobs : int
        Worker processes for the grid and the bisections (1: in this process).
    progress : callable, optional
        ``progress(done, total, stage)``.

    Returns
    -------
    ScanResult

    Examples
    --------
    >>> r = scan("sigmoid(z + b)", {"b": (-1, 1, 3)}, dim=1, width=1)
    >>> [str(g.verdict) for g in r.grid]
    ['identifiable', 'not identifiable', 'identifiable']
    """
    started = time.perf_counter()
    family = _Family(phi, params, condition, dim, seed, points_per_term, options)
    targets = [(a.hi - a.lo) * WIDTH_FRACTION if width is None else exact("width", width, positive=True) for a in family.axes]
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise IdentcheckError(f"jobs={jobs!r}: must be an integer from 1 to 64")
    report = progress or (lambda done, total, stage: None)
    global _FAMILY
    _FAMILY = family
    pool = WorkerPool(jobs, initializer=_one_thread, depth=2) if jobs > 1 else None  # forked: workers inherit _FAMILY
    limits = threadpool_limits(limits=1)  # one BLAS thread per process: on a shared machine 2 threads cost 50x (SPEC §6)
    try:
        clock = [("setup", time.perf_counter() - started)]
        grid = list(_map(pool, _evaluate, family.points(), report, "grid"))
        clock.append(("grid", time.perf_counter() - started))
        edges = _edges(family, grid)
        tasks = [(axis, base, lo, hi, vl, vh, targets[axis]) for axis, base, lo, hi, vl, vh in edges[:max_brackets]]
        brackets = list(_map(pool, _bisect, tasks, report, "bisection"))
        clock.append(("bisection", time.perf_counter() - started))
        if pool is not None:
            pool.close()
            pool = None
        report(0, 1, "exact checks")
        exceptional = family.exceptional(brackets, certify)
        for_all = family.for_all(grid)
        clock.append(("exact checks", time.perf_counter() - started))
    finally:
        if pool is not None:  # an interrupt or an error: the workers are killed at once (identcheck.pool)
            pool.kill()
        limits.restore_original_limits()
        _FAMILY = None
    summary = summarize(family.axes, grid, exceptional, for_all)
    return ScanResult(
        phi=phi, condition=condition, dim=dim, seed=seed, axes=family.axes, fixed=family.fixed, grid=tuple(grid),
        probe_names=tuple(p.name for p in family.probes), brackets=tuple(brackets), exceptional=tuple(exceptional),
        for_all=for_all, summary=summary, certified=certify, seconds=round(time.perf_counter() - started, 2),
        skipped_brackets=max(0, len(edges) - max_brackets), environment=environment(),
        timings=tuple((stage, round(t - (clock[i - 1][1] if i else 0.0), 2)) for i, (stage, t) in enumerate(clock)),
    )


def _map(pool, function, items, report, stage):
    report(0, len(items), stage)
    results = map(function, items) if pool is None else pool.imap(function, items)
    for done, result in enumerate(results, 1):
        report(done, len(items), stage)
        yield result


def _one_thread():
    threadpool_limits(limits=1)


def _evaluate(values):
    return _FAMILY.evaluate(values)


def _bisect(task):
    return _FAMILY.bisect(*task)


class _Family:
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
                return make_condition(self.text, self.condition_name, dim, self.params_at(values), seed, points_per_term, DEFAULT_LADDER, **self.options)
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
            margins.append(ProbeMargin(probe.name, decision.smallest_singular_value, decision.precision_digits, dependent, probe.counts and probe.admissible))
        return GridValue(tuple(values), _verdict(margins), tuple(margins))

    def bisect(self, axis, base, lo, hi, lo_verdict, hi_verdict, target) -> Bracket:
        """Shrink [lo, hi] along ``axis`` (other axes at ``base``) while the ends keep their verdicts."""
        steps, trail = 0, []
        while hi - lo > target:
            mid = (lo + hi) / 2
            point = self.evaluate(_with(base, axis, mid))
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
            ends = [r for r, v in ((b.lo, b.lo_verdict), (b.hi, b.hi_verdict)) if r in _SIMPLE_SET and v != Verdict.IDENTIFIABLE]
            candidates = ends or [r for r in SIMPLE if b.lo < r < b.hi][:1]
            for r in candidates:
                values = tuple(_with(base, axis, r))
                if values not in seen:
                    seen.add(values)
                    point = self.exact_check(values, certify)
                    points += [point] if point is not None else []
        return points

    def exact_check(self, values, certify) -> ExceptionalPoint | None:
        """A full check at exact ``values`` (None where φ is not valid there)."""
        try:
            setup = make_condition(self.text, self.condition_name, self.condition.dim, self.params_at(values), self.condition.seed,
                                   self.condition.points_per_term, DEFAULT_LADDER, **self.options)
            result = run(setup, certify=certify)
        except IdentcheckError:
            return None
        witness = result.witness_probe
        relation = None if witness is None else witness.relation
        return ExceptionalPoint(
            values=tuple(zip([a.name for a in self.axes], values)), verdict=result.verdict, evidence=str(result.evidence),
            family=None if relation is None else relation.family, relation=None if relation is None else str(relation),
            proved=result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF, summary=result.summary,
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


def _with(base, axis, value) -> list:
    out = list(base)
    out[axis] = value
    return out


def _reason(message: str) -> str:
    return re.sub(r"^phi='[^']*'", "phi", message)


def _verdict(margins) -> Verdict:
    """:func:`identcheck.check.conclude`'s rule (:func:`~identcheck.check.verdict_of`) on the probes that count."""
    return verdict_of(m.dependent for m in margins if m.counts)


def _edges(family: _Family, grid) -> list:
    """Neighbouring grid values (along each axis) whose verdicts differ: (axis, base, lo, hi, v_lo, v_hi)."""
    shape = [a.count for a in family.axes]
    index = {tuple(g.values): g for g in grid}
    out = []
    for g in grid:
        for axis, a in enumerate(family.axes):
            values = a.values
            i = values.index(g.values[axis])
            if i + 1 >= shape[axis]:
                continue
            other = index[tuple(_with(g.values, axis, values[i + 1]))]
            if g.verdict is not None and other.verdict is not None and g.verdict != other.verdict:
                out.append((axis, list(g.values), g.values[axis], values[i + 1], g.verdict, other.verdict))
    return out


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
    for family, ratio, shown in (("Euler/homogeneity", Z * d1 / phi, "z*phi' = ({})*phi"), ("heat type", d2 / phi, "phi'' = ({})*phi"),
                                 ("Gaussian type", d2 / (Z * d1), "phi'' = ({})*z*phi'")):
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
