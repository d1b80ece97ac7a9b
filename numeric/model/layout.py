r"""A declared model compiled once (:func:`compile_model`), and the flat parameter vector of a fit.

Each part p with k_p atoms holds a matrix Θ_p of shape (k_p, P_p), one row per atom, its columns
the declaration's per-atom parameters in :func:`identcheck.declaration.atom_functions` order:
the gate's (β1 as d columns, β0; W, β; M's upper triangle; ω), the expert's η, then the variance
ν (a density). The flat vector θ of a fit is

    θ = (vec Θ_1, …, vec Θ_P, u)        (rows of Θ_p concatenated; u: free part shares, if any)

with u_p ≥ 0 and the shares s_p = u_p / Σ_q u_q (fixed shares are the declaration's and not in θ).
A :class:`Layout` is this map for given atom counts: the truth's (``k*``) or the fit's
(``fitted``), and the top-K each keeps (``top_k`` for the truth, ``fitted_top_k`` for a fit).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from identcheck.declaration import Declaration, atom_functions

from ..errors import NumericError
from .experts import ExpertCode, compile_expert
from .gates import GateCode

__all__ = ["DeclaredModel", "Layout", "ModelParams", "PartLayout", "compile_model"]


@dataclass(frozen=True)
class PartLayout:
    """One part in a layout: ``k`` atoms, its gate and expert code, and its column groups."""

    name: str
    k: int
    gate: GateCode
    expert: ExpertCode
    columns: tuple  # flat labels: beta1_1, beta0, eta2, …
    names: tuple  # the declared parameter each column belongs to
    n_gate: int
    n_expert: int
    variance: bool
    offset: int

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def size(self) -> int:
        return self.k * self.width

    @property
    def gate_columns(self) -> slice:
        return slice(0, self.n_gate)

    @property
    def expert_columns(self) -> slice:
        return slice(self.n_gate, self.n_gate + self.n_expert)


@dataclass(frozen=True, slots=True)
class ModelParams:
    """Parameters of a declared model: ``atoms[p]`` of shape (k_p, P_p), ``shares`` of shape (parts,)."""

    atoms: tuple = field(repr=False)
    shares: np.ndarray = field(repr=False)


@dataclass(frozen=True)
class Layout:
    """θ ↔ :class:`ModelParams` for one choice of atom counts (module docstring)."""

    parts: tuple
    density: bool
    free_shares: bool
    fixed_shares: np.ndarray = field(repr=False)

    @property
    def size(self) -> int:
        return sum(p.size for p in self.parts) + (len(self.parts) if self.free_shares else 0)

    def unpack(self, theta: np.ndarray) -> ModelParams:
        atoms = tuple(theta[p.offset : p.offset + p.size].reshape(p.k, p.width) for p in self.parts)
        if self.free_shares:
            u = theta[-len(self.parts) :]
            shares = u / u.sum()
        else:
            shares = self.fixed_shares
        return ModelParams(atoms, shares)

    def pack(self, params: ModelParams) -> np.ndarray:
        pieces = [np.asarray(a, dtype=float).ravel() for a in params.atoms]
        if self.free_shares:
            pieces.append(np.asarray(params.shares, dtype=float))
        return np.concatenate(pieces)

    def labels(self) -> list[str]:
        """One label per entry of θ: ``part[i].column`` (atoms counted from 1), ``share.part``."""
        out = [f"{p.name}[{i + 1}].{c}" for p in self.parts for i in range(p.k) for c in p.columns]
        return out + ([f"share.{p.name}" for p in self.parts] if self.free_shares else [])


@dataclass(frozen=True)
class DeclaredModel:
    """A declaration compiled once: per part its expert code and column labels; layouts on demand."""

    declaration: Declaration = field(repr=False)
    experts: tuple = field(repr=False)
    columns: tuple
    names: tuple
    counts: tuple  # (n_gate, n_expert) per part

    @property
    def density(self) -> bool:
        return self.declaration.noise.density

    def layout(self, fitted: bool) -> Layout:
        """The fit's layout (``fitted`` atoms, ``fitted_top_k``) or the truth's."""
        parts, offset = [], 0
        dim = self.declaration.inputs.dim
        for part, expert, columns, names, (n_gate, n_expert) in zip(
            self.declaration.parts, self.experts, self.columns, self.names, self.counts
        ):
            k = part.fitted if fitted else len(part.truth)
            top_k = (part.gate.fitted_top_k if fitted else part.gate.top_k) if part.gate.kind == "top-k" else None
            normalised = part.gate.kind not in ("constant", "sigmoid") or (
                part.gate.kind == "constant" and self.density
            )
            gate = GateCode(part.gate.kind, dim, n_gate, normalised, part.gate.of, top_k)
            layout = PartLayout(part.name, k, gate, expert, columns, names, n_gate, n_expert, self.density, offset)
            parts.append(layout)
            offset += layout.size
        shares = np.array([part.share if part.share is not None else 1.0 for part in self.declaration.parts])
        free = self.density and self.declaration.shares == "free"
        return Layout(tuple(parts), self.density, free, shares)

    def truth(self) -> ModelParams:
        """The truth's parameters (in the truth's layout)."""
        atoms = []
        for part in self.declaration.parts:
            functions = atom_functions(self.declaration, part)
            rows = [[float(v) for v in functions.values(atom).values()] for atom in part.truth]
            atoms.append(np.array(rows, dtype=float))
        return ModelParams(tuple(atoms), self.layout(False).fixed_shares.copy())


def compile_model(declaration: Declaration) -> DeclaredModel:
    """The array code of ``declaration``: sympy runs here, once."""
    experts, columns, names, counts = [], [], [], []
    for part in declaration.parts:
        if declaration.noise.density and part.gate.kind == "sigmoid":
            raise NumericError(
                param=f"parts.{part.name}.gate.kind",
                value="sigmoid",
                reason="sigmoid weights do not sum to one, so the mixture is no density; "
                "use normalized-sigmoid, or a gaussian-regression noise",
            )
        for nested in ("inner", "groups"):
            if getattr(part, nested, None) is not None:
                raise NumericError(
                    param=f"parts.{part.name}.{nested}",
                    reason="numeric's array code takes no nested parts or tied parameters yet "
                    "(numeric's hand-written models of the paper fit them)",
                )
        functions = atom_functions(declaration, part)
        n_gate = sum(1 for name in functions.names if name in part.gate_parameters)
        n_expert = sum(1 for name in functions.names if name in part.expert.names)
        expert_symbols = functions.params[n_gate : n_gate + n_expert]
        experts.append(compile_expert(functions.expert, functions.x, expert_symbols))
        columns.append(tuple(s.name for s in functions.params))
        names.append(tuple(functions.names))
        counts.append((n_gate, n_expert))
    return DeclaredModel(declaration, tuple(experts), tuple(columns), tuple(names), tuple(counts))


def part_values(layout: Layout, params: ModelParams, index: int):
    """(gate columns, expert columns, variances or None) of part ``index``."""
    part = layout.parts[index]
    theta = params.atoms[index]
    variance = theta[:, -1] if part.variance else None
    return theta[:, part.gate_columns], theta[:, part.expert_columns], variance
