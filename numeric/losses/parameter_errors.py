r"""Per-parameter errors of a declared fit, as some papers report instead of a Voronoi loss.

For each listed parameter a of a part, with each fitted atom i matched to a target atom j(i),

    e_a = reduce_i ‖θ_{i,a} − θ*_{j(i),a}‖          (reduce: ``max`` or ``mean``; a vector's norm)

matched by the Voronoi cells on the listed parameters (``match = "voronoi"``) or by the best
permutation, the assignment minimising Σ_i ‖θ_i − θ*_{j(i)}‖² on them (``"permutation"``; fitted and
true atoms as many; scipy's ``linear_sum_assignment``). A fit of a shift-invariant gate is
re-anchored first when the loss declares ``softmax-shift`` (:mod:`numeric.losses.cells`).
:func:`parameter_errors` also serves any declaration (every parameter of every part, Voronoi
matching, ``max``): what a fit's record reports beside its declared loss.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linear_sum_assignment

from ..model import DeclaredModel, ModelParams
from .cells import assign, columns_of, reanchor, shift_invariant_names
from .voronoi import target_atoms

__all__ = ["ParameterErrors", "parameter_errors"]


@dataclass(frozen=True, slots=True)
class ParameterErrors:
    """``errors[part][param]`` = e_a (module docstring), and how atoms were matched and reduced."""

    errors: tuple  # ((part, ((param, value), ...)), ...)
    match: str
    reduce: str

    def of(self, part: str, param: str) -> float:
        return dict(dict(self.errors)[part])[param]

    def to_dict(self) -> dict:
        return {"match": self.match, "reduce": self.reduce, "errors": {p: dict(e) for p, e in self.errors}}


def parameter_errors(model: DeclaredModel, fitted: ModelParams, declared: bool = True) -> ParameterErrors:
    """The declared per-parameter errors (``declared`` and a ``parameter-errors`` loss), else every
    parameter's error with Voronoi matching, reduced by ``max``."""
    declaration = model.declaration
    use_declared = declared and declaration.loss.kind == "parameter-errors"
    out, match, reduce = [], "voronoi", "max"
    for index, part in enumerate(declaration.parts):
        names = model.names[index]
        spec = declaration.loss.part(part.name)
        params = spec.params if use_declared else tuple(dict.fromkeys(names))
        match, reduce = (spec.match, spec.reduce) if use_declared else ("voronoi", "max")
        target = target_atoms(model, index) if declaration.loss.kind == "voronoi" else _truth(model, index)
        rows = fitted.atoms[index]
        shifted = shift_invariant_names(part.gate.kind, part.gate.of)
        if "softmax-shift" in declaration.loss.symmetries and shifted:
            reference = min(part.gate.reference if part.gate.reference is not None else 0, len(target) - 1)
            rows, _ = reanchor(rows, target, names, params, shifted, reference)
        columns = columns_of(names, params)
        if match == "permutation":
            cost = ((rows[:, None, columns] - target[None, :, columns]) ** 2).sum(axis=2)
            fitted_index, owner_sorted = linear_sum_assignment(cost)
            owner = np.empty(len(rows), dtype=int)
            owner[fitted_index] = owner_sorted
        else:
            owner = assign(rows, target, columns)
        values = []
        for param in params:
            cols = columns_of(names, (param,))
            norms = np.sqrt(((rows[:, cols] - target[owner][:, cols]) ** 2).sum(axis=1))
            values.append((param, float(norms.max() if reduce == "max" else norms.mean())))
        out.append((part.name, tuple(values)))
    return ParameterErrors(tuple(out), match, reduce)


def _truth(model: DeclaredModel, index: int) -> np.ndarray:
    return model.truth().atoms[index]
