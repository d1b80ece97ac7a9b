"""A plain-text account of a model-level verdict: what the command line prints, line by line.

One block per atom: the verdict and its evidence; the basis (size, order reached, the relations
with where they hold, whether proved and their family); the grading; the exact-fitted test; per
cell size the decision of each order tried (status, proved or evidence, method) with the witness
and the exponents. Plain data in, text out: no sympy beyond printing values.
"""

from __future__ import annotations

import sympy as sp

from .verdict import ModelVerdict

__all__ = ["verdict_text"]


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
        "none (completeness judged on the orders computed)"
        if weights is None
        else ", ".join(f"{name}: {w}" for name, w in zip(atom.labels, weights))
    )
    lines.append(f"  grading: {graded}")
    first = verdict.exact_fitted
    lines.append(f"  exact-fitted (first order): identifiable = {first.identifiable}, rank {first.rank}/{first.params}")
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
    return "\n".join(lines)
