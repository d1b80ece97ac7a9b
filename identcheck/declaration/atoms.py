"""Read a part's atoms: an array of TOML tables, one per atom, each giving every parameter.

A parameter's value has its shape: a number (a scalar), d numbers (a vector; a number alone when
d = 1), or d rows of d numbers (a symmetric matrix; checked symmetric). An atom without one of
the part's parameters, or with a parameter the part does not have, is refused naming the key
(``parts.routed.truth[1].nu``), as is a variance ≤ 0 or below the declared floor.
"""

from __future__ import annotations

from .keys import Table, fail, number, suggestion
from .model import Atom, Value, as_number

__all__ = ["MAX_ATOMS", "read_atoms"]

MAX_ATOMS = 64


def read_atoms(
    table: Table, key: str, shapes: dict[str, str], dim: int, variance: str | None = None, floor: float | None = None
) -> tuple[Atom, ...]:
    """The atoms listed under ``key`` (an array of tables), each with every parameter of ``shapes``;
    ``variance``, the name of the variance parameter, must be positive and at least ``floor``."""
    given = table.raw(key)
    path = table.key(key)
    if not isinstance(given, list) or not given:
        fail(path, given, "expected the atoms, an array of tables ([[…truth]]) with at least one atom")
    if len(given) > MAX_ATOMS:
        fail(path, reason=f"more than {MAX_ATOMS} atoms")
    atoms = []
    for index, entry in enumerate(given):
        atom = Table(entry, f"{path}[{index}]")
        values = []
        for name, shape in shapes.items():
            if not atom.has(name):
                fail(atom.key(name), reason=f"missing (every atom gives {', '.join(shapes)})")
            values.append((name, _value(atom.raw(name), shape, dim, atom.key(name))))
        for extra in atom.data:
            if extra not in shapes:
                fail(
                    atom.key(extra),
                    atom.data[extra],
                    f"not a parameter of this part{suggestion(extra, shapes)}; its parameters: {', '.join(shapes)}",
                )
        atoms.append(Atom(tuple(values)))
    if variance is not None:
        for index, read in enumerate(atoms):
            where = f"{path}[{index}].{variance}"
            value = as_number(read[variance])  # its shape is "scalar": read by number() above
            if value <= 0:
                fail(where, value, "a variance must be positive")
            assert floor is not None  # a variance is read with its floor (the noise's, or 0)
            if value < floor:
                fail(where, value, f"below noise.variance_floor={floor}")
    return tuple(atoms)


def _value(value, shape: str, dim: int, key: str) -> Value:
    if shape == "scalar":
        return number(value, key)
    if shape == "vector":
        if dim == 1 and not isinstance(value, list):
            return (number(value, key),)
        if not isinstance(value, list) or len(value) != dim:
            fail(key, value, f"expected a vector of d = {dim} numbers")
        return tuple(number(v, f"{key}[{i}]") for i, v in enumerate(value))
    if dim == 1 and not isinstance(value, list):
        return ((number(value, key),),)
    square = isinstance(value, list) and len(value) == dim and all(isinstance(r, list) and len(r) == dim for r in value)
    if not square:
        fail(key, value, f"expected a symmetric {dim}×{dim} matrix, as {dim} rows")
    rows = tuple(tuple(number(v, f"{key}[{i}][{j}]") for j, v in enumerate(row)) for i, row in enumerate(value))
    for i in range(dim):
        for j in range(i):
            if rows[i][j] != rows[j][i]:
                fail(key, value, f"not symmetric: entry [{i}][{j}] ≠ [{j}][{i}]")
    return rows
