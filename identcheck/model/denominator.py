r"""The softmax denominator's terms: what condition (i) must hold them beside the atoms' bases.

A softmax part's density is f_G(y | x) = Σ_i p_i F(θ_i) / S_G(x), F = exp(β1ᵀx)·N(y | h, ν),
p_i = exp(β0_i), S_G(x) = Σ_i p_i exp(β1_iᵀx). Clearing the denominator,

    S_G·(f_G − f_{G*}) = Σ_i p_i F(θ_i) − f_{G*}·Σ_i p_i exp(β1_iᵀx),

and expanding the second sum cell by cell adds, beside the atoms' Taylor terms ∂^κ F(θ*_j), the
**denominator terms** x^α exp(β1*_jᵀx)·f_{G*}(y | x), |α| ≤ r, one family per true atom j, with
coefficients −Σ_{i∈V_j} p_i Δβ1_i^α/α! (and −Δp_j at α = 0). They always obey one relation per α,

    Σ_j p*_j x^α exp(β1*_jᵀx)·f_{G*} = x^α Σ_j p*_j F(θ*_j) = Σ_j p*_j ∂^α_{β1} F(θ*_j),

the translation β1_i → β1_i + t that the softmax does not see (removed by normalising a
reference atom). So the per-cell systems, which take the atoms' terms alone, are the model's only
when the union of every atom's basis and the denominator terms of every true atom but one (the
reference, the last: the relation writes its terms through the others) is linearly independent.
It is not when true atoms share an expert (then f_{G*} is a combination of the F(θ*_j) and
x^α exp(β1*_jᵀx)·f_{G*} lies in the atoms' span: the gates decouple from f) or when the true gate
does not depend on x (all β1*_j equal after normalising: the same). A single true atom is that
case always (f_{G*} = F(θ*)/exp(β1*ᵀx)): its denominator terms are its own x^α F, the
pure-gate coefficients cancel, and the check does not claim independence (:attr:`single`).

Each non-reference atom j's terms are the derivatives in b, at b = β1*_j, of the function
D_j(v; b) = exp(bᵀx)·f_{G*}(v) (∂^α_b D_j = x^α exp(bᵀx) f_{G*}), an
:class:`~identcheck.model.atom.AtomFunction` sampled on atom j's region: :mod:`.joint` takes
them as columns beside the bases.

The reference is free: the relation writes any one atom's terms through the others', so the
union is independent with one reference exactly when it is with any other. The per-cell systems
also need the reference's own denominator coefficients to vanish, which a normalisation gives
(the softmax's translation β1_i → β1_i + t and scaling p_i → c·p_i, applied to every fitted atom,
leave f_G unchanged and set one fitted atom to (p*_R, β1*_R)) only when that atom is alone in its
cell: otherwise its cell's moments Σ_{i∈V_R} p_i Δβ1_i^α/α!, |α| ≥ 2, are not removed and enter
every cell's equations, λ_α·p*_j. With K fitted atoms around K* true ones some cell is
exact-fitted whenever K ≤ 2K* − 1; for K ≥ 2K* every cell may be over-fitted, and the check does
not claim the per-cell systems are the model's (:attr:`DenominatorTerms.every_cell_overfitted`).

In a model with other parts (DeepSeekMoE's shared experts) the true denominator S*(x) is cleared
instead (:mod:`.mixed`): f_{G*} above is then the softmax part's own density g*, and the other
parts' terms enter the union multiplied by S* (:attr:`DenominatorTerms.true_denominator`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from .atom import atom_function
from .taylor import multi_indices

__all__ = ["DenominatorTerms", "denominator_terms"]


@dataclass(frozen=True, slots=True)
class DenominatorTerms:
    """The denominator terms of one softmax part to ``order``: ``atoms`` the functions D_j of the
    non-reference true atoms (module docstring), ``reference`` the reference atom's name, and
    ``single`` a part with one true atom (its terms are its own x^α F: independence not claimed)."""

    part: str
    atoms: tuple
    order: int
    reference: str
    single: bool = False
    fitted: int = 0  # the part's fitted atoms K (0: not given)
    true_denominator: object = field(default=None, repr=False, compare=False)  # S*(x) = Σ_j p*_j exp(β1*_jᵀx)

    @property
    def every_cell_overfitted(self) -> bool:
        """K ≥ 2K* at order ≥ 2: every true atom's cell may hold two fitted atoms or more, so no
        exact-fitted cell serves as the normalised reference (module docstring; at order 1 the
        translation and scaling remove the reference cell's moments of order ≤ 1 whatever its size)."""
        return self.fitted >= 2 * (len(self.atoms) + 1) and self.order >= 2 and not self.single

    @property
    def columns(self) -> tuple:
        """((D_j, its multi-indices |α| ≤ order), …): the columns :mod:`.joint` adds."""
        return tuple((atom, tuple(multi_indices(len(atom.params), self.order))) for atom in self.atoms)

    @property
    def count(self) -> int:
        return sum(len(kappas) for _, kappas in self.columns)

    def text(self) -> str:
        if self.every_cell_overfitted:
            return (
                f"parts.{self.part} fits {self.fitted} atoms around {len(self.atoms) + 1} true ones: every true atom's "
                "cell may be over-fitted, so no fitted atom alone in its cell normalises the softmax's translation, "
                "and the reference cell's moments Σ p_i Δβ1_i^α/α! (|α| ≥ 2) enter every cell's equations"
            )
        if self.single:
            return (
                f"parts.{self.part} has one true atom under a softmax gate: its denominator's terms "
                f"x^α exp(β1*ᵀx)·f* are its own x^α F, so its gate's terms cancel (no independence claimed)"
            )
        return (
            f"parts.{self.part}: {self.count} softmax denominator terms x^α exp(β1*ᵀx)·f*, |α| ≤ {self.order}, "
            f"of every true atom but the reference {self.reference}"
        )

    def to_dict(self) -> dict:
        return {
            "part": self.part,
            "order": self.order,
            "reference": self.reference,
            "terms": self.count,
            "single": self.single,
        }


def denominator_terms(part: str, atoms: tuple, weights: tuple, slopes: tuple, x: tuple, order: int, fitted: int = 0):
    """The :class:`DenominatorTerms` of a softmax part whose true atoms are ``atoms`` (their
    F = exp(β1ᵀx)·N, weight factored out), ``weights`` their exact p*_j = exp(β0*_j) (sympy
    numbers), ``slopes`` the β1 symbols (in each atom's params), ``x`` the input symbols and
    ``fitted`` the part's fitted atom count."""
    gates = [sp.exp(sp.Add(*(atom.at_truth[s] * xi for s, xi in zip(slopes, x)))) for atom in atoms]
    denominator = sp.Add(*(p * g for p, g in zip(weights, gates)))
    if len(atoms) == 1:
        return DenominatorTerms(
            part, (), order, atoms[0].name, single=True, fitted=fitted, true_denominator=denominator
        )
    values = [atom.expr.xreplace(atom.at_truth) for atom in atoms]
    fstar = sp.Add(*(p * f for p, f in zip(weights, values))) / denominator
    b = tuple(sp.Symbol(f"b{k + 1}", real=True) for k in range(len(x)))
    out = []
    for atom in atoms[:-1]:
        truth = {s.name: atom.at_truth[t] for s, t in zip(b, slopes)}
        box = {v.name: interval for v, interval in zip(atom.variables, atom.box)}
        tube = None if atom.tube is None else (atom.variables[atom.tube[0]], atom.tube[1], atom.tube[2])
        expr = sp.exp(sp.Add(*(s * xi for s, xi in zip(b, x)))) * fstar
        name = f"denominator of {atom.name}"
        out.append(atom_function(expr, atom.variables, b, truth, box, name, tube))
    return DenominatorTerms(part, tuple(out), order, atoms[-1].name, fitted=fitted, true_denominator=denominator)
