"""A plain-text account of a model-level verdict: what the command line prints, line by line.

A declared model (:func:`declared_text`): its verdict, then one block per atom: the verdict and
its evidence; the basis (size, order reached, the relations with where they hold, whether proved
and their family); the grading; the exact-fitted test; per cell size the decision of each order
tried (status, proved or evidence, method) with the witness and the exponents.
:func:`declared_markdown` is the one-table view, a row per atom. Plain data in, text out: no
sympy beyond printing values.
"""

from __future__ import annotations

import sympy as sp

from .declared import DeclaredCheck
from .verdict import CellResult, ModelVerdict

__all__ = ["declared_markdown", "declared_text", "verdict_text"]

SCHEMA = "identcheck.model/4"  # the JSON of ``identcheck model``: DeclaredCheck.to_dict() under this name


def verdict_text(verdict: ModelVerdict) -> str:
    """The text report of ``verdict``."""
    atom, basis = verdict.atom, verdict.basis
    lines = [
        f"{atom.name or 'atom'}: {verdict.verdict} ({verdict.evidence}) — {verdict.summary}",
        f"  truth: {', '.join(f'{p.name} = {sp.sstr(t)}' for p, t in zip(atom.params, atom.truth))}",
        f"  basis: {len(basis.basis)} terms to order {basis.order}"
        + ("" if basis.complete else f" (of {basis.requested} asked)")
        + f", independent: {basis.independent}, {basis.derived} terms derived from every-θ relations",
    ]
    for relation in basis.relations:
        status = "proved" if relation.proved else ("timed out" if relation.timed_out else "NOT proved")
        lines.append(f"    {relation.text()}   [{relation.holds}; {status}; {relation.family}]")
    weights = verdict.grading.weights
    graded = (
        f"none (completeness judged on orders ≤ {basis.order} only: no r̄ proved)"
        if weights is None
        else ", ".join(f"{name}: {w}" for name, w in zip(atom.labels, weights))
        + f" (read off the relations at orders ≤ {basis.order}, assumed to hold above)"
    )
    lines.append(f"  grading: {graded}")
    first = verdict.exact_fitted
    lines.append(f"  exact-fitted (first order): identifiable = {first.identifiable}, rank {first.rank}/{first.params}")
    if verdict.bites is not None:
        lines.append(f"  {verdict.bites.text}")
    for cell in verdict.cells:
        rbar = "—" if cell.rbar is None else f"{cell.rbar}{'' if cell.proved else ' (evidence)'}"
        lines.append(f"  cells of {cell.m} atom(s): r̄ = {rbar}")
        for decision in cell.decisions:
            kind = "proof" if decision.proved else "evidence"
            forced = f"; forced {', '.join(decision.forced)}" if decision.forced else ""
            lines.append(f"    r = {decision.order}: {decision.status} ({kind}: {decision.method}{forced})")
        if cell.witness is not None:
            values = ", ".join(f"{k} = {sp.sstr(v)}" for k, v in cell.witness.solution.items())
            lines.append(f"    witness at r = {cell.witness.order}: {values}")
        if cell.exponents is not None:
            exps = ", ".join(f"{k}: {v}" for k, v in cell.exponents.items())
            lines.append(f"    exponents: {exps}{'' if cell.exponents_proved else ' (evidence)'}")
    lines += [f"  cut by the budget: {u}" for u in verdict.unfinished]
    return "\n".join(lines)


def declared_text(check: DeclaredCheck) -> str:
    """The text report of a declared model: its verdict, the joint independence, each atom's block."""
    joint = {True: "independent", False: "DEPENDENT", None: "undecided"}[check.joint]
    if check.joint is True and not check.joint_proved:
        joint += " (float64 evidence, not proved)"
    lines = [
        f"model {check.name}: {check.verdict} ({check.evidence}) — order ≤ {check.max_order}, cells of ≤ "
        f"{check.max_cell} atoms, {check.seconds:.1f} s",
    ]
    if check.summary:
        lines.append(f"  {check.summary}")
    if check.bites is not None:
        lines.append(f"  {check.bites.text}")
    lines += [f"  cut by the budget: {u}" for u in check.unfinished]
    together = " with the softmax denominator's terms" if any(not d.single for d in check.denominators) else ""
    if check.cleared:
        cleared = ", ".join(f"parts.{p}" for p in check.cleared)
        together += f", {cleared} multiplied by the true denominator S*(x)"
    lines.append(f"  the {len(check.results)} true atoms' bases together{together}: {joint}")
    lines += [f"  {d.text()}" for d in check.denominators]
    lines += [f"  {r.text()}" for r in check.recombinations]
    for _, verdict in check.results:
        lines += ["", verdict_text(verdict) + f"\n  ({verdict.seconds:.1f} s)"]
    return "\n".join(lines)


def _rbar(cell: CellResult) -> str:
    if cell.rbar is None:
        return "—"
    return f"{cell.rbar}" + ("" if cell.proved else " (evidence)")


def declared_markdown(check: DeclaredCheck) -> str:
    """A markdown table of a declared model: a row per atom (verdict, exact-fitted, r̄(m), exponents)."""
    sizes = sorted({c.m for _, v in check.results for c in v.cells if c.m > 1})
    head = ["atom", "verdict", "exact-fitted", "bites"] + [f"r̄({m})" for m in sizes] + ["exponents", "s"]
    lines = [
        f"**{check.name}**: {check.verdict} ({check.evidence}), order ≤ {check.max_order}; atoms jointly "
        + {True: "independent", False: "dependent", None: "undecided"}[check.joint],
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for _, verdict in check.results:
        cells = {c.m: c for c in verdict.cells}
        last = cells.get(max(sizes)) if sizes else None
        exponents = (
            "" if last is None or last.exponents is None else ", ".join(f"{k} {v}" for k, v in last.exponents.items())
        )
        row = [verdict.atom.name, f"{verdict.verdict} ({verdict.evidence})", str(verdict.exact_fitted.identifiable)]
        row.append("—" if verdict.bites is None else verdict.bites.text)
        row += [_rbar(cells[m]) if m in cells else "" for m in sizes] + [exponents, f"{verdict.seconds:.1f}"]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)
