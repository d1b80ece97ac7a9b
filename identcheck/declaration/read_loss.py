"""Read the ``[loss]`` table of a declaration into a :class:`~.loss.Loss` (the loss is :mod:`.loss`).

Refused in one line naming the key: a part the model does not have, or a part left without its
loss; a parameter the part does not have (in ``cells``, a term's ``params``, or ``params`` of
per-parameter errors); a cell weight the part's gate has no parameter for (``omega`` without a
constant gate, ``exp-beta0`` without β0); an exponent that is not a positive number, ``r``, ``r/2``
or ``none``; an ``r`` exponent without an ``r`` table, or a table that misses a cell size the fitted
counts allow (2 … fitted − truth + 1); target atoms fewer than the truth's or more than the fitted;
``top_k_subsets`` on a part whose gate is not top-K; the ``softmax-shift`` symmetry in a model
without a shift-invariant gate; ``permutation`` matching with fitted ≠ truth atoms; ``inner-orders``
without an inner mixture, ``group-permutations`` without groups, ``level = "inner"`` on a part
without an inner mixture, target atoms for a nested part.
"""

from __future__ import annotations

from .atoms import read_atoms
from .gates import shift_invariant
from .keys import Table, fail, key_path, suggestion
from .loss import (
    CELL_BY,
    CELL_WEIGHTS,
    DISTANCES,
    LEVELS,
    SYMMETRIES,
    TARGETS,
    Exponent,
    Loss,
    PartErrors,
    PartLoss,
    Term,
)
from .model import Inputs, Part

__all__ = ["read_loss"]

KINDS = ("voronoi", "parameter-errors")
_DEFAULT_MASS = {"constant": "omega", "softmax": "exp-beta0", "sigmoid": "sigmoid-beta0"}
_DEFAULT_MASS |= {"normalized-sigmoid": "sigmoid-beta0", "top-k": "exp-beta0"}


def read_loss(table: Table, parts: tuple[Part, ...], inputs: Inputs) -> Loss:
    """The loss declared in ``table`` for the model's ``parts``."""
    kind = table.text("kind", "voronoi", choices=KINDS)
    symmetries = table.names("symmetries", ())
    for index, symmetry in enumerate(symmetries):
        key = key_path(table.key("symmetries"), index)
        if symmetry not in SYMMETRIES:
            fail(key, symmetry, f"unknown symmetry{suggestion(symmetry, SYMMETRIES)}; known: {', '.join(SYMMETRIES)}")
        if symmetry == "softmax-shift" and not any(shift_invariant(p.gate.kind, p.gate.of) for p in parts):
            fail(key, symmetry, "no part of this model has a shift-invariant gate")
        if symmetry == "inner-orders" and not any(p.inner for p in parts):
            fail(key, symmetry, "no part of this model has an inner mixture")
        if symmetry == "group-permutations" and not any(p.groups for p in parts):
            fail(key, symmetry, "no part of this model has groups")
    each = table.table("parts")
    by_name = {part.name: part for part in parts}
    for name in each.data:
        if name not in by_name:
            why = f"not a part of this model{suggestion(name, by_name)}; parts: {', '.join(by_name)}"
            fail(each.key(name), reason=why)
    read = _part_errors if kind == "parameter-errors" else _part_loss
    losses = []
    for part in parts:
        if not each.has(part.name):
            fail(each.key(part.name), reason=f"missing: the loss of part {part.name!r}")
        losses.append(read(each.table(part.name), part, inputs))
    each.done()
    table.done()
    return Loss(kind, tuple(losses), tuple(symmetries))


def _parameters(table: Table, name: str, part: Part, default=None) -> tuple[str, ...]:
    names = table.names(name) if default is None else table.names(name, default)
    for index, param in enumerate(names):
        if param not in part.parameters:
            fail(
                key_path(table.key(name), index),
                param,
                f"not a parameter of part {part.name!r}{suggestion(param, part.parameters)}; "
                f"its parameters: {', '.join(part.parameters)}",
            )
    return names


def _cell_weight(table: Table, name: str, part: Part, default: str) -> str:
    weight = table.text(name, default, choices=tuple(CELL_WEIGHTS))
    needs = CELL_WEIGHTS[weight]
    if needs is not None and needs not in part.gate_parameters:
        fail(table.key(name), weight, f"the {part.gate.kind} gate of part {part.name!r} has no {needs}")
    return weight


