"""The "for all" reading of a scan of an expert's constant (``--condition deepseek-…``; docs/scan.md).

An expert condition is scanned as any condition is (:class:`~identcheck.scan.family.Family`:
rebuilt at each grid value with the constant written in exactly, every probe decided by the
driver's rule, verdict changes bisected, simple numbers checked in full with ``certify`` if
asked). When every grid value is not identifiable, :func:`symbolic_witness` takes the witness of
the full check at the first grid value — a relation Σ λ_c m_c = 0 among the set's members on the
witness probe's atoms, with exact coefficients — and asks sympy whether the same relation holds
with the scanned constants left symbolic: the members are rebuilt from the expert parsed with
those constants free (differentiated only in the condition's parameters), the atoms' values
substituted, and the sum reduced to 0 as the check's proofs do
(:meth:`~identcheck.families.reach.ProbeAlgebra.decide`, the constants variables of the identity
as x is: a value at a rational point refutes it). Proved, the probe is dependent at every
value of the constants where the expert and its members are defined — not identifiable for
every such value, not only at the grid's. A linear expert ``s*(dot(e1, x) + e0)`` is the
example: ∂h/∂e0 = s at every atom, so two atoms tie for every s.
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from ..families.reach import PROVED, ProbeAlgebra
from ..parse.expert import Expert, parse_expert
from .report import ForAll

__all__ = ["symbolic_witness"]


def symbolic_witness(family, values) -> ForAll | None:
    """The witness relation of a full check at ``values``, proved with the scanned constants
    symbolic (a :class:`ForAll`), or None (not an expert condition, no exact witness, not proved)."""
    found = family.exact_check(values, certify=False)
    if found is None:
        return None
    _, setup, result = found
    witness = result.witness_probe
    relation = None if witness is None else witness.relation
    if not isinstance(setup.activation, Expert) or relation is None or relation.exact is None or not relation.keys:
        return None
    index, probe = next((i, p) for i, p in enumerate(setup.probes()) if p.name == witness.name)
    matrix = setup.matrix(probe, index)
    algebra = getattr(matrix, "algebra", None)  # the members' symbolic side (conditions/deepseek.py)
    if algebra is None or any(k not in matrix.keys for k in relation.keys):
        return None
    names = tuple(a.name for a in family.axes)
    free = parse_expert(family.text, setup.dim, dict(family.fixed), order=getattr(setup, "order", 2))
    constants = tuple(s for s in free.params if s.name in names)  # variables of the identity, as x is
    symbolic = ProbeAlgebra(dataclasses.replace(setup.activation, x=setup.activation.x + constants), algebra.set, probe)
    symbolic.templates.append((f"the expert with {', '.join(names)} symbolic", free.h))
    coefficients = [(matrix.keys.index(k), sp.Rational(v)) for k, (_, v) in zip(relation.keys, relation.exact)]
    verdict, _ = symbolic.decide(coefficients, len(symbolic.templates) - 1)
    if verdict != PROVED:
        return None
    return ForAll(relation.family or "a relation", f"{relation} on probe {probe.name!r}", names)
