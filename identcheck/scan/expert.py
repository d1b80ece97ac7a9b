"""Scan an expert's fixed constant for the DeepSeekMoE conditions (issue 25): verdicts over a grid.

``identcheck scan 'k2*sigmoid(dot(k1, x) + b)' --condition deepseek-weak --param b=-2:2:9`` fixes
``b`` at each grid value (exactly, as ``--param`` does), sets the condition up and decides every
probe with the rank rule of :func:`~identcheck.check.decide_probe`; the verdict per value is
:func:`~identcheck.check.verdict_of`'s. Where the verdict changes between grid neighbours the
bracket is bisected at exact rational midpoints down to ``width``, and a simple number inside it
(p/q, q ≤ 4, |p/q| ≤ 16; a bracket end first when it is simple and not identifiable) is checked in
full — relations named, proved and classified by reach. The result is a
:class:`~identcheck.scan.report.ScanResult`, rendered as φ's scans are.

Unlike φ's scan (:mod:`~identcheck.scan`), which compiles the term set once with the constant
symbolic, every value here rebuilds the condition (the expert's members are compiled with the
constant written in): about 0.1–1 s per value at d = 2, in one process; no ``--certify``, no
"for all" family proof.
"""

from __future__ import annotations

import json
import time

import sympy as sp

from ..check import check, decide_probe, make_condition, verdict_of
from ..environment import environment
from ..errors import IdentcheckError
from ..evidence import Verdict
from ..grammar import parse_param
from ..progress import StatusLine
from .report import Bracket, ExceptionalPoint, GridValue, ProbeMargin, ScanResult, exact, split_params
from .summary import summarize

__all__ = ["expert_scan", "expert_scan_command"]

MAX_BRACKETS = 24
WIDTH_FRACTION = sp.Rational(1, 10000)
#: simple numbers tried inside a bracket, simplest first
SIMPLE = sorted(
    {sp.Rational(p, q) for q in range(1, 5) for p in range(-16 * q, 16 * q + 1)}, key=lambda r: (r.q, abs(r.p), r.p < 0)
)


class _Expert:
    """The expert, its fixed constants and scanned axes; evaluates one grid value."""

    def __init__(self, text, params, condition, dim, seed, points_per_term):
        if not condition.startswith("deepseek-"):
            raise IdentcheckError(f"condition={condition!r}: an expert scan takes deepseek-shared, -routed or -weak")
        self.text, self.condition, self.dim, self.seed, self.ppt = text, condition, dim, seed, points_per_term
        self.axes, self.fixed = split_params(text, params)
        self.probe_names: tuple = ()

    def params_at(self, values) -> dict:
        return dict(self.fixed) | {a.name: v for a, v in zip(self.axes, values)}

    def evaluate(self, values) -> GridValue:
        try:
            setup = make_condition(self.text, self.condition, self.dim, self.params_at(values), self.seed, self.ppt)
            probes = setup.probes()
            margins = []
            for index, probe in enumerate(probes):
                _, decision, dependent = decide_probe(setup, probe, index)
                margins.append(
                    ProbeMargin(probe.name, decision.smallest_singular_value, decision.precision_digits, dependent)
                )
        except IdentcheckError as exc:
            return GridValue(tuple(values), None, reason=str(exc))
        self.probe_names = self.probe_names or tuple(p.name for p in probes)
        return GridValue(tuple(values), verdict_of(m.dependent for m in margins), tuple(margins))

    def points(self) -> list:
        axes = [[a.lo + (a.hi - a.lo) * sp.Rational(i, a.count - 1) for i in range(a.count)] for a in self.axes]
        return [(v,) for v in axes[0]] if len(axes) == 1 else [(u, v) for u in axes[0] for v in axes[1]]

    def bisect(self, axis, base, lo, hi, lo_verdict, hi_verdict, target) -> Bracket:
        trail, steps = [], 0
        while hi - lo > target:
            mid = (lo + hi) / 2
            values = list(base)
            values[axis] = mid
            g = self.evaluate(values)
            trail.append((mid, g.verdict, g.margin))
            steps += 1
            if g.verdict is None:
                break
            if g.verdict == lo_verdict:
                lo = mid
            else:
                hi, hi_verdict = mid, g.verdict
        at = tuple((a.name, base[i]) for i, a in enumerate(self.axes) if i != axis)
        return Bracket(self.axes[axis].name, at, lo, hi, lo_verdict, hi_verdict, target, steps, tuple(trail))

    def exceptional(self, bracket: Bracket) -> ExceptionalPoint:
        ends = [v for v in (bracket.lo, bracket.hi) if v in SIMPLE]
        bad = [
            v
            for v, d in ((bracket.lo, bracket.lo_verdict), (bracket.hi, bracket.hi_verdict))
            if v in ends and d != Verdict.IDENTIFIABLE
        ]
        value = bad[0] if bad else next((r for r in SIMPLE if bracket.lo <= r <= bracket.hi), bracket.lo)
        values = dict(bracket.at) | {bracket.parameter: value}
        params = dict(self.fixed) | values
        result = check(self.text, condition=self.condition, dim=self.dim, params=params, seed=self.seed)
        relation = result.witness_probe.relation if result.witness_probe is not None else None
        return ExceptionalPoint(
            values=tuple((a.name, values[a.name]) for a in self.axes),
            verdict=result.verdict,
            evidence=str(result.evidence),
            family=None if relation is None else relation.family,
            relation=None if relation is None else str(relation),
            proved=bool(relation is not None and relation.proved),
            summary=result.summary,
            hypothesis=None if relation is None else getattr(relation, "template", None),
        )


