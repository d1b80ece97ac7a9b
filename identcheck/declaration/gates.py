r"""The gates a declared part may use: their parameters, their weights and their symmetry.

For atoms i = 1..k of one part, input x ∈ R^d, the gate gives each atom a weight w_i(x):

========================  ==========================================  =====================  ================
kind                      per-atom factor g_i(x)                       weight w_i(x)          shift-invariant
========================  ==========================================  =====================  ================
``constant``              ω_i (fixed or free; Σ ω = 1 in a density)    g_i                    —
``softmax``               exp(β1ᵢᵀx + β0ᵢ)                              g_i / Σ_j g_j          β1, β0
``sigmoid``               σ(β1ᵢᵀx + β0ᵢ)                                g_i                    —
``normalized-sigmoid``    σ(β1ᵢᵀx + β0ᵢ)                                g_i / Σ_j g_j          —
``laplace``               exp(−‖Wᵢ − x‖ + βᵢ)                           g_i / Σ_j g_j          β
``top-k``                 exp(β1ᵢᵀx + β0ᵢ) or σ(β1ᵢᵀx + β0ᵢ), ``of``    g_i·1[i ∈ top_K] / Σ   β1, β0 (softmax)
``quadratic-softmax``     exp(xᵀMᵢx), Mᵢ symmetric                      g_i / Σ_j g_j          M
========================  ==========================================  =====================  ================

σ(z) = 1/(1 + e^−z). **Top-K** (arXiv 2505.10860 Appendix F, eq. (45)): atom i takes part at x when
β1ᵢᵀx is among the K largest of the part's; the truth routes K atoms, a fit K̄ ≥ K
(``fitted_top_k``); the selection is a mask the array code applies, the symbolic factor is g_i.

**Shift invariance.** A softmax is unchanged when one vector c is added to every atom's
shift-invariant parameters (β1ᵢ + c1, β0ᵢ + c0; βᵢ + c; Mᵢ + C). The declaration states the
normalisation that removes it — a *reference* atom of the truth whose shift-invariant parameters
are zero (``reference``, default the last atom, the convention of arXiv 2505.10860 (A.2)) — and
a truth given otherwise is shifted to it, with a note (:mod:`.normalise`).

Parameter shapes: ``scalar``, ``vector`` (d entries) or ``symmetric`` (a d×d symmetric matrix,
given as d rows; its free entries are the upper triangle).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GATES", "Gate", "GateKind", "GateParameter"]


@dataclass(frozen=True, slots=True)
class GateParameter:
    """One per-atom parameter of a gate: its name in the declaration and its shape."""

    name: str
    shape: str  # "scalar" | "vector" | "symmetric"


@dataclass(frozen=True, slots=True)
class GateKind:
    """A kind of gate: its per-atom parameters, whether its weights are normalised over the part's
    atoms, and which parameters a common shift leaves the weights unchanged in."""

    name: str
    parameters: tuple[GateParameter, ...]
    normalised: bool
    shift_invariant: tuple[str, ...]
    formula: str

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)


_AFFINE = (GateParameter("beta1", "vector"), GateParameter("beta0", "scalar"))

#: Every gate a declaration may name, by its ``kind``.
GATES: dict[str, GateKind] = {
    "constant": GateKind("constant", (GateParameter("omega", "scalar"),), False, (), "omega_i"),
    "softmax": GateKind("softmax", _AFFINE, True, ("beta1", "beta0"), "exp(beta1_i.x + beta0_i) / sum_j …"),
    "sigmoid": GateKind("sigmoid", _AFFINE, False, (), "sigmoid(beta1_i.x + beta0_i)"),
    "normalized-sigmoid": GateKind("normalized-sigmoid", _AFFINE, True, (), "sigmoid(beta1_i.x + beta0_i) / sum_j …"),
    "laplace": GateKind(
        "laplace",
        (GateParameter("W", "vector"), GateParameter("beta", "scalar")),
        True,
        ("beta",),
        "exp(-|W_i - x| + beta_i) / sum_j …",
    ),
    "top-k": GateKind("top-k", _AFFINE, True, ("beta1", "beta0"), "top-K of softmax or normalized sigmoid"),
    "quadratic-softmax": GateKind(
        "quadratic-softmax", (GateParameter("M", "symmetric"),), True, ("M",), "exp(x.M_i.x) / sum_j …"
    ),
}

#: What a top-K gate selects from.
TOP_K_OF = ("softmax", "normalized-sigmoid")


def shift_invariant(kind: str, of: str | None) -> tuple[str, ...]:
    """The parameters a common shift leaves the weights unchanged in (a top-K of a normalised
    sigmoid has none: σ is not shift-invariant)."""
    if kind == "top-k" and of != "softmax":
        return ()
    return GATES[kind].shift_invariant


@dataclass(frozen=True, slots=True)
class Gate:
    """A part's gate (:data:`~identcheck.declaration.gates.GATES`): ``weights`` fixed or free (a
    constant gate), the truth's ``reference`` atom (0-based; a shift-invariant gate), ``top_k``
    and ``fitted_top_k`` with what the top-K selects ``of`` (a top-K gate)."""

    kind: str
    weights: str | None = None
    reference: int | None = None
    top_k: int | None = None
    fitted_top_k: int | None = None
    of: str | None = None

    def to_dict(self) -> dict:
        out: dict[str, object] = {"kind": self.kind}
        for name in ("weights", "reference", "top_k", "fitted_top_k", "of"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        if self.reference is not None:
            out["reference"] = self.reference + 1  # as the TOML counts atoms: from 1
        return out
