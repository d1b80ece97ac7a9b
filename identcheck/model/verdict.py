r"""The model-level verdict of one atom: exact-fitted identifiability, r̄(m) and the exponents.

- **Exact-fitted cells** (m = 1) need first order only: Δp·F + p Σ_j Δθ_j ∂_j F = 0 must force
  Δθ = 0, i.e. (i) the basis is independent and (ii) the first derivatives' linear parts
  L[b, j] = e_{e_j, b} (b ≠ F) have full column rank q (exact rank, sympy). A relation tying a
  first derivative to F (the linear expert's PDE) or to another first derivative breaks it; the
  relation is named.
- **Over-fitted cells** of m = 2 … M atoms: r̄(m) is the smallest order r ≤ R whose coefficient
  system (:mod:`.system`) has only the trivial solution (:mod:`.decide`). Solutions at r + 1 are
  solutions at r (the complete equations at r are among those at r + 1), so orders are tried
  upward and the exact solution at r̄(m) − 1 is the witness of the lower bound.
- **Exponents** (:mod:`.grading`): a tied parameter of weight w_j gets r̄(m)/w_j, a free one its
  forced order r̄_j(m); ``forced_orders`` lists r̄_j(m) for every parameter (a parameter not
  proved forced before r̄(m) is forced at r̄(m), by the same proof or evidence as r̄(m)). Below
  r̄(m) a decision stops at its first exact solution, so a forced order found there comes from the
  sum-of-squares step; one that only a Gröbner basis would show is reported at r̄(m) — the larger,
  weaker exponent.
- When exact-fitted cells fail, the m = 1 systems are tried at every order too; exact-fitted cells
  that fail at first order through a relation and have an exact solution at every order tried are
  "not identifiable up to order R", through that relation.
- An exact solution at the highest order tried R in cells of m ≥ 2 atoms shows r̄(m) > R, not a
  failure of identifiability: r̄(m) may be any order above R. That is :data:`Outcome.ORDER_TOO_LOW`
  ("order too low"), with the solution that shows it.

The verdict (:class:`~identcheck.evidence.Verdict`, or :data:`Outcome.ORDER_TOO_LOW`):
*identifiable* with every r̄(m) found (``evidence`` proof when every step is proved, numeric when
some r̄ or relation rests on the search or the ladder); *not identifiable* with a proved failure
(the relation in exact-fitted cells, an exact solution at every order tried); *order too low*
(above); *inconclusive* otherwise, with what was tried.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction

import sympy as sp

from ..errors import IdentcheckError
from ..evidence import Evidence, Verdict
from ..util.bites import Bites, Cells, bites_at
from .atom import MAX_CELL, MAX_ORDER, AtomFunction
from .basis import SpanBasis, build_basis
from .decide import DECIDE_SECONDS, INCONCLUSIVE, NON_TRIVIAL, TRIVIAL, SystemDecision
from .grading import Grading, find_grading
from .shared_decisions import decide
from .system import coefficient_system

__all__ = ["CHECK_SECONDS", "CellResult", "ExactFitted", "ModelVerdict", "Outcome", "check_atom", "check_limits"]

CHECK_SECONDS = 60.0
BASIS_SHARE = 0.5  # of the check's seconds, at most, for the basis (an order not built by then is dropped)


class Outcome(StrEnum):
    """The model-level answer beside :class:`~identcheck.evidence.Verdict`'s three: ``ORDER_TOO_LOW``,
    r̄(m) > R shown by an exact solution at the highest order tried R — neither identifiability
    (no order ≤ R suffices) nor its failure (an order above R may)."""

    ORDER_TOO_LOW = "order too low"


@dataclass(frozen=True, slots=True)
class ExactFitted:
    """First order in a single-atom cell: ``identifiable`` (bool, None when the basis's
    independence is undecided), the rank of the linear parts, and the relations that break it."""

    identifiable: bool | None
    rank: int
    params: int
    breaking: tuple

    def to_dict(self) -> dict:
        return {
            "identifiable": self.identifiable,
            "rank": self.rank,
            "params": self.params,
            "breaking": [r.text() for r in self.breaking],
        }


@dataclass(frozen=True, slots=True)
class CellResult:
    """Cells of ``m`` atoms: ``rbar`` (None: no order ≤ the highest tried has only the trivial
    solution), ``proved`` (r̄'s absence proof and the witness at r̄ − 1 both exact), the per-order
    decisions, the exponents {parameter: Fraction} and whether they are proved."""

    m: int
    rbar: int | None
    proved: bool
    decisions: tuple = field(repr=False)
    exponents: dict | None = None
    exponents_proved: bool = False
    forced_orders: dict | None = None

    @property
    def witness(self) -> SystemDecision | None:
        """The exact solution at the highest order with one (r̄ − 1, or the last order tried)."""
        solved = [d for d in self.decisions if d.status == NON_TRIVIAL and d.proved]
        return solved[-1] if solved else None

    def to_dict(self) -> dict:
        return {
            "m": self.m,
            "rbar": self.rbar,
            "proved": self.proved,
            "exponents": None if self.exponents is None else {k: str(v) for k, v in self.exponents.items()},
            "exponents_proved": self.exponents_proved,
            "forced_orders": self.forced_orders,
            "decisions": [d.to_dict() for d in self.decisions],
        }


@dataclass(frozen=True, slots=True)
class ModelVerdict:
    """The model-level check of one atom (module docstring)."""

    atom: AtomFunction = field(repr=False)
    verdict: Verdict | Outcome
    evidence: Evidence
    summary: str
    basis: SpanBasis = field(repr=False)
    grading: Grading
    exact_fitted: ExactFitted
    cells: tuple
    max_order: int
    seconds: float

    @property
    def bites(self) -> Bites | None:
        """Where the failure bites (:mod:`identcheck.util.bites`): not identifiable through the exact-fitted
        cells, whose test takes first derivatives only, so at order 1; None otherwise."""
        if self.verdict != Verdict.NOT_IDENTIFIABLE or self.exact_fitted.identifiable is not False:
            return None
        return bites_at(1)

    @property
    def unfinished(self) -> tuple[str, ...]:
        """The steps the atom's seconds cut: the terms built to a lower order than asked, a decision
        whose search or Gröbner basis ran out of time, orders of a cell size not tried (no time left)."""
        out = []
        if not self.basis.complete:
            out.append(f"terms built to order {self.basis.order} of {self.basis.requested}")
        for c in self.cells:
            for d in c.decisions:
                cut = [line for line in d.tried if "no time" in line or "out of time" in line]
                if cut or d.method.startswith("out of time"):
                    out.append(f"cells of {c.m} atom(s), order {d.order}: " + "; ".join(cut or [d.method]))
            tried = c.decisions[-1].order if c.decisions else 0
            if (
                c.rbar is None
                and tried < self.basis.order
                and (not c.decisions or c.decisions[-1].status == NON_TRIVIAL)
            ):
                span = (
                    f"order {tried + 1}"
                    if tried + 1 == self.basis.order
                    else f"orders {tried + 1} to {self.basis.order}"
                )
                out.append(f"cells of {c.m} atom(s): {span} not tried (no time left)")
        return tuple(out)

    def cell(self, m: int) -> CellResult:
        for c in self.cells:
            if c.m == m:
                return c
        raise KeyError(m)

    def to_dict(self) -> dict:
        return {
            "atom": self.atom.to_dict(),
            "verdict": str(self.verdict),
            "evidence": str(self.evidence),
            "summary": self.summary,
            "basis": self.basis.to_dict(),
            "grading": self.grading.to_dict(),
            "exact_fitted": self.exact_fitted.to_dict(),
            "cells": [c.to_dict() for c in self.cells],
            "max_order": self.max_order,
            "bites": None if self.bites is None else self.bites.to_dict(),
            "unfinished": list(self.unfinished),
            "seconds": round(self.seconds, 3),
        }


def exact_fitted(basis: SpanBasis) -> ExactFitted:
    """The first-order test of a single-atom cell (module docstring)."""
    q = len(basis.atom.params)
    firsts = [tuple(int(i == j) for i in range(q)) for j in range(q)]
    rows = len(basis.basis)
    matrix = sp.zeros(rows - 1, q)
    for j, kappa in enumerate(firsts):
        for position, coefficient in basis.expressions[kappa]:
            if position:
                matrix[position - 1, j] = coefficient
    rank = matrix.rank()
    breaking = tuple(r for r in basis.relations if sum(r.term) == 1)
    independent = basis.independent
    identifiable = (rank == q) if independent else (False if rank < q else None)
    return ExactFitted(identifiable, rank, q, breaking)


def _cell(basis, grading, m, max_order, deadline) -> CellResult:
    decisions = []
    forced_at: dict = {}
    rbar = None
    for order in range(1, max_order + 1):
        left = deadline - time.monotonic()
        if left <= 0:
            break
        decision = decide(coefficient_system(basis, grading, m, order), seconds=min(DECIDE_SECONDS, left))
        decisions.append(decision)
        for name in decision.forced:
            forced_at.setdefault(name, order)
        if decision.status == TRIVIAL or (decision.status == INCONCLUSIVE and decision.residual is not None):
            rbar = order  # an absence proved, or searched for in every case and not found (evidence)
            break
        if decision.status == INCONCLUSIVE:  # out of time: neither r̄ = order nor r̄ > order is shown
            break
    if rbar is None:
        return CellResult(m, None, False, tuple(decisions))
    last = decisions[-1]
    before = decisions[-2] if len(decisions) > 1 else None
    # Ungraded, the equations are complete only as far as orders were computed: never a proof.
    proved = grading.graded and last.status == TRIVIAL and last.proved and (before is None or before.proved)
    orders = {name: forced_at.get(name, rbar) for name in basis.atom.labels}
    exponents = None
    if grading.graded:
        exponents = {}
        for j, name in enumerate(basis.atom.labels):
            exponents[name] = Fraction(rbar, grading.weights[j]) if grading.tied[j] else Fraction(orders[name])
    return CellResult(m, rbar, proved, tuple(decisions), exponents, proved, orders)


def check_limits(max_order, max_cell) -> None:
    """The supported orders and cell sizes (:data:`MAX_ORDER`, :data:`MAX_CELL`): else one line naming the input."""
    if isinstance(max_order, bool) or not isinstance(max_order, int) or not 1 <= max_order <= MAX_ORDER:
        raise IdentcheckError(param="max_order", value=max_order, reason=f"must be from 1 to {MAX_ORDER}")
    if isinstance(max_cell, bool) or not isinstance(max_cell, int) or not 1 <= max_cell <= MAX_CELL:
        raise IdentcheckError(param="max_cell", value=max_cell, reason=f"must be from 1 to {MAX_CELL}")


def check_atom(
    atom: AtomFunction, max_order: int = 6, max_cell: int = 3, seconds: float = CHECK_SECONDS
) -> ModelVerdict:
    """The model-level check of ``atom`` to order ``max_order`` for cells of up to ``max_cell`` atoms."""
    check_limits(max_order, max_cell)
    start = time.monotonic()
    deadline = start + seconds
    basis = build_basis(atom, max_order, deadline=start + BASIS_SHARE * seconds)
    if basis.order < 1:
        raise IdentcheckError(param="seconds", value=seconds, reason="not enough time for the first-order terms")
    grading = find_grading(basis)
    first = exact_fitted(basis)
    sizes = range(1 if first.identifiable is False else 2, max_cell + 1)
    reached = basis.order
    cells = tuple(_cell(basis, grading, m, reached, deadline) for m in sizes)
    verdict, evidence, summary = _summary(basis, first, cells, reached, grading.graded)
    if not grading.graded and any(c.m > 1 for c in cells):
        summary += f" (no grading: equations judged complete on orders ≤ {reached} only, so no r̄ is proved)"
    if not basis.complete:
        summary += f" (terms built to order {reached} of {max_order} within {seconds:g} s)"
    return ModelVerdict(
        atom, verdict, evidence, summary, basis, grading, first, cells, max_order, time.monotonic() - start
    )


def _cell_text(c: CellResult, max_order: int) -> str:
    if c.rbar is None:
        witness = c.witness
        if witness is not None and witness.order == max_order:
            return f"r̄({c.m}) > {max_order} (exact solution at order {max_order})"
        last = f"{c.decisions[-1].method} at order {c.decisions[-1].order}" if c.decisions else "no time left"
        return f"r̄({c.m}) undecided ({last})"
    label = "" if c.proved else " (evidence)"
    exps = "" if c.exponents is None else " exponents " + ", ".join(f"{k}: {v}" for k, v in c.exponents.items())
    return f"r̄({c.m}) = {c.rbar}{label}{exps}"


def _summary(basis: SpanBasis, first: ExactFitted, cells, max_order: int, graded: bool = True):
    independence = basis.independence
    certified = bool(independence and independence.independent and independence.proof is not None)
    basis_proved = basis.all_proved and certified
    basis_evidence = Evidence.PROOF if basis_proved else Evidence.NUMERIC
    witness_evidence = basis_evidence if graded else Evidence.NUMERIC  # ungraded: a solution of truncated equations
    failing = [c for c in cells if c.rbar is None and c.witness is not None and c.witness.order == max_order]
    over = "; ".join(_cell_text(c, max_order) for c in cells if c.m > 1)
    if first.identifiable is False and failing and failing[0].m == 1:
        why = "; ".join(f"{r.text()} ({r.family})" for r in first.breaking) or "the first-order terms are dependent"
        where = Bites(1, Cells.EXACT_FITTED).where
        text = f"not identifiable up to order {max_order}: bites {where}, through {why}"
        return Verdict.NOT_IDENTIFIABLE, basis_evidence, text + (f"; {over}" if over else "")
    if failing and basis.complete:  # a truncated basis: a solution at the last order built proves nothing asked
        sizes = ", ".join(f"r̄({c.m}) > {max_order}" for c in failing)
        text = f"order too low: {sizes}, shown by an exact solution at order {max_order}"
        text += " (exact-fitted cells identifiable at first order)" if first.identifiable else ""
        return Outcome.ORDER_TOO_LOW, witness_evidence, f"{text}; {over}"
    if first.identifiable is None:
        exact = "exact-fitted test undecided"
    elif first.identifiable:
        exact = "exact-fitted identifiable (first order)"
    else:  # decided: the first order does not suffice; the m = 1 cells say which order does
        exact = "exact-fitted cells not identifiable at first order"
    parts = [exact] + [_cell_text(c, max_order) for c in cells]
    if first.identifiable is None or any(c.rbar is None for c in cells):
        return Verdict.INCONCLUSIVE, Evidence.NUMERIC, "; ".join(parts)
    proved = basis_proved and all(c.proved for c in cells)
    if not certified:
        parts.append("the basis's independence not proved (float64 rank decision: evidence)")
    return Verdict.IDENTIFIABLE, Evidence.PROOF if proved else Evidence.NUMERIC, "; ".join(parts)
