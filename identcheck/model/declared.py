r"""From a declared model (:mod:`identcheck.declaration`) to the atoms the model-level check takes.

A declared part's per-atom term (:func:`~identcheck.declaration.atom_functions`) is
gate factor × expert (regression) or gate factor × N(y | h, ν) (density). The check wants the
atom's weight p_i > 0 apart from F (:mod:`.atom`), so the part's gate must factor it out:

- ``constant``: ω_i·F, F = h or N(y | h, ν): p = ω;
- ``softmax``: exp(β1ᵀx + β0)·N(…) = e^{β0}·F with F = exp(β1ᵀx)·N(…): p = e^{β0}; the
  denominator cleared with the fitted atoms adds −exp(β1ᵀx)·f_{G*} per atom, whose coefficients
  repeat the pure-β1 equations (:mod:`.examples`, docs/model.md).

Refused, one line each, naming the key: a declaration that identcheck's checks refuse (``relu``:
:meth:`~identcheck.declaration.Declaration.refusal`); other gates (sigmoid and normalised sigmoid
gates have no weight to factor out — the atoms' weights are the gate values themselves; Laplace
gating is not smooth at x = W; top-K is a selection; a quadratic softmax's weight is the outer
channel weight of a nested part); nested parts (an expert that is a function of an inner mixture)
and tied parameters (a gate shared by a group of atoms), whose atoms are not independent
components of one mixing measure.

Each true atom of a part gives one :class:`~identcheck.model.atom.AtomFunction` at its truth,
sampled on the declared input box (a normal input: [−3, 3]^d) and, for a density, y in the tube
h*(x) ± 6 standard deviations around the true expert (:mod:`.atom`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from ..declaration import Declaration, atom_functions
from ..errors import IdentcheckError
from ..parse.grammar import lambdify_modules
from .atom import AtomFunction, atom_function
from .joint import joint_independence
from .verdict import CHECK_SECONDS, ModelVerdict, check_atom

__all__ = ["DeclaredCheck", "check_declaration", "declared_atoms"]

#: the gate parameter that is the weight, and its neutral value
WEIGHTS = {"constant": ("omega", 1), "softmax": ("beta0", 0)}
NORMAL_BOX = 3
SPREAD = 6


def declared_atoms(declaration: Declaration, part: str) -> tuple[AtomFunction, ...]:
    """The :class:`~identcheck.model.atom.AtomFunction` of each true atom of ``part``."""
    refusal = declaration.refusal()
    if refusal is not None:
        raise IdentcheckError(refusal)
    spec = declaration.part(part)
    where = f"parts.{spec.name}"
    if spec.gate.kind not in WEIGHTS:
        raise IdentcheckError(
            param=f"{where}.gate.kind",
            value=spec.gate.kind,
            reason="the model-level check takes constant and softmax gates (a weight it can factor out)",
        )
    if getattr(spec, "inner", None) is not None:
        raise IdentcheckError(param=f"{where}.inner", reason="a nested part's atoms are not independent components")
    if getattr(spec, "tied", ()):
        raise IdentcheckError(param=f"{where}.tied", value=list(spec.tied), reason="tied parameters are not supported")
    functions = atom_functions(declaration, spec)
    weight_name, neutral = WEIGHTS[spec.gate.kind]
    (weight,) = [s for s, name in zip(functions.params, functions.names) if name == weight_name]
    term = functions.term.xreplace({weight: neutral})
    if sp.simplify(functions.term / term).free_symbols - {weight}:
        raise IdentcheckError(param=f"{where}.gate", reason="the term does not factor as weight × F")
    params = tuple(s for s in functions.params if s != weight)
    variables = tuple(functions.x) + ((functions.y,) if functions.y is not None else ())
    out = []
    for index, atom in enumerate(spec.truth):
        values = functions.values(atom)
        truth = {s.name: values[s] for s in params}
        box, tube = _region(declaration, functions, values)
        out.append(atom_function(term, variables, params, truth, box, f"{spec.name}[{index + 1}]", tube))
    return tuple(out)


def _region(declaration: Declaration, functions, values) -> tuple:
    """(box, tube): the input box; for a density y's range and the tube y = h*(x) ± 6√ν*."""
    inputs = declaration.inputs
    low, high = (inputs.low, inputs.high) if inputs.kind == "uniform" else (-NORMAL_BOX, NORMAL_BOX)
    box = {x.name: (low, high) for x in functions.x}
    if functions.y is None:
        return box, None
    expression = functions.expert.xreplace(values)
    expert = sp.lambdify(functions.x, expression, modules=lambdify_modules(expression))
    grid = np.linspace(float(low), float(high), 41)
    mesh = np.meshgrid(*([grid] * len(functions.x)))
    h = np.broadcast_to(np.asarray(expert(*mesh), dtype=float), mesh[0].shape)
    (variance,) = [values[s] for s in functions.params if s.name == declaration.part(functions.part).variance]
    spread = SPREAD * float(variance) ** 0.5
    box[functions.y.name] = (int(np.floor(h.min() - spread)), int(np.ceil(h.max() + spread)))
    return box, (functions.y, expression, Fraction(spread).limit_denominator(1000))


@dataclass(frozen=True, slots=True)
class DeclaredCheck:
    """The model-level verdict of every true atom of every part: ``results`` ((part, verdict), …),
    and ``joint`` the independence of all their bases together (:mod:`.joint`; None: undecided)."""

    name: str
    results: tuple
    joint: bool | None = None

    def to_dict(self) -> dict:
        atoms = [{"part": p, **v.to_dict()} for p, v in self.results]
        return {"model": self.name, "atoms": atoms, "joint_independent": self.joint}


def check_declaration(
    declaration: Declaration, max_order: int = 4, max_cell: int = 2, seconds: float = CHECK_SECONDS
) -> DeclaredCheck:
    """:func:`~identcheck.model.verdict.check_atom` on each true atom of each part, ``seconds`` each,
    and the joint independence of their bases."""
    results: list[tuple[str, ModelVerdict]] = []
    for part in declaration.parts:
        for atom in declared_atoms(declaration, part.name):
            results.append((part.name, check_atom(atom, max_order=max_order, max_cell=max_cell, seconds=seconds)))
    joint = joint_independence(tuple(v.basis for _, v in results)).independent if len(results) > 1 else True
    return DeclaredCheck(declaration.name, tuple(results), joint)
