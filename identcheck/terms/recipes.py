"""Declarative recipes for an expert's function sets (docs/architecture.md): what a condition on experts
declares — derivatives of h of given orders, products of two derivative parts, x-multiplied
derivative parts, the constant 1 — and the members they give, each with its label and structural key.

A part gives, for the expert's flat parameters θ (typed ids, :mod:`identcheck.parse.param_ids`), its
members in a fixed order, as (label, key):

- :class:`Derivatives` (n): ∂ⁿh/∂θ⁽ᵘ¹⁾…∂θ⁽ᵘⁿ⁾ for every multiset u1 ≤ … ≤ un of parameters; key
  ``("d" * n, (u1, …, un))``: ``("d", (u,))``, ``("dd", (u, v))``, ``("ddd", (u, v, w))``, …;
- :class:`Product` (a, b) of two derivative parts: each member of a times each member of b (the same
  part twice: i ≤ j, products commute); key ``("prod", (u, v))`` for two first derivatives (DeepSeek's
  S2), else ``("prod", n_a, n_b, (the ids of a's factor…, then b's…))`` with n_a ≤ n_b;
- :class:`XMultiplied` (p) of a derivative part: x_w · each member of p, w = 1..d (w outer); key
  ``("x", w, ids)`` (``("x", w, (v,))`` is x_w·∂h/∂v).

:class:`SetRecipe` gathers parts and the constant 1 (one column shared by the atoms); its ``order``
is the highest derivative the expert must have. A member is built from its key alone (:func:`build`),
and the relation families read the same keys (:func:`identcheck.families.base.structure`). A member
that two parts both give (the same key: the same symbolic member) is listed once, where it first comes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from ..parse.param_ids import symbol_name

__all__ = ["Derivatives", "Product", "SetRecipe", "XMultiplied", "build"]

MAX_ORDER = 9  # the derivatives a recipe may ask for (the refusal's words: expert.ORDER_WORDS)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


def _power(n: int) -> str:
    return str(n).translate(_SUPERSCRIPT) if n > 1 else ""


@dataclass(frozen=True)
class Derivatives:
    """The derivatives of h of order ``order`` in every multiset of parameters u1 ≤ … ≤ un."""

    order: int

    def __post_init__(self):
        if not (isinstance(self.order, int) and 1 <= self.order <= MAX_ORDER):
            raise ValueError(f"Derivatives(order={self.order!r}): an integer from 1 to {MAX_ORDER}")

    def members(self, ids, labels, dim, h) -> list:
        out = []
        for us in itertools.combinations_with_replacement(range(len(ids)), self.order):
            wrt = "".join(f"∂{labels[u]}{_power(len(list(run)))}" for u, run in itertools.groupby(us))
            out.append((f"∂{_power(self.order)}{h}/{wrt}", ("d" * self.order, tuple(ids[u] for u in us))))
        return out


@dataclass(frozen=True)
class Product:
    """The products of a member of derivative part ``a`` with a member of derivative part ``b``
    (stored with a's order ≤ b's: the products commute)."""

    a: Derivatives
    b: Derivatives

    def __post_init__(self):
        if not (isinstance(self.a, Derivatives) and isinstance(self.b, Derivatives)):
            raise ValueError(f"{self!r}: a product's factors are Derivatives parts")
        if self.a.order > self.b.order:
            a, b = self.b, self.a
            object.__setattr__(self, "a", a)
            object.__setattr__(self, "b", b)

    @property
    def order(self) -> int:
        return self.b.order

    def members(self, ids, labels, dim, h) -> list:
        first, second = self.a.members(ids, labels, dim, h), self.b.members(ids, labels, dim, h)
        pairs = (
            itertools.combinations_with_replacement(first, 2) if self.a == self.b else itertools.product(first, second)
        )
        out = []
        for (la, ka), (lb, kb) in pairs:
            label = f"({la})²" if ka == kb else f"{la}·{lb}"
            key: tuple
            if self.a.order == self.b.order == 1:
                key = ("prod", (ka[-1][0], kb[-1][0]))
            else:
                key = ("prod", self.a.order, self.b.order, ka[-1] + kb[-1])
            out.append((label, key))
        return out


@dataclass(frozen=True)
class XMultiplied:
    """x⁽ʷ⁾ times each member of derivative part ``part``, w = 1..d."""

    part: Derivatives

    def __post_init__(self):
        if not isinstance(self.part, Derivatives):
            raise ValueError(f"{self!r}: an x-multiplied part multiplies a Derivatives part")

    @property
    def order(self) -> int:
        return self.part.order

    def members(self, ids, labels, dim, h) -> list:
        inner = self.part.members(ids, labels, dim, h)
        return [(f"x{w}·{label}", ("x", w, key[-1])) for w in range(1, dim + 1) for label, key in inner]


PARTS = (Derivatives, Product, XMultiplied)


@dataclass(frozen=True)
class SetRecipe:
    """A set of functions of an expert h(x; θ), per atom: ``parts`` (:data:`PARTS`) in order, then
    ``constants`` (0 or 1) constant columns 1 shared by the atoms. ``name`` names the set in probe
    names and the JSON's ``details`` (no ':'); ``description`` says what it holds, in reports."""

    name: str
    description: str
    parts: tuple = ()
    constants: int = 0

    def __post_init__(self):
        if not (isinstance(self.name, str) and self.name.strip() and ":" not in self.name):
            raise ValueError(f"set name {self.name!r}: a non-empty name without ':'")
        if not isinstance(self.parts, tuple) or not self.parts:
            raise ValueError(f"set {self.name!r}: parts must be a non-empty tuple")
        bad = [p for p in self.parts if not isinstance(p, PARTS)]
        if bad:
            raise ValueError(f"set {self.name!r}: part {bad[0]!r} is not one of Derivatives, Product, XMultiplied")
        if self.constants not in (0, 1):
            raise ValueError(f"set {self.name!r}: constants={self.constants!r}, 0 or 1 (the constant 1)")

    @property
    def order(self) -> int:
        """The highest derivative of h the members take: the expert must be that often differentiable."""
        return max(p.order for p in self.parts)

    def members(self, ids, labels, dim: int, h: str = "h") -> list:
        """(label, key) of each member, parts in order; a key already given is not repeated."""
        seen, out = set(), []
        for part in self.parts:
            for label, key in part.members(ids, labels, dim, h):
                if key not in seen:
                    seen.add(key)
                    out.append((label, key))
        return out


def build(key: tuple, h: sp.Expr, params: tuple, x: tuple) -> sp.Expr:
    """The member with structural ``key`` of the expert (or template) ``h`` (``params``: its symbols)."""
    symbols = {p.name: p for p in params}
    kind, *rest = key
    u = [symbols[symbol_name(pid)] for pid in rest[-1]]
    if kind == "prod":
        a = rest[0] if len(rest) == 3 else 1
        return sp.diff(h, *u[:a]) * sp.diff(h, *u[a:])
    if kind == "x":
        return x[rest[0] - 1] * sp.diff(h, *u)
    if kind == "d" * len(u):
        return sp.diff(h, *u)
    raise ValueError(f"member key {key!r}: unknown kind {kind!r}")
