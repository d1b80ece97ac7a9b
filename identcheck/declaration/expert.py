"""A part's expert as declared: its text and its parse by identcheck's expert grammar
(:mod:`identcheck.parse.expert`), with the names an outer expert binds to a value (``inner``,
:mod:`.nested`) rather than to parameters."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..parse.expert import Expert

__all__ = ["ExpertSpec"]


@dataclass(frozen=True, slots=True)
class ExpertSpec:
    """A part's expert h(x; η): the text as declared and its parse (identcheck's expert grammar).

    ``simulation_only`` names the non-smooth functions it uses (``relu``): numeric simulates them
    with their almost-everywhere derivative; identcheck's checks refuse them
    (:meth:`.model.Declaration.refusal`)."""

    text: str
    parsed: Expert = field(repr=False, compare=False)
    bound: tuple[str, ...] = ()  # names given a value, not parameters: ``inner`` (:mod:`.nested`)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name in self.parsed.names if name not in self.bound)

    @property
    def vectors(self) -> frozenset:
        return self.parsed.vectors

    @property
    def simulation_only(self) -> tuple[str, ...]:
        return self.parsed.simulation_only
