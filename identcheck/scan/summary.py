"""The one-line summary of a scan (:func:`summarize`): what it showed, and how.

Most grid values share a verdict; the others are the exceptions, named with what the exact
check at a simple number found (:class:`~identcheck.scan.report.ExceptionalPoint`), or — with
two parameters — as the line p_i = v they lie on. A family proved with the parameters left
symbolic (:class:`~identcheck.scan.report.ForAll`) turns "at every grid value" into "for every
value where φ is defined".
"""

from __future__ import annotations

from ..evidence import Verdict
from ..results import hypothesis_text
from .report import number

__all__ = ["summarize"]


def summarize(axes, grid, exceptional, for_all, subject: str = "phi") -> str:
    """One line: what the scan showed, and how (``subject``: what the expression is, "phi" or "the expert")."""
    span = " x ".join(f"{a.name} in [{number(a.lo)}, {number(a.hi)}]" for a in axes)
    names = ", ".join(a.name for a in axes)
    evaluated = [g for g in grid if g.verdict is not None]
    skipped = len(grid) - len(evaluated)
    tail = ""
    if skipped:
        first = next(g for g in grid if g.verdict is None)
        where = ", ".join(f"{a.name} = {number(v)}" for a, v in zip(axes, first.values))
        tail = f"; not evaluated at {skipped} grid value(s) (first {where}: {first.reason})"
    if not evaluated:
        return f"no grid value of {span} could be evaluated" + tail
    counts: dict[str, int] = {}
    for g in evaluated:
        counts[g.verdict] = counts.get(g.verdict, 0) + 1
    common = max(counts, key=lambda v: (counts[v], v == Verdict.IDENTIFIABLE))  # ties: the exceptions are the failures
    if len(counts) == 1 and common == Verdict.NOT_IDENTIFIABLE and for_all is not None:
        return (
            f"not identifiable for every {span} where {subject} is defined "
            f"({for_all.family}, proved for every {names}: {hypothesis_text(for_all.hypothesis, plain=True)})" + tail
        )
    if len(counts) == 1:
        how = (
            "numerical evidence at those values"
            if common == Verdict.IDENTIFIABLE
            else "a dependence at each, confirmed at two precisions"
        )
        return f"{common} at all {len(evaluated)} grid values of {span} ({how})" + tail
    odd = [g for g in evaluated if g.verdict != common]
    checked = {tuple(v for _, v in e.values): e for e in exceptional}
    line = _line(axes, odd, checked)
    if line is not None:
        return f"{common} at every grid value of {span} except {line}" + tail
    parts = []
    for g in odd[:6]:
        where = ", ".join(f"{a.name} = {number(v)}" for a, v in zip(axes, g.values))
        e = checked.get(tuple(g.values))
        parts.append(f"{where} ({e.why()})" if e is not None else f"{where} ({g.verdict})")
    more = f" and {len(odd) - 6} more" if len(odd) > 6 else ""
    return f"{common} at every grid value of {span} except {'; '.join(parts)}{more}" + tail


def _line(axes, odd, checked) -> str | None:
    """Two axes, the odd values all on one line p_i = v across every value of the other axis."""
    if len(axes) != 2:
        return None
    for i, a in enumerate(axes):
        other = axes[1 - i]
        if len({g.values[i] for g in odd}) == 1 and len(odd) == other.count:
            found = [checked.get(tuple(g.values)) for g in odd]
            families = {e.why() for e in found if e is not None}
            how = (
                f"{families.pop()} at {sum(e is not None for e in found)} of {len(odd)}"
                if len(families) == 1
                else str(odd[0].verdict)
            )
            return f"{a.name} = {number(odd[0].values[i])} for every grid value of {other.name} ({how})"
    return None