def _part_loss(table: Table, part: Part, inputs: Inputs) -> PartLoss:
    weightless = tuple(p for p in part.parameters if p not in ("omega", "beta0"))
    cells = _parameters(table, "cells", part, weightless)
    mass = _cell_weight(table, "mass", part, _DEFAULT_MASS.get(part.gate.kind, "none"))
    mass_cells = table.text("mass_cells", "all", choices=("all", "over-fitted"))
    weight = _cell_weight(table, "weight", part, mass)
    r = _r_table(table, part)
    given = table.raw("terms")
    if not isinstance(given, list) or not given:
        fail(table.key("terms"), given, "expected the terms, an array of tables ([[…terms]]) with at least one")
    terms = []
    for index, entry in enumerate(given):
        term = Table(entry, key_path(table.key("terms"), index))
        params = _parameters(term, "params", part)
        exact, over = _exponent(term, "exact", r), _exponent(term, "over", r)
        term.done()
        terms.append(Term(params, exact, over))
    target = table.text("target", "truth", choices=TARGETS)
    target_atoms = ()
    if target == "atoms":
        if part.inner or part.groups:
            fail(table.key("target"), target, f"part {part.name!r} is nested; its target atoms are not read yet")
        target_atoms = _target_atoms(table, part, inputs)
    distance = table.text("distance", "euclidean", choices=DISTANCES)
    cell_by = table.text("cell_by", "parameters", choices=CELL_BY)
    level = table.text("level", "atoms", choices=LEVELS)
    if level == "inner" and part.inner is None:
        fail(table.key("level"), level, f"part {part.name!r} has no inner mixture")
    top_k_subsets = table.raw("top_k_subsets", False)
    if not isinstance(top_k_subsets, bool):
        fail(table.key("top_k_subsets"), top_k_subsets, "expected true or false")
    if top_k_subsets and part.gate.kind != "top-k":
        fail(table.key("top_k_subsets"), True, f"part {part.name!r} has a {part.gate.kind} gate, not top-k")
    table.done()
    return PartLoss(
        part.name,
        cells,
        mass,
        mass_cells,
        weight,
        tuple(terms),
        r,
        target,
        target_atoms,
        top_k_subsets,
        distance,
        cell_by,
        level,
    )


def _exponent(table: Table, name: str, r) -> Exponent:
    value = table.raw(name)
    if value in ("r", "r/2"):
        if not r:
            fail(table.key(name), value, "an exponent r needs the part's r table (r = {2 = 4, 3 = 6})")
        return Exponent(value)
    if value == "none":
        return Exponent("none")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        fail(table.key(name), value, "expected a positive number, 'r', 'r/2' or 'none'")
    return Exponent("number", float(value))


def _r_table(table: Table, part: Part) -> tuple[tuple[int, int], ...]:
    given = table.raw("r", None)
    if given is None:
        return ()
    key = table.key("r")
    if not isinstance(given, dict):
        fail(key, given, "expected a table by cell size, r = {2 = 4, 3 = 6}")
    out = {}
    for size, value in given.items():
        if not size.isdigit() or int(size) < 2:
            fail(key_path(key, size), value, "a cell size is an integer from 2")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            fail(key_path(key, size), value, "r(|V|) is a positive integer")
        out[int(size)] = value
    largest = part.fitted - len(part.truth) + 1
    for size in range(2, largest + 1):
        if size not in out:
            fail(key, given, f"misses r({size}): part {part.name!r} may have cells of 2 … {largest} atoms")
    return tuple(sorted(out.items()))


def _target_atoms(table: Table, part: Part, inputs: Inputs):
    atoms = read_atoms(table, "target_atoms", part.shapes, inputs.dim, part.variance, 0.0)
    if not len(part.truth) <= len(atoms) <= part.fitted:
        fail(
            table.key("target_atoms"),
            reason=f"{len(atoms)} atoms; a target has from the truth's {len(part.truth)} to the fitted {part.fitted}",
        )
    return atoms


def _part_errors(table: Table, part: Part, inputs: Inputs) -> PartErrors:
    params = _parameters(table, "params", part)
    match = table.text("match", "voronoi", choices=("voronoi", "permutation"))
    if match == "permutation" and part.fitted != len(part.truth):
        fail(
            table.key("match"),
            match,
            f"a permutation matches fitted to true atoms only when they are as many ({part.fitted}, {len(part.truth)})",
        )
    reduce = table.text("reduce", "max", choices=("max", "mean"))
    table.done()
    return PartErrors(part.name, params, match, reduce)
