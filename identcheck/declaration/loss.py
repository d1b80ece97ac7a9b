r"""The declared loss: a Voronoi loss, or per-parameter errors, as data.

**Voronoi loss** (Ho and Nguyen; arXiv 2505.10860 eqs. (4), (6), (10), (11)). For each part, the
fitted atoms i are split into cells V_j by the nearest target atom j in the Euclidean distance on
the parameters ``cells`` (arXiv 2505.10860 eq. (3): the routed cells on (β1, η, ν), β0 left out).
With a per-atom weight c(θ) (``mass`` for the cell masses, ``weight`` for the parameter terms:
``omega`` = ω, ``exp-beta0`` = e^{β0}, ``sigmoid-beta0`` = σ(β0), ``none`` = 1), the part adds

    Σ_j | Σ_{i ∈ V_j} c(θ_i) − c(θ*_j) |                          (every cell, or ``over-fitted`` only)
  + Σ_j Σ_{i ∈ V_j} weight(θ_i) Σ_terms ‖Δθ_{i, term}‖^{e(term, |V_j|)}

where a term is a group of parameters whose moves Δ = θ_i − θ*_j are joined into one Euclidean
norm (``params = ["e1", "e2"]``: ‖Δη‖ with η = (η1, η2), as D1 writes it), and its exponent
e(term, |V|) is ``exact`` for |V| = 1 and ``over`` for |V| > 1, each one of: a number (1, 2, …),
``"r"`` = r(|V|), ``"r/2"`` = r(|V|)/2 with r a table by cell size (``r = {2 = 4, 3 = 6}``, the
linear experts' r̄ of arXiv 2505.10860 Appendix B), or ``"none"`` (the term is left out for
cells of that size: D3's |Δβ0| in exact cells only). The table must cover every cell size the
fitted counts allow, 2 … fitted − truth + 1.

Cells are taken up to the declared ``symmetries``: ``softmax-shift`` (a fit's shift-invariant gate
parameters re-anchored at the reference atom before the cells are formed) and ``permutations``
(fitted atoms are unlabelled; a Voronoi loss is invariant by construction). The **target** is the
truth, or a stated other measure: ``kl-projection`` (the Kullback–Leibler projection of the
truth onto measures with the part's fitted atom count, the other parts at the truth; D4's Ǧ2 —
numeric computes it) or ``atoms`` (given in ``target_atoms``). A top-K part may take the
**maximum over the K-subsets** of its target atoms (``top_k_subsets = true``; arXiv 2505.10860
Appendix F, D5): the mass and parameter terms of the cells of the subset's atoms, maximised.

**Nested parts** (:mod:`.nested`). An inner parameter has one value per component, and a term
over inner parameters is taken per component and summed: Σ_i ‖Δθ_{i, term}‖^e, i over the inner
components (a symmetric matrix's norm is the Frobenius norm of the whole matrix). ``distance``
says how the cells' distance joins its parameters: ``euclidean`` (one norm over all, the default)
or ``sum-of-norms`` (a norm per parameter and component, added: arXiv 2602.01468's
D = Σ_i (‖ΔM_i‖_F + ‖Δa_i‖)). Two more symmetries: ``inner-orders`` (a fitted atom's inner
components are unlabelled: each pair of a fitted and a true atom takes the order π of the fitted
components, re-anchored at the reference component, M̃_i = M'_{π(i)} − M'_{π(N)}, that minimises
the distance) and ``group-permutations`` (groups are unlabelled: each fitted group is matched to
the true group, and inner order, nearest to it). ``cell_by = "function"`` forms the cells by the
L²(μ) distance between the atoms' experts instead (arXiv 2602.01468's cells, before its
Theorem 2), the moves still taken under the minimising order. ``level = "inner"`` is the
*measure-level* loss: its atoms are the pairs (tied gate value at component i, a_i) of each group
with mass the outer weight ω, atoms of one group and component at the same place merged, groups
matched first (``group-permutations``) by Σ_i (‖ΔM̃_i‖ + Σ_k ω_k min_j ‖Δa‖) and each atom celled by
its nearest true a at its component; its mass terms are divided by N (an outer atom has one inner
atom per component):

    Σ_{h,i,k} (1/N) |Σ_{V(h,i,k)} ω' − ω*_{h,k}| + Σ_{|V|=1} ω' (ΔM + Δa) + Σ_{|V|>1} Σ_V ω' (ΔM² + Δa²).

A model may declare further losses beside ``[loss]``, by name (``[losses.measure]``): numeric
measures each.

**Per-parameter errors** (``kind = "parameter-errors"``, as arXiv 2505.18455 reports): for each
listed parameter, ‖θ_i − θ*_{j(i)}‖ over fitted atoms i, matched to a true atom j(i) by the Voronoi
cells (``match = "voronoi"``) or by the best permutation (``"permutation"``, fitted = truth count),
reduced by ``max`` or ``mean``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CELL_BY",
    "CELL_WEIGHTS",
    "DISTANCES",
    "LEVELS",
    "Exponent",
    "Loss",
    "PartErrors",
    "PartLoss",
    "SYMMETRIES",
    "Term",
]

#: A per-atom weight, by name, and the gate parameter it reads (None: no parameter).
CELL_WEIGHTS = {"omega": "omega", "exp-beta0": "beta0", "sigmoid-beta0": "beta0", "none": None}
SYMMETRIES = ("softmax-shift", "permutations", "inner-orders", "group-permutations")
DISTANCES = ("euclidean", "sum-of-norms")
CELL_BY = ("parameters", "function")
LEVELS = ("atoms", "inner")
TARGETS = ("truth", "kl-projection", "atoms")


@dataclass(frozen=True, slots=True)
class Exponent:
    """An exponent: ``kind`` ``number`` (``value``), ``r``, ``r/2`` or ``none`` (the term left out)."""

    kind: str
    value: float | None = None

    def at(self, size: int, r: dict[int, int]) -> float | None:
        """The exponent for a cell of ``size`` atoms (None: the term is left out)."""
        if self.kind == "number":
            return self.value
        if self.kind == "none":
            return None
        return r[size] if self.kind == "r" else r[size] / 2

    def to_dict(self):
        return self.value if self.kind == "number" else self.kind


@dataclass(frozen=True, slots=True)
class Term:
    """A group of parameters joined in one norm, with its exponents for exact (|V| = 1) and
    over-fitted (|V| > 1) cells."""

    params: tuple[str, ...]
    exact: Exponent
    over: Exponent

    def to_dict(self) -> dict:
        return {"params": list(self.params), "exact": self.exact.to_dict(), "over": self.over.to_dict()}


@dataclass(frozen=True, slots=True)
class PartLoss:
    """One part's share of a Voronoi loss (see the module's docstring for each field)."""

    part: str
    cells: tuple[str, ...]
    mass: str
    mass_cells: str
    weight: str
    terms: tuple[Term, ...]
    r: tuple[tuple[int, int], ...] = ()
    target: str = "truth"
    target_atoms: tuple = ()
    top_k_subsets: bool = False
    distance: str = "euclidean"
    cell_by: str = "parameters"
    level: str = "atoms"

    @property
    def r_table(self) -> dict[int, int]:
        return dict(self.r)

    def to_dict(self) -> dict:
        out: dict[str, object] = {
            "cells": list(self.cells),
            "mass": self.mass,
            "mass_cells": self.mass_cells,
            "weight": self.weight,
            "terms": [term.to_dict() for term in self.terms],
            "target": self.target,
        }
        if self.r:
            out["r"] = {str(size): value for size, value in self.r}
        if self.target_atoms:
            out["target_atoms"] = [atom.to_dict() for atom in self.target_atoms]
        if self.top_k_subsets:
            out["top_k_subsets"] = True
        for name, default in (("distance", "euclidean"), ("cell_by", "parameters"), ("level", "atoms")):
            if getattr(self, name) != default:  # only when declared: the other declarations keep their digests
                out[name] = getattr(self, name)
        return out


@dataclass(frozen=True, slots=True)
class PartErrors:
    """One part's per-parameter errors: the parameters, how atoms are matched, how reduced."""

    part: str
    params: tuple[str, ...]
    match: str
    reduce: str

    def to_dict(self) -> dict:
        return {"params": list(self.params), "match": self.match, "reduce": self.reduce}


@dataclass(frozen=True, slots=True)
class Loss:
    """The declared loss: ``kind`` ``voronoi`` (parts: :class:`PartLoss`) or ``parameter-errors``
    (parts: :class:`PartErrors`), over the declared ``symmetries``."""

    kind: str
    parts: tuple
    symmetries: tuple[str, ...] = ()

    def part(self, name: str):
        return next(p for p in self.parts if p.part == name)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "symmetries": list(self.symmetries),
            "parts": {p.part: p.to_dict() for p in self.parts},
        }
