"""What a relation family is: a name, a hypothesis (about φ or about the expert h), its relations
proposed on a probe as exact templates or recognised by their shape, and how they are proved.

- :class:`Template`: a relation a family implies on one probe — exact coefficients on the probe's
  column positions, with the family's name and the hypothesis it rests on (as shown in the JSON).
- :class:`Family`: a family's name and its hypothesis in words; the modules of the package
  (:mod:`identcheck.families`) hold one family each: how it proposes (``templates``/``name``) and
  how its relations are proved (sympy; a rewrite by the hypothesis where one exists).
- :class:`Builder`: the structure a type-1 family needs — a relation written on derivative keys
  (``("a1", "M12")`` for ∂²ū/∂a1∂M12) of one component becomes a template on the probe's columns
  (a key the term set lacks drops the relation: it needs a term outside the set).
- :func:`structure`: the structure an expert family needs — each column's (atom, member kind,
  parameter names, x-index) read from its structural key, never from its label.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..parse.param_ids import symbol_name

__all__ = ["Builder", "Family", "Member", "Template", "m_name", "match_output", "structure", "weight"]

SAME_OUTPUT = 1e-12  # |w − ±f^k| ≤ SAME_OUTPUT·(1 + |f^k|) at a rational point: a candidate for w = ±f^k


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


def weight(j: int, k: int) -> int:
    """w_jk = ∂(xᵀMx)/∂M_jk / (x_j x_k): 1 on the diagonal, 2 off it."""
    return 1 if j == k else 2


def m_name(j: int, k: int) -> str:
    return f"M{j + 1}{k + 1}"


class Builder:
    """Turns derivative-keyed relations into column templates for one type-1 probe."""

    def __init__(self, term_set, probe):
        self.ts = term_set
        self.order = {name: i for i, name in enumerate(term_set.param_names)}
        self.n = len(term_set.terms)
        self.values = [term_set.numeric_params(c.M, c.a) for c in probe.components]
        self.templates: list[Template] = []

    def key(self, names) -> tuple:
        return tuple(sorted(names, key=self.order.__getitem__))

    def add(self, family, hypothesis, parts):
        """parts: list of (component, {derivative key: coefficient expr})."""
        columns: dict[int, sp.Expr] = {}
        for comp, relation in parts:
            for derivative, coeff in relation.items():
                if derivative not in self.ts.index:
                    return  # needs a term outside the set
                position, factor = self.ts.index[derivative]
                value = sp.sympify(coeff).xreplace(self.values[comp]) * factor
                column = comp * self.n + position
                columns[column] = columns.get(column, 0) + value
        columns = {c: v for c, v in columns.items() if v != 0}
        if columns:
            self.templates.append(Template(family, hypothesis, tuple(columns.items())))

    def with_derivatives(self, relation: dict) -> list[dict]:
        """The relation and its first derivatives in every parameter (it holds for all θ)."""
        out = [relation]
        for q in self.ts.params:
            derived: dict = {}
            for key, coeff in relation.items():
                dc = sp.diff(coeff, q)
                if dc != 0:
                    derived[key] = derived.get(key, 0) + dc
                longer = self.key(key + (q.name,))
                derived[longer] = derived.get(longer, 0) + coeff
            out.append(derived)
        return out


@dataclass(frozen=True, slots=True)
class Member:
    """One column of an expert's relation, read from its key: ``atom`` (None for the set's constant
    1), ``kind`` ("d" ∂h/∂u, "dd" ∂²h/∂u∂v, "prod" ∂h/∂u·∂h/∂v, "x" x_w·∂h/∂v, "1"; a recipe's other
    parts — :mod:`identcheck.terms.recipes` — "ddd"…, "prod" of higher derivatives, "x" of a higher
    derivative), ``names`` (the parameter symbols' names, every factor's), ``w`` (the x-index of an
    "x" member), ``coefficient``."""

    atom: int | None
    kind: str
    names: tuple
    w: int | None
    coefficient: sp.Rational

    @property
    def order(self) -> int:
        """How many θ-derivatives the member takes of h (a product: its factors' together)."""
        return len(self.names)

    @property
    def known_shape(self) -> bool:
        """∂h/∂u, ∂²h/∂u∂v, ∂h/∂u·∂h/∂v, x_w·∂h/∂v or 1: the shapes the general families read (a
        recipe's higher derivatives, products and x-multiplied parts are read by the set's own names)."""
        return (self.kind, len(self.names)) in (("d", 1), ("dd", 2), ("prod", 2), ("x", 1), ("1", 0))


def structure(keys, values) -> list[Member]:
    """The columns of a relation (structural keys: ``(atom, member key)`` or ``("1",)``), as :class:`Member` s."""
    out = []
    for key, value in zip(keys, values):
        if key == ("1",):
            out.append(Member(None, "1", (), None, value))
            continue
        atom, member = key
        names = tuple(symbol_name(pid) for pid in member[-1])  # typed ids → the expert's symbol names
        out.append(Member(atom, member[0], names, member[1] if member[0] == "x" else None, value))
    return out


def match_output(w, outputs):
    """(k, ±1) when w = ±f^k exactly (type-2's channel outputs ``outputs``), else None (a float
    test first, then sympy's cancel)."""
    x = sorted(w.free_symbols | set().union(*(f.free_symbols for f in outputs)), key=str)
    point = {xi: sp.Rational(3 + 2 * i, 7 + i) for i, xi in enumerate(x)}
    w_value = complex(w.xreplace(point).evalf(20))
    for k, f in enumerate(outputs):
        f_value = complex(f.xreplace(point).evalf(20))
        for orientation in (1, -1):
            if abs(w_value - orientation * f_value) <= SAME_OUTPUT * (1 + abs(f_value)):
                if sp.cancel(sp.together(w - orientation * f)) == 0:
                    return k, orientation
    return None
