r"""The declared Voronoi loss between a fit and its target (:mod:`identcheck.declaration.loss`).

For each part, with cells V_j (:mod:`numeric.losses.cells`), a per-atom mass c(θ) and weight
u(θ) (``omega`` = ω — normalised over the part's atoms in a density —, ``exp-beta0`` = e^{β0},
``sigmoid-beta0`` = σ(β0), ``none`` = 1),

    L_p = Σ_{j ∈ J} | Σ_{i ∈ V_j} c(θ_i) − c(θ*_j) |
        + Σ_j Σ_{i ∈ V_j} u(θ_i) Σ_terms ‖Δθ_{i, term}‖^{e(term, |V_j|)},       Δθ_i = θ_i − θ*_j,

J every target atom (``mass_cells = "all"``; an empty cell counts c(θ*_j)) or those with |V_j| > 1
(``"over-fitted"``); ``mass = "none"`` has no mass term; e is the term's ``exact`` exponent on a
cell of one atom and its ``over`` exponent otherwise (r(|V|), r(|V|)/2 from the part's table; a
term whose exponent is ``none`` is left out of that cell). A top-K part with ``top_k_subsets``
keeps the K target atoms (K = the truth's ``top_k``) whose cells contribute most: the maximum over
K-subsets of the cells' summed mass and parameter terms. The loss is Σ_p L_p.

The **target** is the truth, the declared ``target_atoms``, or the Kullback–Leibler projection of
the truth onto the part's fitted atom count in the fit's box (``kl-projection``,
:mod:`numeric.losses.projection`: computed once per declaration digest and process).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit

from identcheck.declaration import Declaration, atom_functions

from ..errors import NumericError
from ..model import DeclaredModel, ModelParams, compile_model
from .cells import assign, columns_of, reanchor, shift_invariant_names
from .nested_voronoi import nested_part_loss
from .projection import kl_projection

__all__ = ["PartLossValue", "VoronoiLoss", "target_atoms", "voronoi_loss"]


@dataclass(frozen=True, slots=True)
class PartLossValue:
    """One part's loss: its value, the mass and parameter terms, the cells (fitted atoms of each
    target atom, 0-based) and the shift the fit was re-anchored by."""

    part: str
    value: float
    mass: float
    parameters: float
    cells: tuple
    shift: tuple = field(default=())

    def to_dict(self) -> dict:
        return {
            "value": self.value,
            "mass": self.mass,
            "parameters": self.parameters,
            "cells": [list(c) for c in self.cells],
            "shift": list(self.shift),
        }


@dataclass(frozen=True, slots=True)
class VoronoiLoss:
    """The declared Voronoi loss: its value and each part's."""

    value: float
    parts: tuple

    def to_dict(self) -> dict:
        return {"value": self.value, "parts": {p.part: p.to_dict() for p in self.parts}}


def target_atoms(declaration: Declaration | DeclaredModel, index: int) -> np.ndarray:
    """The target atoms of part ``index`` as rows (k_target, P_p)."""
    model = declaration if isinstance(declaration, DeclaredModel) else None
    declaration = declaration.declaration if isinstance(declaration, DeclaredModel) else declaration
    part = declaration.parts[index]
    spec = declaration.loss.part(part.name)
    if getattr(spec, "target", "truth") == "kl-projection":
        return kl_projection(model or compile_model(declaration), index).rows()
    atoms = spec.target_atoms if getattr(spec, "target", "truth") == "atoms" else part.truth
    functions = atom_functions(declaration, part)
    return np.array([[float(v) for v in functions.values(atom).values()] for atom in atoms])


def _cell_weight(kind: str, rows: np.ndarray, names: tuple, density: bool) -> np.ndarray:
    if kind == "none":
        return np.ones(rows.shape[0])
    if kind == "omega":
        omega = rows[:, names.index("omega")]
        return omega / omega.sum() if density else omega
    beta0 = rows[:, names.index("beta0")]
    return np.exp(beta0) if kind == "exp-beta0" else expit(beta0)


def voronoi_loss(model: DeclaredModel, fitted: ModelParams, loss=None) -> VoronoiLoss:
    """The declared Voronoi loss of ``fitted`` (the fit's layout) against its target; ``loss`` one of
    the declaration's other losses (default its ``loss``). A nested part's loss, against its truth:
    :mod:`numeric.losses.nested_voronoi`."""
    declaration = model.declaration
    loss = declaration.loss if loss is None else loss
    if loss.kind != "voronoi":
        raise NumericError(param="loss.kind", value=loss.kind, reason="not a Voronoi loss")
    parts = []
    for index, part in enumerate(declaration.parts):
        spec = loss.part(part.name)
        if part.inner is not None:
            value, mass, params, cells = nested_part_loss(model, index, spec, loss.symmetries, fitted.atoms[index])
            parts.append(PartLossValue(part.name, value, mass, params, cells))
            continue
        names = model.names[index]
        target = target_atoms(model, index)
        rows, shift = fitted.atoms[index], np.zeros(0)
        shifted = shift_invariant_names(part.gate.kind, part.gate.of)
        if "softmax-shift" in loss.symmetries and shifted:
            reference = min(part.gate.reference if part.gate.reference is not None else 0, len(target) - 1)
            rows, shift = reanchor(rows, target, names, spec.cells, shifted, reference)
        owner = assign(rows, target, columns_of(names, spec.cells))
        mass_fit = _cell_weight(spec.mass, rows, names, model.density)
        mass_true = _cell_weight(spec.mass, target, names, model.density)
        weight = _cell_weight(spec.weight, rows, names, model.density)
        r = spec.r_table
        per_cell_mass, per_cell_params = np.zeros(len(target)), np.zeros(len(target))
        for j in range(len(target)):
            members = np.flatnonzero(owner == j)
            size = members.size
            if spec.mass != "none" and (spec.mass_cells == "all" or size > 1):
                per_cell_mass[j] = abs(mass_fit[members].sum() - mass_true[j])
            for term in spec.terms:
                exponent = (term.exact if size == 1 else term.over).at(size, r) if size else None
                if exponent is None:
                    continue
                columns = np.array(columns_of(names, term.params), dtype=int)
                norms = np.sqrt(((rows[np.ix_(members, columns)] - target[j, columns]) ** 2).sum(axis=1))
                per_cell_params[j] += float(weight[members] @ norms**exponent)
        chosen = np.arange(len(target))
        if spec.top_k_subsets:
            chosen = np.argsort(-(per_cell_mass + per_cell_params), kind="stable")[: part.gate.top_k]
        mass, params = float(per_cell_mass[chosen].sum()), float(per_cell_params[chosen].sum())
        cells = tuple(tuple(int(i) for i in np.flatnonzero(owner == j)) for j in range(len(target)))
        parts.append(PartLossValue(part.name, mass + params, mass, params, cells, tuple(float(c) for c in shift)))
    return VoronoiLoss(sum(p.value for p in parts), tuple(parts))
