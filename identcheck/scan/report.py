"""Results of a scan (:mod:`identcheck.scan`): frozen dataclasses, their JSON, text and markdown.

A scan evaluates one expression (φ(z; p), or an expert h(x; θ, p)) over a grid of one or two
constants p. Per grid value it keeps, per probe, the margin (the scaled smallest singular value the
rank rule used), the precision that settled it (16 = float64, else a ladder rung) and the outcome;
the verdict per value is :func:`identcheck.check.conclude`'s rule. Verdict changes between grid
neighbours are :class:`Bracket` s refined by bisection; simple numbers inside a bracket are checked
exactly (:class:`ExceptionalPoint`); a reading proved with the constants symbolic is a :class:`ForAll`.
The JSON schema (``SCHEMA``) is pinned in docs/scan.md."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..conditions import CONDITIONS
from ..evidence import Verdict
from ..results import hypothesis_text
from ..util.limits import MAX_COUNT, MAX_VALUES
from ..util.markdown import cell, code, table
from .params import Axis, number

__all__ = [
    "MAX_COUNT",
    "MAX_VALUES",
    "SCHEMA",
    "Axis",
    "Bracket",
    "ExceptionalPoint",
    "ForAll",
    "GridValue",
    "ProbeMargin",
    "ScanResult",
    "number",
]

SCHEMA = "identcheck.scan/2"  # docs/changelog.md


def _short(value) -> str:
    """A value for reading: the exact fraction when short, else 6 significant digits."""
    text = number(value)
    return text if len(text) <= 8 else f"{float(value):.6g}"


@dataclass(frozen=True, slots=True)
class ProbeMargin:
    """One probe at one grid value: margin, settling precision, outcome."""

    name: str
    margin: float
    digits: int
    dependent: bool | None
    counts: bool = True

    def to_dict(self) -> dict:
        return {
            "probe": self.name,
            "margin": self.margin,
            "digits": self.digits,
            "dependent": self.dependent,
            "counts": self.counts,
        }


@dataclass(frozen=True, slots=True)
class GridValue:
    """One grid value: the verdict and the probes, or the reason it could not be evaluated."""

    values: tuple  # exact Rationals, one per axis
    verdict: Verdict | None
    probes: tuple = ()
    reason: str | None = None

    @property
    def margin(self) -> float | None:
        """The smallest margin over the probes that count (None when not evaluated)."""
        counted = [p.margin for p in self.probes if p.counts]
        return min(counted) if counted else None

    def to_dict(self) -> dict:
        return {
            "values": [number(v) for v in self.values],
            "verdict": None if self.verdict is None else str(self.verdict),
            "margin": self.margin,
            "reason": self.reason,
            "probes": [p.to_dict() for p in self.probes],
        }


@dataclass(frozen=True, slots=True)
class Bracket:
    """A verdict change along ``parameter`` (the other axes held at ``at``), refined by bisection."""

    parameter: str
    at: tuple  # ((name, exact value), ...) of the other scanned parameters
    lo: sp.Rational
    hi: sp.Rational
    lo_verdict: Verdict
    hi_verdict: Verdict
    target_width: sp.Rational
    steps: int
    trail: tuple = field(default=(), repr=False)  # ((midpoint, verdict, min margin), ...) in bisection order

    @property
    def width(self):
        return self.hi - self.lo

    def to_dict(self) -> dict:
        return {
            "parameter": self.parameter,
            "at": {k: number(v) for k, v in self.at},
            "lo": number(self.lo),
            "hi": number(self.hi),
            "lo_verdict": str(self.lo_verdict),
            "hi_verdict": str(self.hi_verdict),
            "width": float(self.width),
            "target_width": float(self.target_width),
            "steps": self.steps,
            "trail": [
                {"value": number(v), "verdict": None if d is None else str(d), "margin": m} for v, d, m in self.trail
            ],
        }

    def text(self) -> str:
        at = "".join(f", {k} = {_short(v)}" for k, v in self.at)
        return (
            f"{self.parameter} in [{_short(self.lo)}, {_short(self.hi)}]{at}: {self.lo_verdict} -> {self.hi_verdict} "
            f"(width {float(self.width):.2g} <= {float(self.target_width):.2g}, {self.steps} bisection steps)"
        )


@dataclass(frozen=True, slots=True)
class ExceptionalPoint:
    """A simple number inside a bracket, checked exactly (a rational parameter) by a full check."""

    values: tuple  # ((name, exact value), ...) for every scanned parameter
    verdict: Verdict
    evidence: str
    family: str | None
    relation: str | None
    proved: bool
    summary: str
    hypothesis: str | None = None  # the property of φ behind the family (an ODE: its equation)

    def label(self) -> str:
        return ", ".join(f"{k} = {number(v)}" for k, v in self.values)

    def to_dict(self) -> dict:
        return {
            "values": {k: number(v) for k, v in self.values},
            "verdict": str(self.verdict),
            "evidence": self.evidence,
            "family": self.family,
            "hypothesis": self.hypothesis,
            "relation": self.relation,
            "proved": self.proved,
            "summary": self.summary,
        }

    def why(self, detail: bool = False) -> str:
        """``detail``: with the family's hypothesis (an ODE: its equation; an expert: its template), or the relation."""
        if self.verdict != Verdict.NOT_IDENTIFIABLE:
            return f"{self.verdict} ({self.evidence} evidence)"
        said = (
            (hypothesis_text(self.hypothesis) if self.family and self.hypothesis else self.relation) if detail else None
        )
        which = ": ".join(t for t in (self.family or "a relation not in the known families", said) if t)
        return f"{which}, {'proved' if self.proved else 'numeric: confirmed at two precisions, not proved'}"


