"""The records of an adversarial search (:mod:`identcheck.scan.search`): what it found, per stratum and in all.

:class:`Witness` is a snapped minimum checked exactly (its decision, first relation and whether it is
*new*: a proved, admissible dependence with every a ≠ 0 in no known set); :class:`StratumSearch` one
stratum's search (starts, the smallest margin m = s/D found, where, the nearest known set);
:class:`SearchResult` every stratum, the budget, and the one-line statement. Their ``to_dict`` is
``details["search"]`` in a check's JSON (docs/scan.md, "Search where no probe looks").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["SearchResult", "StratumSearch", "Witness"]


@dataclass(frozen=True, slots=True)
class Witness:
    """A snapped minimum checked exactly: the probe's components, its decision and first relation;
    ``outcome`` the exact check's :class:`~identcheck.results.ProbeResult` (a new witness's relations: the
    verdict's witness and its ``bites``, :mod:`identcheck.scan.override`; not in the JSON)."""

    components: tuple  # Component, exact
    dependent: bool | None
    relation: str | None
    family: str | None
    proved: bool
    admissible: bool
    a_nonzero: bool
    in_known: tuple  # names of the known sets (all of them, left-out included) the point lies in
    grid: int
    outcome: Any = field(default=None, compare=False, repr=False)

    @property
    def new(self) -> bool:
        """A real dependence no probe and no known set accounts for: proved, admissible, a ≠ 0."""
        return bool(self.dependent) and self.proved and self.admissible and self.a_nonzero and not self.in_known

    def to_dict(self) -> dict:
        return {
            "components": [c.to_dict() for c in self.components],
            "dependent": self.dependent,
            "relation": self.relation,
            "family": self.family,
            "proved": self.proved,
            "admissible": self.admissible,
            "in_known": list(self.in_known),
            "new": self.new,
            "grid": self.grid,
        }


@dataclass(frozen=True, slots=True)
class StratumSearch:
    """The search of one stratum: its probe, starts run, the known sets it was normalised by, the
    smallest margin m found, s and D there, the nearest known set and the point; ``why_not`` if not run."""

    probe: str
    stratum: str
    dimension: int
    starts: int = 0
    known: tuple = ()
    margin: float | None = None
    singular_value: float | None = None
    distance: float | None = None  # D at the minimum
    nearest: str | None = None
    at: tuple = ()  # ((M, a), …) per component, floats
    witness: Witness | None = None
    why_not: str | None = None
    start_distance: float | None = None  # the smallest distance of a start from a known set (left-out ones too)
    floor: bool = False  # s below float64's rounding floor 16·eps·s_1: the float64 search does not resolve it

    def at_text(self) -> str:
        def num(v):
            return f"{float(v):.4g}"

        parts = []
        for c, (M, a) in enumerate(self.at):
            rows = "; ".join(" ".join(num(v) for v in row) for row in M)
            parts.append(f"M{c + 1} = [{rows}], a{c + 1} = ({', '.join(num(v) for v in a)})")
        return ", ".join(parts)

    def to_dict(self) -> dict:
        return {
            "probe": self.probe,
            "stratum": self.stratum,
            "dimension": self.dimension,
            "starts": self.starts,
            "known": list(self.known),
            "margin": self.margin,
            "singular_value": self.singular_value,
            "normaliser": self.distance,
            "nearest": self.nearest,
            "at": [{"M": [[float(v) for v in row] for row in M], "a": [float(v) for v in a]} for M, a in self.at],
            "witness": None if self.witness is None else self.witness.to_dict(),
            "why_not": self.why_not,
            "start_distance": self.start_distance,
            "floor": self.floor,
        }


@dataclass(frozen=True, slots=True)
class SearchResult:
    """Every stratum searched, the budget and whether it cut the starts, and the one-line statement."""

    starts: int
    seconds: float
    budget: float
    cut: bool
    strata: tuple
    left_out: tuple = ()

    @property
    def smallest(self) -> StratumSearch | None:
        run = [s for s in self.strata if s.margin is not None]
        return min(run, key=lambda s: s.margin) if run else None

    @property
    def witness(self) -> StratumSearch | None:
        """The first stratum whose witness is new (a proved, admissible dependence no known set holds)."""
        return next((s for s in self.strata if s.witness is not None and s.witness.new), None)

    @property
    def statement(self) -> str:
        ran = [s for s in self.strata if s.why_not is None]
        head = f"search ({self.starts} starts per stratum, {len(ran)} strata, {self.seconds:.1f} s"
        head += f"; the {self.budget:g} s budget cut it: {min((s.starts for s in ran), default=0)} starts at least)"
        head = head if self.cut else head.split(";")[0] + ")"
        found = self.witness
        w = None if found is None else found.witness
        if found is not None and w is not None:
            family = w.family or "a relation"
            where = f"'{found.probe}' ({found.stratum})"
            return f"{head}: found by search on {where}: dependent, {family}, proved: {w.relation}"
        best = self.smallest
        if best is None:
            why = (
                "; ".join(dict.fromkeys(s.why_not or "" for s in self.strata))
                or "no counted probe with a stratum is independent"
            )
            return f"{head}: nothing searched ({why})"
        text = (
            f"{head}: smallest margin found {best.margin:.2e} (s = {best.singular_value:.2e}, nearest known set "
            f"{best.nearest}) on '{best.probe}' at {best.at_text()}"
        )
        if best.floor:
            text += " (at float64's rounding floor, 16·eps·s_1: smaller values are not resolved by the search)"
        seen = [s for s in self.strata if s.witness is not None and s.witness.dependent]
        if seen:
            w = seen[0].witness
            where = ", ".join(w.in_known) or ("inadmissible" if not w.admissible else "not proved")
            text += f"; a dependence found on '{seen[0].probe}' lies in a known set or does not count ({where})"
        return text + " — a search, not a proof"

    def to_dict(self) -> dict:
        best, found = self.smallest, self.witness
        return {
            "starts": self.starts,
            "seconds": self.seconds,
            "budget": self.budget,
            "cut": self.cut,
            "left_out": list(self.left_out),
            "statement": self.statement,
            "smallest_margin": None if best is None else best.margin,
            "smallest_at": None if best is None else best.probe,
            "found": None if found is None else found.probe,
            "strata": [s.to_dict() for s in self.strata],
        }
