r"""The order at which a failure bites: in exact-fitted cells, or only in over-fitted ones.

Around a true atom θ* with weight p*, the fitted atoms of its Voronoi cell V expand as

    Σ_{i∈V} p_i F(θ_i) − p* F(θ*) = Δp·F + Σ_i p_i Σ_j Δθ_ij ∂_j F + ½ Σ_i p_i Σ_{j,k} Δθ_ij Δθ_ik ∂_j ∂_k F + …,

Δp = Σ_V p_i − p*. In an **exact-fitted** cell (|V| = 1) the first-order coefficients p·Δθ_j carry
the leading term of every move, so the cell needs only the terms of order ≤ 1 (F and its first
derivatives) to be independent; a linear relation among them lets a first-order move cancel: the
failure bites in exact-fitted cells. In an **over-fitted** cell (|V| ≥ 2) Σ_i p_i Δθ_i can vanish
with the Δθ_i not all zero, and the second-order coefficients Σ_i p_i Δθ_ij Δθ_ik carry the loss: a
relation that needs a term of order ≥ 2 leaves the exact-fitted expansion independent and bites
only there (docs/method.md §9, "The order at which a failure bites").

The **order of a term** is the number of parameter derivatives in it, read off its structural key
(:func:`key_order`); the **order of a relation** is the highest order among its terms with a non-zero
coefficient (:func:`relation_order`); the order of a probe's dependence is the smallest r such that
the span of its relations holds one whose terms are all of order ≤ r (:func:`span_order`: a relation
of order 2 may combine with another into one of order 1). :class:`Bites` is the one record of this
order that the check's relations and the model-level verdict share, in the JSON as
``"bites": {"order": r, "cells": "exact-fitted" | "over-fitted"}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache

import flint
import numpy as np

__all__ = ["Bites", "Cells", "bites_at", "earliest", "key_order", "lowest", "lowest_known", "relation_bites"]
__all__ += ["relation_order"]
__all__ += ["span_order", "witness_words"]

FLOAT_RANK = 1e-8  # relative singular value below which float coefficients count as rank-deficient


class Cells(StrEnum):
    """Where a failure bites: cells of one fitted atom, or only cells of two or more."""

    EXACT_FITTED = "exact-fitted"
    OVER_FITTED = "over-fitted"


@dataclass(frozen=True, slots=True)
class Bites:
    """A failure of order ``order`` (None: not a relation among Taylor terms, e.g. an exact re-pairing
    of atoms) that bites in ``cells``."""

    order: int | None
    cells: Cells

    @property
    def where(self) -> str:
        """``'in exact-fitted cells'`` or ``'only in over-fitted cells (|V| ≥ 2)'``."""
        return "in exact-fitted cells" if self.cells == Cells.EXACT_FITTED else "only in over-fitted cells (|V| ≥ 2)"

    @property
    def text(self) -> str:
        """``'order 1: bites in exact-fitted cells'``, ``'order 2: bites only in over-fitted cells (|V| ≥ 2)'``."""
        return ("" if self.order is None else f"order {self.order}: ") + f"bites {self.where}"

    def to_dict(self) -> dict:
        return {"order": self.order, "cells": str(self.cells)}

    @classmethod
    def from_dict(cls, data: dict) -> Bites:
        """The record of its JSON form (:meth:`to_dict`)."""
        return cls(data["order"], Cells(data["cells"]))


def bites_at(order: int | None) -> Bites | None:
    """The record of a relation of Taylor order ``order``: exact-fitted cells up to order 1."""
    if order is None:
        return None
    return Bites(order, Cells.EXACT_FITTED if order <= 1 else Cells.OVER_FITTED)


def lowest_known(records) -> Bites | None:
    """:func:`lowest`, where a None entry is a failure whose order is not known: the earliest known record
    when it bites in exact-fitted cells (nothing bites earlier), else None if any entry is None (the
    unknown one might bite in exact-fitted cells), else the earliest."""
    records = list(records)
    known = lowest(records)
    if known is not None and known.cells == Cells.EXACT_FITTED:
        return known
    return None if any(r is None for r in records) else known


def lowest(records) -> Bites | None:
    """The record that bites earliest among ``records`` (None entries skipped): exact-fitted before
    over-fitted, then the lower order (an order None last within its cells)."""
    records = [r for r in records if r is not None]
    if not records:
        return None
    return min(records, key=lambda r: (r.cells != Cells.EXACT_FITTED, r.order is None, r.order or 0))


def _is_derivative_kind(word) -> bool:
    return isinstance(word, str) and bool(word) and set(word) == {"d"}


def key_order(key) -> int | None:
    """The Taylor order of the term a structural column key names, or None for a shape not known here.

    - type-1 (and mha, the toy conditions): ``(component, derivative)``, the derivative a tuple of
      parameter ids (``(("M", 0, 1), ("a", 1))``; ``()`` for ū): its length;
    - an expert set's member (:mod:`identcheck.terms.recipes`): ``(atom, ("d"·n, ids))`` → n;
      ``(atom, ("prod", (u, v)))`` → 2, ``(atom, ("prod", n_a, n_b, ids))`` → n_a + n_b;
      ``(atom, ("x", w, ids))`` → len(ids) + 1 (x_w·∂h is the mixed derivative in the gate's slope
      β1_w and the expert's parameters); S2's constant ``("1",)`` → 1 (it stands for the variance's
      derivative ∂N/∂ν = ½ ∂²N/∂h², beside the products of first derivatives);
    - type-2 and type1-full's v̄-terms: ``("phi", k)`` → 0, ``("u" | "v", k, i, names)`` →
      len(names), ``("uu" | "vv" | "uv", k, (i1, names1), (i2, names2))`` → len(names1) + len(names2).
    """
    if key == ("1",):
        return 1
    if not isinstance(key, tuple) or len(key) < 2:
        return None
    head, rest = key[0], key[1]
    if isinstance(head, int) and not isinstance(head, bool) and isinstance(rest, tuple) and len(key) == 2:
        if rest and _is_derivative_kind(rest[0]) and len(rest) == 2 and isinstance(rest[1], tuple):
            return len(rest[0])
        if rest and rest[0] == "prod":
            return 2 if len(rest) == 2 else rest[1] + rest[2]
        if rest and rest[0] == "x" and len(rest) == 3:
            return len(rest[2]) + 1
        return len(rest)
    if head == "phi" and len(key) == 2:
        return 0
    if head in ("u", "v") and len(key) == 4:
        return len(key[3])
    if head in ("uu", "vv", "uv") and len(key) == 4:
        return len(key[2][1]) + len(key[3][1])
    return None


def _coefficients(relation) -> list:
    """The relation's coefficients aligned with its keys: exact Fractions when every exact one reads as a
    rational, else its floats."""
    if relation.exact is not None:
        try:
            return [Fraction(str(c)) for _, c in relation.exact]
        except (ValueError, ZeroDivisionError):
            pass
    return [float(c) for _, c in relation.terms]


def relation_order(relation) -> int | None:
    """The highest Taylor order among ``relation``'s terms with a non-zero coefficient (a
    :class:`~identcheck.results.Relation`: its ``keys`` aligned with ``exact`` or ``terms``); None when
    a key's order is not known or the relation has no keys."""
    coefficients = _coefficients(relation)
    if not relation.keys or len(relation.keys) != len(coefficients):
        return None
    orders = [key_order(k) for k, c in zip(relation.keys, coefficients) if c != 0]
    if not orders or any(o is None for o in orders):
        return None
    return max(o for o in orders if o is not None)