@dataclass(frozen=True, slots=True)
class ForAll:
    """A family hypothesis on φ, or an expert's witness relation, proved with the scanned parameters symbolic."""

    family: str
    hypothesis: str
    parameters: tuple

    def to_dict(self) -> dict:
        return {"family": self.family, "hypothesis": self.hypothesis, "parameters": list(self.parameters)}


@dataclass(frozen=True, slots=True)
class ScanResult:
    """The scan of one φ over one or two parameters (see the module docstring)."""

    phi: str
    condition: str
    dim: int
    seed: int
    axes: tuple
    fixed: tuple  # ((name, exact value), ...)
    grid: tuple = field(repr=False)  # GridValue, row-major (first axis slowest)
    probe_names: tuple = field(repr=False)
    brackets: tuple
    exceptional: tuple
    for_all: ForAll | None
    summary: str
    certified: bool
    seconds: float
    skipped_brackets: int = 0
    timings: tuple = ()  # ((stage, seconds), ...): setup, grid, bisection, exact checks
    environment: dict | None = field(
        default=None, compare=False, repr=False
    )  # versions and BLAS (identcheck.util.environment)

    @property
    def shape(self) -> tuple:
        return tuple(a.count for a in self.axes)

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "phi": self.phi,
            "condition": self.condition,
            "dim": self.dim,
            "seed": self.seed,
            "axes": [a.to_dict() for a in self.axes],
            "fixed": {k: number(v) for k, v in self.fixed},
            "probes": list(self.probe_names),
            "grid": [g.to_dict() for g in self.grid],
            "brackets": [b.to_dict() for b in self.brackets],
            "skipped_brackets": self.skipped_brackets,
            "exceptional": [e.to_dict() for e in self.exceptional],
            "for_all": None if self.for_all is None else self.for_all.to_dict(),
            "summary": self.summary,
            "certified": self.certified,
            "seconds": self.seconds,
            "timings": dict(self.timings),
            "environment": self.environment,
        }

    def _head(self) -> str:
        axes = ", ".join(f"{a.name} in [{_short(a.lo)}, {_short(a.hi)}] ({a.count} values)" for a in self.axes)
        fixed = "".join(f", {k} = {number(v)}" for k, v in self.fixed)
        name = CONDITIONS[self.condition].object_name  # φ(z), or an expert condition's h(x; θ)
        return f"scan of {name} = {self.phi} over {axes}{fixed}   [{self.condition}, d = {self.dim}, seed {self.seed}]"

    def brief_text(self) -> str:
        """The head and the one-line summary (``scan --brief``)."""
        return f"{self._head()}\n  {self.summary}"

    def to_text(self) -> str:
        lines = [self._head(), f"  {self.summary}"]
        if self.for_all is not None:
            f = self.for_all
            lines.append(
                f"  for all {', '.join(f.parameters)}: {f.family}, {hypothesis_text(f.hypothesis, plain=True)} "
                "(sympy, parameters symbolic)"
            )
        lines += [f"  exceptional: {e.label()}: {e.why(detail=True)}" for e in self.exceptional]
        lines += [f"  bracket: {b.text()}" for b in self.brackets]
        if self.skipped_brackets:
            lines.append(f"  {self.skipped_brackets} further verdict change(s) not refined (bracket cap)")
        if len(self.axes) == 1:
            width = max(len(n) for n in self.probe_names)
            lines.append(f"  {'value':>10}  {'verdict':<17} {'min margin':>10}  per probe: margin@digits")
            for g in self.grid:
                lines.append("  " + _row_text(g, width))
        else:
            counts: dict[str, int] = {}
            for g in self.grid:
                key = g.reason and "not evaluated" or str(g.verdict)
                counts[key] = counts.get(key, 0) + 1
            lines.append(
                "  grid: " + ", ".join(f"{n} {k}" for k, n in counts.items()) + " (use --json or --plot for the map)"
            )
        lines.append(f"  {self.seconds:.1f} s (" + ", ".join(f"{k} {v:.1f} s" for k, v in self.timings) + ")")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        name = CONDITIONS[self.condition].object_name
        parts = [f"**Scan of {name} = {code(self.phi)}** · {self.condition}, d = {self.dim}", f"**{self.summary}**"]
        if self.for_all is not None:
            parts.append(
                f"For all {', '.join(self.for_all.parameters)}: {self.for_all.family}, "
                f"{code(hypothesis_text(self.for_all.hypothesis, plain=True))} (sympy, parameters symbolic)."
            )
        if self.exceptional:
            parts.append("\n".join(f"- exceptional {code(e.label())}: {e.why(detail=True)}" for e in self.exceptional))
        if self.brackets:
            parts.append("\n".join(f"- bracket {cell(b.text())}" for b in self.brackets))
        if len(self.axes) == 1:
            rows = [
                (
                    _short(g.values[0]),
                    g.reason or g.verdict,
                    "" if g.margin is None else f"{g.margin:.2e}",
                    max((p.digits for p in g.probes), default=""),
                )
                for g in self.grid
            ]
            parts.append(table((self.axes[0].name, "verdict", "min margin", "max digits"), rows, "rlrr"))
        parts.append(f"{len(self.grid)} grid values, {self.seconds:.1f} s")
        return "\n\n".join(parts) + "\n"


def _row_text(g: GridValue, width: int) -> str:
    value = f"{_short(g.values[0]):>10}"
    if g.reason is not None:
        return f"{value}  not evaluated: {g.reason}"
    probes = "  ".join(
        f"{p.margin:.1e}@{p.digits}{'*' if p.dependent else ('?' if p.dependent is None else '')}" for p in g.probes
    )
    return f"{value}  {str(g.verdict):<17} {g.margin:>10.2e}  {probes}"
