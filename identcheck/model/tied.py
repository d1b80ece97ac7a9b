r"""Tied parameters: one value per group of atoms (a head's gate matrices M, shared by its channels).

A tied parameter t enters the cell expansion of every atom of its fitted group: the fitted atoms
(p_i, t_g + Δt_g, η_i + Δη_i) of group g share Δt_g, and they may lie in the Voronoi cells of
several true atoms at once — the tied atoms move together. The per-cell coefficient systems
(:mod:`.system`) do not express that coupling; two systems that bracket it do:

- **relaxed**: every atom its own copy of t (its own Δt_i). Every fitted measure of the tied model
  is one of the relaxed model, so only the trivial solution there is only the trivial solution
  with tying: an absence proof, the exact-fitted test, r̄(m) as an *upper* bound and the joint
  independence carry over;
- **held**: t at its true value in every atom (Δt = 0), the other parameters free. A non-trivial
  solution there is one of the tied model (every group keeps t*, the other cells stay at the
  truth): a witness carries over, and r̄(m) of the held system is a *lower* bound.

:func:`check_tied` runs the held system first (a witness ends it), then the relaxed one. The
verdict: *not identifiable*, or *order too low* (r̄(m) > R), from the held system's exact
solutions, with their evidence; *identifiable* when the relaxed system is, with r̄(m) proved where
the two bounds meet (else reported as the relaxed one, labelled a bound); *inconclusive*
otherwise, whatever the relaxed system's outcome — its witnesses and its order too low move t,
and a relaxed solution that moves t says nothing about the tied model (its partner atoms in other
cells move with it) — and whatever the held system's when it is identifiable or inconclusive (a
lower bound, or nothing), both systems' outcomes named in the summary.
"""

from __future__ import annotations

import dataclasses
import time

from ..evidence import Evidence, Verdict
from .atom import AtomFunction, atom_function
from .verdict import CellResult, ModelVerdict, Outcome, check_atom

__all__ = ["check_tied", "held_atom"]

#: the held system's outcomes that carry over: each rests on an exact solution (a failure at every
#: order tried, or r̄(m) above the highest order tried), which the tied model has too
CARRIED = (Verdict.NOT_IDENTIFIABLE, Outcome.ORDER_TOO_LOW)
HELD_SHARE = 0.6  # of the atom's seconds, at most, for the held system
RELAXED_SECONDS = 5.0  # the relaxed system is not started with less time left


def held_atom(atom: AtomFunction, tied: tuple) -> AtomFunction:
    """``atom`` with the parameters ``tied`` (symbols) at their true values: no longer parameters."""
    at = {p: t for p, t in zip(atom.params, atom.truth) if p in tied}
    rest = [(p, t) for p, t in zip(atom.params, atom.truth) if p not in tied]
    box = {v.name: interval for v, interval in zip(atom.variables, atom.box)}
    tube = None if atom.tube is None else (atom.variables[atom.tube[0]], atom.tube[1], atom.tube[2])
    return atom_function(atom.expr.xreplace(at), atom.variables, [p for p, _ in rest], dict(rest), box, atom.name, tube)


def check_tied(atom: AtomFunction, tied: tuple, max_order: int, max_cell: int, seconds: float) -> ModelVerdict:
    """The model-level verdict of an atom whose parameters ``tied`` are one per group (module docstring)."""
    start = time.monotonic()
    names = ", ".join(p.name for p in atom.params if p in tied)
    held = check_atom(held_atom(atom, tied), max_order=max_order, max_cell=max_cell, seconds=HELD_SHARE * seconds)
    if held.verdict in CARRIED:  # an exact solution of the held system is one of the tied model
        summary = f"{held.summary} [tied {names} held at the truth: a witness of the tied model]"
        return dataclasses.replace(held, summary=summary, seconds=time.monotonic() - start)
    left = seconds - (time.monotonic() - start)
    if left < RELAXED_SECONDS:
        summary = f"inconclusive for the tied model: with {names} held at the truth: {held.summary}; no time left for "
        summary += f"the system with each atom its own copy of {names} (within {seconds:g} s)"
        return dataclasses.replace(
            held,
            verdict=Verdict.INCONCLUSIVE,
            evidence=Evidence.NUMERIC,
            summary=summary,
            seconds=time.monotonic() - start,
        )
    relaxed = check_atom(atom, max_order=max_order, max_cell=max_cell, seconds=left)
    lower = {c.m: c.rbar for c in held.cells if c.proved}  # proved: a witness below it and absence at it
    if relaxed.verdict != Verdict.IDENTIFIABLE:
        summary = (
            f"inconclusive for the tied model: with each atom its own copy of {names}: {relaxed.verdict} "
            f"({relaxed.summary}); with {names} held at the truth: {held.verdict} ({held.summary})"
        )
        return dataclasses.replace(
            relaxed,
            verdict=Verdict.INCONCLUSIVE,
            evidence=Evidence.NUMERIC,
            summary=summary,
            seconds=time.monotonic() - start,
        )
    cells = tuple(_bounded(c, lower.get(c.m)) for c in relaxed.cells)
    bounds = [f"r̄({c.m}) in [{lower.get(c.m) or 1}, {c.rbar}]" for c in cells if not c.proved and c.m > 1]
    summary = f"{relaxed.summary} [each atom its own copy of tied {names}: a relaxation, sound for absence"
    summary += ("; " + ", ".join(bounds) + "]") if bounds else "]"
    proved = relaxed.evidence == Evidence.PROOF and all(c.proved for c in cells)
    return dataclasses.replace(
        relaxed,
        cells=cells,
        summary=summary,
        evidence=Evidence.PROOF if proved else Evidence.NUMERIC,
        seconds=time.monotonic() - start,
    )


def _bounded(cell: CellResult, lower: int | None) -> CellResult:
    """A relaxed cell's r̄, proved for the tied model only when the held system's r̄ meets it."""
    if cell.rbar is None or (cell.proved and lower == cell.rbar):
        return cell
    return dataclasses.replace(cell, proved=False, exponents_proved=False)