def relation_bites(relation) -> Bites | None:
    """:func:`bites_at` of :func:`relation_order`."""
    return bites_at(relation_order(relation))


def span_order(relations) -> int | None:
    """:func:`_span_order`, remembered per relations (with their keys): a probe's order is read by its
    JSON, the result's and the reports'."""
    pairs = tuple((r, tuple(r.keys)) for r in relations)
    try:
        return _span_order(pairs)
    except TypeError:  # a relation holding an unhashable value: read it afresh
        return _span_order.__wrapped__(pairs)


@lru_cache(maxsize=4096)
def _span_order(pairs) -> int | None:
    """The smallest r such that some non-zero combination of ``relations`` has every term of order ≤ r:
    for each candidate r (the orders of the terms), the relations restricted to the terms of order > r
    have rank below their count (exact rank over the rationals when every coefficient is exact, else
    float64's: singular values above :data:`FLOAT_RANK` × the largest singular value of the *whole*
    coefficient matrix, so a restricted block that is tiny beside the rest counts as zero rather than
    being judged against itself). None when there is no relation of known order. A relation whose order
    no key tells may combine with the others into one of any order, so beside one the known relations'
    order is only an upper bound: it is returned when it is ≤ 1 (exact-fitted cells either way), and
    None above (an unknown relation might be first-order: "only in over-fitted cells" is not shown)."""
    relations = [r for r, _ in pairs if relation_order(r) is not None]
    if not relations:
        return None
    order = _known_span_order(relations)
    if len(relations) < len(pairs) and order is not None and order > 1:
        return None
    return order


