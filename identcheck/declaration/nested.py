r"""Two structures beyond a flat mixture: an expert that is a function of an inner mixture, and
parameters tied within groups of atoms (docs/declaration.md, "Inner mixtures and tied parameters").

**An inner mixture.** A part's expert may use the name ``inner``, the value of a mixture of N
*components* declared under ``[parts.NAME.inner]`` — its own gate and expert, no noise, no weights
of its own beyond its gate. For one atom with inner gate factors g_i and inner experts h_i,

    inner(x) = Σ_{i=1}^{N} w_i(x) · h_i(x),   w_i = g_i / Σ_{j} g_j (a normalised gate) or g_i,

and the atom's expert is the outer expert with ``inner`` replaced by that value: ``"inner"`` itself
(multi-head attention, model (2), and Setting I, model (9), of arXiv 2602.01468) or
``"phi(inner)"`` (Setting II, model (12)). Each inner parameter has one value per component: an
atom's ``a`` is N vectors a_1 … a_N, its ``M`` N symmetric matrices. A shift-invariant inner gate
(softmax over quadratic scores xᵀM_ix) pins its ``reference`` component (default the last) at zero:
M_N = 0 in the truth and in every fit — it is no parameter.

**Tied parameters.** With ``[parts.NAME.groups]`` the part's atoms come in groups (heads), and the
parameters named in ``tied`` take one value per group, shared by its atoms: the gate matrices
M_{h,i} of head h, shared by its K channels. The truth gives the tied values once per group
(``groups.truth``) and each atom its ``group``; a fit has ``groups.fitted`` groups of
``fitted / groups.fitted`` atoms each. An atom still carries every parameter — the tied ones equal
to its group's — so cells and losses read it as any atom.

Together (arXiv 2602.01468 models (2), (9), (12); H heads, N components, K channels):

    f(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i}(x) a_{h,i,k}ᵀx             (MHA: expert inner, inner expert dot(a, x))
    g(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i}(x) φ(a_{h,i,k}ᵀx)          (Setting I: inner; phi(dot(a, x)))
    g(x) = Σ_h Σ_k ω_{h,k} φ(Σ_i σ_{h,i}(x) a_{h,i,k}ᵀx)          (Setting II: phi(inner); dot(a, x))

with σ_{h,i}(x) = exp(xᵀM_{h,i}x) / Σ_j exp(xᵀM_{h,j}x), the atoms the channels (h, k), the
outer gate the constant weights ω, and M tied by head.
"""

from __future__ import annotations

from dataclasses import dataclass

from .expert import ExpertSpec
from .gates import GATES, Gate, shift_invariant

__all__ = ["INNER", "Groups", "Inner"]

#: The name an outer expert uses for its inner mixture's value.
INNER = "inner"


@dataclass(frozen=True, slots=True)
class Inner:
    """An inner mixture of ``components`` components: its gate (``reference``: the pinned
    component, 0-based, for a shift-invariant gate) and expert, both per component."""

    components: int
    gate: Gate
    expert: ExpertSpec

    @property
    def gate_parameters(self) -> tuple[str, ...]:
        return GATES[self.gate.kind].names

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every per-component parameter: the inner gate's, then the inner expert's."""
        return self.gate_parameters + self.expert.names

    @property
    def pinned(self) -> tuple[str, ...]:
        """The gate parameters held at zero on the reference component (no parameters there)."""
        return shift_invariant(self.gate.kind, self.gate.of)

    def to_dict(self) -> dict:
        return {"components": self.components, "gate": self.gate.to_dict(), "expert": self.expert.text}


@dataclass(frozen=True, slots=True)
class Groups:
    """A part's atoms in groups: the ``tied`` parameters (one value per group), each truth atom's
    group (``of``, 0-based, in the truth's order), the truth's tied values per group (``truth``:
    :class:`~.model.Atom` values of the tied parameters only) and the fitted group count."""

    tied: tuple[str, ...]
    of: tuple[int, ...]
    truth: tuple
    fitted: int

    @property
    def count(self) -> int:
        """The truth's number of groups."""
        return len(self.truth)

    def sizes(self) -> tuple[int, ...]:
        """The truth's atoms per group."""
        return tuple(self.of.count(g) for g in range(self.count))

    def to_dict(self) -> dict:
        return {"tied": list(self.tied), "fitted": self.fitted, "truth": [atom.to_dict() for atom in self.truth]}
