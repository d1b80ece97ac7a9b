"""An expert's parameters as typed ids — the structural keys' convention, as type-1's
``("a", 0)``: ``("e1", 0)`` for component 0 (0-based) of the vector parameter e1, ``("e0",)`` for
a scalar. The sympy symbols of :mod:`identcheck.parse.expert` are named from them (e1_1, e0); the expert
sets' keys (:mod:`identcheck.terms.expert_sets`) carry the ids, and the families (``families.base.structure``)
read a key's ids back as those symbols' names. Imports nothing: a type-1 check that reads no expert
loads no expert module.
"""

from __future__ import annotations

__all__ = ["parameter_ids", "symbol_name"]


def parameter_ids(names, vectors, dim: int) -> tuple:
    """θ's entries as typed ids, in the expert's flat order (``names`` in order, a vector's ``dim``
    components in place): ``(name, i)`` for component i of a vector parameter, ``(name,)`` for a scalar."""
    ids: list[tuple] = []
    for name in names:
        ids.extend([(name, i) for i in range(dim)] if name in vectors else [(name,)])
    return tuple(ids)


def symbol_name(pid: tuple) -> str:
    """The name of the sympy symbol of a parameter id: ``e1_1`` for ``("e1", 0)``, ``e0`` for ``("e0",)``."""
    return f"{pid[0]}_{pid[1] + 1}" if len(pid) == 2 else pid[0]
