"""Identifiability maps: one expression over a grid of one or two of its constants p (docs/scan.md).

The expression is φ(z; p) for a condition on φ (type1, type2, type1-full) or an expert h(x; θ, p)
for an expert condition (deepseek-shared, -routed, -weak) — any registered condition: each grid
value's condition is the one :func:`~identcheck.check.check` sets up at that exact p
(:class:`~identcheck.scan.family.Family`), for φ made fast (:class:`~identcheck.scan.phi.PhiFamily`:
term set, probes and compiled terms built once, only φ's placeholders F_m(aᵀx, p) rebound). Per
value every probe is decided with the rank rule of :func:`~identcheck.rank.rule.decide_rank`
(float64; where borderline, a proof of full rank at 60 digits when float64 sees a value above its
rounding floor, else 30/60/120 digits, with the exact rational p) — without the relations proved
first, since a scan reads no relations: a dependence is the ladder's, where ``check`` at that value
may settle it by proved relations (the same outcome, other digits and margin); a value where the
expression is not valid (φ's domain check, an expert's members not finite) is reported with its
reason and the scan goes on. The verdict per value is the rule of :func:`identcheck.check.conclude`.

**Exceptional set.** Where the verdict differs between grid neighbours (along either axis), the
pair is a bracket [p_lo, p_hi]; bisection at exact rational midpoints, with the same rule,
shrinks it to ``width``. Then a simple number (0, ±1, ±1/2, ±2, ±1/3, …: p/q, q ≤ 4, |p/q| ≤ 16) is
checked exactly by a full :func:`~identcheck.check.run` at that rational value (relations named
and proved exactly; with ``certify`` also certified): a bracket end that is simple and not
identifiable (an isolated exceptional value such as b = 0), else the simplest number inside.

**For all p.** When every evaluated value is not identifiable, the full check at a grid value
is read with p symbolic: for φ, a relation family's hypothesis proved by sympy for φ(z; p) that
names the check's witness family (:mod:`~identcheck.scan.phi`); for an expert, the witness
relation itself proved with p symbolic (:mod:`~identcheck.scan.expert`).
"""

from __future__ import annotations

import time
from typing import Callable, Mapping

import sympy as sp
from threadpoolctl import threadpool_limits

from ..conditions import CONDITIONS
from ..errors import IdentcheckError
from ..util.environment import environment
from ..util.pool import WorkerPool
from .family import Family, reads_phi, with_value
from .params import exact, parse_scan_param
from .phi import PhiFamily
from .report import MAX_COUNT, MAX_VALUES, ScanResult
from .summary import summarize

__all__ = ["MAX_BRACKETS", "MAX_COUNT", "MAX_VALUES", "parse_scan_param", "scan"]

MAX_BRACKETS = 24  # verdict changes refined by bisection, at most
WIDTH_FRACTION = sp.Rational(1, 10000)  # default bracket width: (HI − LO) / 10⁴
_FAMILY: "Family | None" = None  # the family a worker process evaluates (set before forking)


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
    """Scan ``phi`` (an activation, or an expert for an expert condition) over a grid of one or two of its constants.

    Parameters
    ----------
    phi : str
        The activation in ``z`` and named constants, e.g. ``"sigmoid(z + b)"``; for an expert
        condition the expert, e.g. ``"tanh(dot(e1, x) + b)"`` (:mod:`~identcheck.parse.expert`).
    params : mapping
        name → ``(lo, hi, count)`` for a scanned parameter (one or two), name → value for a fixed one.
        Values are exact (int, Fraction, sympy Rational; a float is read as the decimal it prints as).
    condition : str
        Any registered condition (:data:`~identcheck.conditions.CONDITIONS`) that reads the scanned constants.
    dim, seed, points_per_term, options
        As for :func:`identcheck.check`.
    width : number, optional
        Bisection stops when a bracket is this narrow (default (hi − lo)/10⁴ of its axis).
    certify : bool
        Certify the exact checks at simple numbers (:mod:`~identcheck.rank.certificates`).
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
    kind = PhiFamily if isinstance(condition, str) and condition in CONDITIONS and reads_phi(condition) else Family
    family = kind(phi, params, condition, dim, seed, points_per_term, options)
    targets = [
        (a.hi - a.lo) * WIDTH_FRACTION if width is None else exact("width", width, positive=True) for a in family.axes
    ]
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise IdentcheckError(param="jobs", value=jobs, reason="must be an integer from 1 to 64")
    report = progress or (lambda done, total, stage: None)
    global _FAMILY
    _FAMILY = family
    pool = WorkerPool(jobs, initializer=_one_thread, depth=2) if jobs > 1 else None  # forked: workers inherit _FAMILY
    limits = threadpool_limits(
        limits=1
    )  # one BLAS thread per process: on a busy 2-core machine two cost 35x (docs/performance.md)
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
        if pool is not None:  # an interrupt or an error: the workers are killed at once (identcheck.util.pool)
            pool.kill()
        limits.restore_original_limits()
        _FAMILY = None
    summary = summarize(family.axes, grid, exceptional, for_all, family.noun)
    return ScanResult(
        phi=phi,
        condition=condition,
        dim=dim,
        seed=seed,
        axes=family.axes,
        fixed=family.fixed,
        grid=tuple(grid),
        probe_names=tuple(p.name for p in family.probes),
        brackets=tuple(brackets),
        exceptional=tuple(exceptional),
        for_all=for_all,
        summary=summary,
        certified=certify,
        seconds=round(time.perf_counter() - started, 2),
        skipped_brackets=max(0, len(edges) - max_brackets),
        environment=environment(),
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


def _edges(family: Family, grid) -> list:
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
            other = index[tuple(with_value(g.values, axis, values[i + 1]))]
            if g.verdict is not None and other.verdict is not None and g.verdict != other.verdict:
                out.append((axis, list(g.values), g.values[axis], values[i + 1], g.verdict, other.verdict))
    return out
