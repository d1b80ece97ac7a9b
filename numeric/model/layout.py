r"""A declared model compiled once (:func:`compile_model`), and the flat parameter vector of a fit.

Each part p with k_p atoms holds a matrix Θ_p of shape (k_p, P_p), one row per atom, its columns
the declaration's per-atom parameters in :func:`identcheck.declaration.atom_functions` order:
the gate's (β1 as d columns, β0; W, β; M's upper triangle; ω), the expert's η, a nested part's
inner parameters (:mod:`numeric.model.nested`), then the variance ν (a density). The flat vector θ
of a fit is

    θ = (θ_1, …, θ_P, u),   θ_p = (vec Θ_p[:, free columns], vec T_p)        (rows concatenated)

with u_p ≥ 0 the free part shares, s_p = u_p / Σ_q u_q (fixed shares are the declaration's and not
in θ). A part with groups (``[parts.NAME.groups]``) has its ``tied`` columns once per group: T_p of
shape (groups, tied columns), and Θ_p's tied entries of atom i are its group's row of T_p (atoms
numbered group by group in a fit, in the truth's order for the truth). Packing Θ_p reads the tied
entries from each group's first atom; the Jacobian's tied columns are the sums over the group's atoms
(:meth:`PartLayout.reduce`). A :class:`Layout` is this map for given atom counts: the truth's
(``k*``) or the fit's (``fitted``), and the top-K each keeps (``top_k`` for the truth,
``fitted_top_k`` for a fit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from identcheck.declaration import Declaration, atom_functions

from ..errors import NumericError
from .experts import ExpertCode, compile_expert
from .gates import GateCode
from .nested import NestedCode, compile_nested

__all__ = ["DeclaredModel", "Layout", "ModelParams", "PartLayout", "compile_model"]


@dataclass(frozen=True)
class PartLayout:
    """One part in a layout: ``k`` atoms, its gate and expert code, and its column groups;
    ``group_of`` each atom's group and ``tied`` each column's tie (empty: no groups), ``nested``
    the inner mixture's code (:class:`numeric.model.nested.NestedCode`, None for a flat part)."""

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
    group_of: tuple = ()
    tied: tuple = ()
    nested: Any = field(default=None, repr=False)

    @property
    def width(self) -> int:
        return len(self.columns)

    @property
    def groups(self) -> int:
        return max(self.group_of) + 1 if self.group_of else 0

    @property
    def free_columns(self) -> np.ndarray:
        """The columns held once per atom (all of them without groups)."""
        return np.flatnonzero(~np.asarray(self.tied, dtype=bool)) if self.tied else np.arange(self.width)

    @property
    def tied_columns(self) -> np.ndarray:
        return np.flatnonzero(np.asarray(self.tied, dtype=bool)) if self.tied else np.arange(0)

    @property
    def size(self) -> int:
        return self.k * len(self.free_columns) + self.groups * len(self.tied_columns)

    @property
    def gate_columns(self) -> slice:
        return slice(0, self.n_gate)

    @property
    def expert_columns(self) -> slice:
        return slice(self.n_gate, self.n_gate + self.n_expert)

    def rows(self, flat: np.ndarray) -> np.ndarray:
        """Θ_p (k, width) from the part's slice of θ (module docstring)."""
        free, tied = self.free_columns, self.tied_columns
        if not len(tied):
            return flat.reshape(self.k, self.width)
        rows = np.empty((self.k, self.width))
        rows[:, free] = flat[: self.k * len(free)].reshape(self.k, len(free))
        rows[:, tied] = flat[self.k * len(free) :].reshape(self.groups, len(tied))[list(self.group_of)]
        return rows

    def flat(self, rows: np.ndarray) -> np.ndarray:
        """The part's slice of θ from Θ_p (k, width): a tied entry from its group's first atom."""
        rows = np.asarray(rows, dtype=float)
        free, tied = self.free_columns, self.tied_columns
        if not len(tied):
            return rows.ravel()
        first = np.array([self.group_of.index(g) for g in range(self.groups)])
        return np.concatenate([rows[:, free].ravel(), rows[np.ix_(first, tied)].ravel()])

    def reduce(self, block: np.ndarray, grouped: np.ndarray | None = None) -> np.ndarray:
        """Per-atom derivatives (k, width, n) as the rows of θ_p's (size, n): a tied column summed
        over its group's atoms (the chain rule through Θ_p's copies of it), or ``grouped``
        (groups, tied, n) when the sums are given."""
        free, tied = self.free_columns, self.tied_columns
        n = block.shape[-1]
        if not len(tied):
            return block.reshape(self.size, n)
        out = np.empty((self.size, n))
        out[: self.k * len(free)].reshape(self.k, len(free), n)[...] = block[:, free]
        summed = out[self.k * len(free) :].reshape(self.groups, len(tied), n)
        if grouped is not None:
            summed[...] = grouped
            return out
        summed[...] = 0.0
        for atom, group in enumerate(self.group_of):
            summed[group] += block[atom, tied]
        return out

    def indices(self, column: int) -> np.ndarray:
        """Where column ``column`` of each atom sits in θ (a tied column: its group's entry)."""
        free, tied = list(self.free_columns), list(self.tied_columns)
        if column in free:
            return self.offset + np.arange(self.k) * len(free) + free.index(column)
        start = self.offset + self.k * len(free)
        return start + np.asarray(self.group_of, dtype=int) * len(tied) + tied.index(column)


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
        atoms = tuple(p.rows(theta[p.offset : p.offset + p.size]) for p in self.parts)
        if self.free_shares:
            u = theta[-len(self.parts) :]
            shares = u / u.sum()
        else:
            shares = self.fixed_shares
        return ModelParams(atoms, shares)

    def pack(self, params: ModelParams) -> np.ndarray:
        pieces = [p.flat(a) for p, a in zip(self.parts, params.atoms)]
        if self.free_shares:
            pieces.append(np.asarray(params.shares, dtype=float))
        return np.concatenate(pieces)

    def labels(self) -> list[str]:
        """One label per entry of θ: ``part[i].column`` (atoms counted from 1), a tied column's
        ``part{g}.column`` (groups counted from 1), ``share.part``."""
        out = []
        for p in self.parts:
            out += [f"{p.name}[{i + 1}].{p.columns[c]}" for i in range(p.k) for c in p.free_columns]
            out += [f"{p.name}{{{g + 1}}}.{p.columns[c]}" for g in range(p.groups) for c in p.tied_columns]
        return out + ([f"share.{p.name}" for p in self.parts] if self.free_shares else [])


