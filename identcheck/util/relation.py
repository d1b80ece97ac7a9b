"""A linear relation between labelled terms on one probe (:class:`Relation`), its text and its JSON form.

A relation Σ_j c_j·t_j = 0 among a probe's terms t_j is written as ``format_relation`` shows it
(``'1/2·∂ū/∂a1 − ū = 0'``, coefficients 1 and −1 bare), tagged by the family that explains it and the
hypothesis behind the family (:func:`hypothesis_text`: a symmetry in words), and keyed by structure so
that code acting on it never parses a label. Its JSON carries the order at which it bites
(:mod:`identcheck.util.bites`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .bites import relation_bites
from .jsonable import jsonable, key_from_json

__all__ = ["Relation", "format_relation", "hypothesis_text"]


def _coefficient_text(value: str | float, first: bool) -> tuple[str, str]:
    """Sign and magnitude text of one coefficient."""
    if isinstance(value, str):
        negative = value.startswith("-")
        magnitude = value[1:] if negative else value
    else:
        negative = value < 0
        magnitude = f"{abs(value):.6g}"
    sign = ("−" if negative else "") if first else (" − " if negative else " + ")
    return sign, magnitude


_SYMMETRY = re.compile(r"phi\(-z\) = (-?1)\*phi\(z\) \+ \((.*)\)")


def hypothesis_text(hypothesis: str, plain: bool = False) -> str:
    """A family hypothesis as a reader writes it; a symmetry in words.

    ``'phi(-z) = -1*phi(z) + (0)'`` → ``'φ(−z) = −φ(z): a and −a collide'``, ``'... + (1)'`` → ``'φ(−z) = 1 − φ(z)'``;
    ``plain``: ASCII, no words (``'phi(-z) = 1 - phi(z)'``). Others unchanged (the JSON keeps the machine form)."""
    match = _SYMMETRY.fullmatch(hypothesis)
    if match is None:
        return hypothesis
    (sign, q), (phi, minus) = match.groups(), (("phi", "-") if plain else ("φ", "−"))
    lhs = f"{phi}({minus}z) = "
    if q == "0":
        return lhs + (minus if sign == "-1" else "") + f"{phi}(z)" + ("" if plain else ": a and −a collide")
    if sign == "-1":
        return f"{lhs}{q} {minus} {phi}(z)"
    return f"{lhs}{phi}(z) {minus} {q[1:]}" if q.startswith("-") else f"{lhs}{phi}(z) + {q}"


def format_relation(terms) -> str:
    """``[(label, coeff), ...]`` → ``'1/2·∂ū/∂a1 − ū = 0'`` (coefficients 1 and −1 bare)."""
    parts = []
    for i, (label, coeff) in enumerate(terms):
        sign, magnitude = _coefficient_text(coeff, i == 0)
        shown = "" if magnitude in ("1", "1.0") else f"{magnitude}·"
        parts.append(f"{sign}{shown}{label}")
    return "".join(parts) + " = 0"


@dataclass(frozen=True, slots=True)
class Relation:
    """A linear relation between labelled terms on one probe.

    Attributes
    ----------
    terms : tuple of (str, float)
        Label and coefficient; a raw relation is scaled so its largest coefficient is 1.
    exact : tuple of (str, str) or None
        The same with exact coefficients: a known family's, or rationals read from a raw
        relation (canonical, :mod:`echelon`; proved only where ``proved`` says so).
    family : str or None
        The family (``"Euler/homogeneity"``, …), or None for a relation not recognised.
    hypothesis : str or None
        The property of φ behind the family, proved by sympy.
    proved : bool
        Whether sympy reduced the relation itself, on this probe, to an exact 0.
    timed_out : bool
        Whether the proof ran out of its time budget (:mod:`budget`); the relation stands on its
        numeric evidence. In the JSON only when true.
    keys : tuple
        Which term each coefficient belongs to, by structure, aligned with ``exact`` when it is
        set, else with ``terms``: the condition's column keys
        (:attr:`~identcheck.conditions.base.ProbeMatrix.keys`, typed tuples such as
        ``(0, (("a", 0), ("M", 0, 1)))``), so code that acts on a relation (numeric's witness paths)
        never parses a display label. In the JSON (``"keys"``, tuples as lists;
        :meth:`from_dict` reads them back as tuples).
    ties : tuple of int
        For a relation no family explains whose terms belong to several components: those
        components (1-based, the ``[k]`` of the labels), e.g. ``(1, 2)``; () otherwise. In the JSON
        (``"ties"``) and the tag (``ties experts [1], [2]``) only when non-empty.
    """

    terms: tuple
    exact: tuple | None
    family: str | None
    hypothesis: str | None
    proved: bool
    timed_out: bool = False
    keys: tuple = field(default=(), compare=False, repr=False)
    ties: tuple = ()

    def __str__(self) -> str:
        return format_relation(self.exact if self.exact is not None else self.terms)

    @property
    def tag(self) -> str:
        """``'Euler/homogeneity: z*phi' = 1*phi, proved exactly'``: family, hypothesis, proof."""
        tag = f"{self.family or 'unrecognised'}" + (f": {hypothesis_text(self.hypothesis)}" if self.hypothesis else "")
        if self.ties:
            tag += ", ties experts " + ", ".join(f"[{k}]" for k in self.ties)
        if self.family is None and self.exact is not None and not self.proved and not self.timed_out:
            tag += ", rational reading, not proved"
        timed_out = ", exact proof timed out: numeric evidence" if self.timed_out else ""
        return tag + (", proved exactly" if self.proved else timed_out)

    def to_dict(self) -> dict:
        return (
            {
                "terms": [[label, coeff] for label, coeff in self.terms],
                "exact": None if self.exact is None else [[label, c] for label, c in self.exact],
                "family": self.family,
                "hypothesis": self.hypothesis,
                "proved": self.proved,
                "text": str(self),
                "keys": jsonable(self.keys),
                "bites": jsonable(relation_bites(self)),
            }
            | ({"timed_out": True} if self.timed_out else {})
            | ({"ties": list(self.ties)} if self.ties else {})
        )

    @classmethod
    def from_dict(cls, data: dict) -> Relation:
        """The relation of its JSON form (schema 3; a schema-2 relation has no keys: ``keys`` is ())."""
        return cls(
            terms=tuple((label, coeff) for label, coeff in data["terms"]),
            exact=None if data.get("exact") is None else tuple((label, c) for label, c in data["exact"]),
            family=data.get("family"),
            hypothesis=data.get("hypothesis"),
            proved=bool(data.get("proved")),
            timed_out=bool(data.get("timed_out", False)),
            keys=key_from_json(data.get("keys", [])),
            ties=tuple(data.get("ties", ())),
        )