def _edges(grid, axes) -> list:
    """(axis, base values, lo, hi, lo verdict, hi verdict) for each pair of grid neighbours that differ."""
    shape = [a.count for a in axes]
    index = {g.values: g for g in grid}
    points = [g.values for g in grid]
    edges = []
    for values in points:
        for axis in range(len(axes)):
            position = [round(float((v - a.lo) / (a.hi - a.lo) * (n - 1))) for v, a, n in zip(values, axes, shape)]
            if position[axis] + 1 >= shape[axis]:
                continue
            nxt = list(values)
            a = axes[axis]
            nxt[axis] = a.lo + (a.hi - a.lo) * sp.Rational(position[axis] + 1, shape[axis] - 1)
            g, h = index[tuple(values)], index.get(tuple(nxt))
            if h is not None and g.verdict is not None and h.verdict is not None and g.verdict != h.verdict:
                edges.append((axis, values, values[axis], nxt[axis], g.verdict, h.verdict))
    return edges


def expert_scan(
    expert: str,
    params,
    condition: str = "deepseek-weak",
    dim: int = 2,
    seed: int = 0,
    points_per_term: int = 4,
    width=None,
    max_brackets: int = MAX_BRACKETS,
    progress=None,
) -> ScanResult:
    """Scan one or two fixed constants of ``expert`` (``params``: NAME → (lo, hi, count) or a value)."""
    started = time.perf_counter()
    family = _Expert(expert, params, condition, dim, seed, points_per_term)
    report = progress or (lambda done, total, stage: None)
    targets = [(a.hi - a.lo) * WIDTH_FRACTION if width is None else exact("width", width, True) for a in family.axes]
    points = family.points()
    grid = []
    for done, values in enumerate(points, 1):
        grid.append(family.evaluate(values))
        report(done, len(points), "grid")
    clock = [("grid", time.perf_counter() - started)]
    edges = _edges(grid, family.axes)
    brackets = []
    for done, (axis, base, lo, hi, vl, vh) in enumerate(edges[:max_brackets], 1):
        brackets.append(family.bisect(axis, base, lo, hi, vl, vh, targets[axis]))
        report(done, min(len(edges), max_brackets), "bisection")
    clock.append(("bisection", time.perf_counter() - started))
    exceptional = []
    for bracket in brackets:  # two brackets around one isolated value give it once
        point = family.exceptional(bracket)
        if all(point.values != e.values for e in exceptional):
            exceptional.append(point)
    clock.append(("exact checks", time.perf_counter() - started))
    return ScanResult(
        phi=expert,
        condition=condition,
        dim=dim,
        seed=seed,
        axes=tuple(family.axes),
        fixed=tuple(family.fixed),
        grid=tuple(grid),
        probe_names=family.probe_names,
        brackets=tuple(brackets),
        exceptional=tuple(exceptional),
        for_all=None,
        summary=summarize(family.axes, grid, exceptional, None),
        certified=False,
        seconds=round(time.perf_counter() - started, 2),
        skipped_brackets=max(0, len(edges) - max_brackets),
        timings=tuple((stage, round(t - (clock[i - 1][1] if i else 0.0), 2)) for i, (stage, t) in enumerate(clock)),
        environment=environment(),
    )


def expert_scan_command(args, params) -> int:
    """``identcheck scan EXPERT --condition deepseek-…``: the command line's part (text or --json)."""
    if args.certify:
        raise IdentcheckError(
            "--certify: an expert scan does not certify (check a value with identcheck check --certify)"
        )
    if args.plot is not None:
        raise IdentcheckError("--plot: an expert scan draws no plot yet (use --json)")
    width = None if args.width is None else parse_param(f"width={args.width}")[1]
    with StatusLine.for_command(asked=args.progress, json=args.json) as status:
        result = expert_scan(
            args.phi,
            params,
            args.condition,
            args.dim,
            args.seed,
            args.points_per_term,
            width,
            progress=lambda done, total, stage: status.show(f"scan {stage}: {done}/{total}"),
        )
    print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) if args.json else result.to_text())
    return 0