@dataclass(frozen=True)
class DeclaredModel:
    """A declaration compiled once: per part its expert code and column labels, a nested part's
    inner mixture (``nested``; its ``experts`` entry is then the inner experts' code) and each
    column's tie; layouts on demand."""

    declaration: Declaration = field(repr=False)
    experts: tuple = field(repr=False)
    columns: tuple
    names: tuple
    counts: tuple  # (n_gate, n_expert) per part
    nested: tuple = field(default=(), repr=False)  # NestedCode or None per part
    tied: tuple = ()  # per part: one bool per column (empty: no groups)

    @property
    def density(self) -> bool:
        return self.declaration.noise.density

    def layout(self, fitted: bool, counts: dict | None = None) -> Layout:
        """The fit's layout (``fitted`` atoms, ``fitted_top_k``) or the truth's; ``counts[part]``
        sets a part's atom count instead (a part with groups: its atoms per group, a tuple)."""
        parts, offset = [], 0
        dim = self.declaration.inputs.dim
        nested = self.nested or (None,) * len(self.declaration.parts)
        tied_columns = self.tied or ((),) * len(self.declaration.parts)
        for part, expert, columns, names, (n_gate, n_expert), inner, tied in zip(
            self.declaration.parts, self.experts, self.columns, self.names, self.counts, nested, tied_columns
        ):
            group_of = _group_of(part, fitted, (counts or {}).get(part.name))
            k = len(group_of) if part.groups is not None else (counts or {}).get(part.name)
            if k is None:
                k = part.fitted if fitted else len(part.truth)
            top_k = (part.gate.fitted_top_k if fitted else part.gate.top_k) if part.gate.kind == "top-k" else None
            normalised = part.gate.kind not in ("constant", "sigmoid") or (
                part.gate.kind == "constant" and self.density
            )
            gate = GateCode(part.gate.kind, dim, n_gate, normalised, part.gate.of, top_k)
            layout = PartLayout(
                part.name, int(k), gate, expert, columns, names, n_gate, n_expert, self.density, offset,
                group_of, tied if group_of else (), inner,
            )  # fmt: skip
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


def _group_of(part, fitted: bool, count) -> tuple:
    """Each atom's group (module docstring); () for a part without groups."""
    if part.groups is None:
        return ()
    if count is not None:
        sizes = tuple(int(c) for c in count)
    elif fitted:
        sizes = (part.fitted // part.groups.fitted,) * part.groups.fitted
    else:
        return tuple(part.groups.of)
    return tuple(g for g, size in enumerate(sizes) for _ in range(size))


def compile_model(declaration: Declaration) -> DeclaredModel:
    """The array code of ``declaration``: sympy runs here, once."""
    experts: list = []
    columns, names, counts, tied = [], [], [], []
    nested: list[NestedCode | None] = []
    for part in declaration.parts:
        if declaration.noise.density and part.gate.kind == "sigmoid":
            raise NumericError(
                param=f"parts.{part.name}.gate.kind",
                value="sigmoid",
                reason="sigmoid weights do not sum to one, so the mixture is no density; "
                "use normalized-sigmoid, or a gaussian-regression noise",
            )
        if declaration.noise.density:
            for structure in ("inner", "groups"):
                if getattr(part, structure, None) is not None:
                    raise NumericError(
                        param=f"parts.{part.name}.{structure}",
                        reason="numeric's density code takes no nested parts or tied parameters; "
                        "a gaussian-regression noise does",
                    )
        functions = atom_functions(declaration, part)
        n_gate = sum(1 for name in functions.names if name in part.gate_parameters)
        n_expert = sum(1 for name in functions.names if name in part.expert.names)
        if part.inner is not None:
            code = compile_nested(declaration, part, n_gate, n_expert)
            nested.append(code)
            experts.append(code.expert)
        else:
            nested.append(None)
            experts.append(compile_expert(functions.expert, functions.x, functions.params[n_gate : n_gate + n_expert]))
        columns.append(tuple(s.name for s in functions.params))
        names.append(tuple(functions.names))
        counts.append((n_gate, n_expert))
        tied.append(tuple(functions.tied) if part.groups is not None else ())
    return DeclaredModel(
        declaration, tuple(experts), tuple(columns), tuple(names), tuple(counts), tuple(nested), tuple(tied)
    )


def part_values(layout: Layout, params: ModelParams, index: int):
    """(gate columns, expert columns, variances or None) of part ``index``."""
    part = layout.parts[index]
    theta = params.atoms[index]
    variance = theta[:, -1] if part.variance else None
    return theta[:, part.gate_columns], theta[:, part.expert_columns], variance
