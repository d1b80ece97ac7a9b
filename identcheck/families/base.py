"""What a relation family is: a name, a hypothesis (about φ or about the expert h), its relations
proposed on a probe as exact templates or recognised by their shape, and how they are proved.

- :class:`Template`: a relation a family implies on one probe — exact coefficients on the probe's
  column positions, with the family's name and the hypothesis it rests on (as shown in the JSON).
- :class:`Family`: a family's name and its hypothesis in words; the modules of the package
  (:mod:`identcheck.families`) hold one family each: how it proposes (``templates``/``name``) and
  how its relations are proved (sympy; a rewrite by the hypothesis where one exists).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Family", "Template"]


@dataclass(frozen=True, slots=True)
class Template:
    """A relation implied by a family: exact coefficients on column positions."""

    family: str
    hypothesis: str
    coefficients: tuple  # ((column, sympy number), ...)


@dataclass(frozen=True, slots=True)
class Family:
    """A family: ``name`` (its general name), ``hypothesis`` (what must hold of φ or h, in words)."""

    name: str
    hypothesis: str