def _known_span_order(relations) -> int | None:
    """:func:`_span_order` of relations whose orders are all known."""
    columns: dict = {}
    rows = []
    for relation in relations:
        row = dict(zip(relation.keys, _coefficients(relation)))
        rows.append(row)
        for key in row:
            columns.setdefault(key, key_order(key))
    exact = all(isinstance(c, Fraction) for row in rows for c in row.values())
    whole = 0.0 if exact else _largest_singular_value([[row.get(k, 0) for k in columns] for row in rows])
    for r in sorted(set(columns.values())):
        high = [k for k, o in columns.items() if o > r]
        if not high:
            return r
        if _rank([[row.get(k, 0) for k in high] for row in rows], exact, whole) < len(rows):
            return r
    return None  # unreachable: at the highest order ``high`` is empty


def _largest_singular_value(matrix) -> float:
    values = np.array(matrix, dtype=float)
    return float(np.linalg.norm(values, 2)) if values.size else 0.0


def _rank(matrix, exact: bool, whole: float) -> int:
    """The rank of ``matrix``: exact, or float64's counting singular values above FLOAT_RANK·``whole``
    (the largest singular value of the whole coefficient matrix ``matrix`` is a block of)."""
    if exact:
        # exact over the rationals (flint's fraction-free elimination; sympy's Matrix.rank took ~80 ms here)
        entries = [flint.fmpq(int(c.numerator), int(c.denominator)) for row in matrix for c in map(Fraction, row)]
        return flint.fmpq_mat(len(matrix), len(matrix[0]) if matrix else 0, entries).rank()
    values = np.array(matrix, dtype=float)
    singular = np.linalg.svd(values, compute_uv=False)
    return int(np.sum(singular > FLOAT_RANK * max(whole, 1e-300))) if singular.size else 0


def earliest(result) -> tuple[Bites, str] | None:
    """(the result's :class:`Bites`, the first counted probe that bites that early), or None without one
    (``result`` a :class:`~identcheck.results.CheckResult`)."""
    bites = result.bites
    if bites is None:
        return None
    probe = next(p for p in result.probes if p.counts_for_verdict and p.dependent and p.bites == bites)
    return bites, probe.name


def witness_words(result, relation) -> str:
    """A catalog witness cell's order words: ``relation``'s (the witness's first), and the result's
    earliest with its probe when that bites sooner — ``' [order 2: bites only in over-fitted cells
    (|V| ≥ 2); earliest order 1: bites in exact-fitted cells, on 'shared M, a2 = -a1']'``."""
    own = relation_bites(relation)
    words = "order not known" if own is None else own.text
    first = earliest(result)
    if first is not None and first[0] != own:
        words += f"; earliest {first[0].text}, on '{first[1]}'"
    return f" [{words}]"
