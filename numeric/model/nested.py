r"""A nested part's expert as array code: the outer expert of an inner mixture, and its exact derivatives.

An atom of a nested part (:mod:`identcheck.declaration.nested`) has N inner components with gate
parameters θ_i (one row of the inner gate, :mod:`numeric.model.gates`; the reference component's
shift-invariant parameters pinned at zero) and inner experts h_i(x; η_i), and an outer expert
h(x; η, u) of the inner mixture's value

    u(x) = Σ_{i=1}^{N} w_i(x; θ_1 … θ_N) h_i(x; η_i).

With c = ∂h/∂u (1 when h = u: multi-head attention and Setting I of arXiv 2602.01468; φ'(u) for
Setting II's h = φ(u)), the atom's derivatives are

    ∂h/∂η   (the outer expert's own),
    ∂h/∂η_i = c · w_i · ∂h_i/∂η_i,
    ∂h/∂θ_l = c · Σ_i h_i ∂w_i/∂θ_l = c · (h_l − Σ_i w_i h_i) D_l   (normalised inner gate;
              :func:`numeric.model.gates.per_row` with the per-component h_i as its c).

The inner gate is evaluated once per distinct row of gate parameters — once per group when they
are tied (a head's M_{h,i}, shared by its K channels) — and the inner experts for all atoms and
components at once, by broadcasting (k·N rows).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from scipy.special import expit

from identcheck.declaration import GATES, atom_functions

from .experts import ExpertCode, OuterExpertCode, compile_expert, compile_outer
from .gates import GateCode, per_row

__all__ = ["NestedCode", "compile_nested"]


@dataclass(frozen=True)
class NestedCode:
    """A nested part's inner gate and experts and its outer expert; ``gate_index`` (N, P_g) and
    ``expert_index`` (N, E) are the columns of Θ_p holding component i's gate and expert entries
    (−1: pinned at zero)."""

    components: int
    gate: GateCode
    expert: ExpertCode
    outer: OuterExpertCode
    gate_index: np.ndarray = field(repr=False)
    expert_index: np.ndarray = field(repr=False)

    def _gates(self, X: np.ndarray, rows: np.ndarray) -> list:
        """Each atom's inner gate values, evaluated once per distinct gate row."""
        k = rows.shape[0]
        padded = np.concatenate([rows, np.zeros((k, 1))], axis=1)
        G = padded[:, self.gate_index].reshape(k, -1)  # index −1: the zero column
        unique, inverse = np.unique(G, axis=0, return_inverse=True)
        evaluated = [self.gate.evaluate(X, row.reshape(self.components, -1)) for row in unique]
        return [evaluated[j] for j in np.ravel(inverse)]

    def _weights(self, X: np.ndarray, rows: np.ndarray):
        """(each atom's inner gate weights (k, N, n), the gate's shared features (P_g, n)) of a
        log-linear inner gate without top-K (:attr:`direct`): the scores of every distinct gate row
        from one matrix product with the features computed once, and for N = 2 the weights
        σ(±(s_1 − s_2)) (one expit each, no exponentials and sums)."""
        k, N = rows.shape[0], self.components
        padded = np.concatenate([rows, np.zeros((k, 1))], axis=1)
        G = padded[:, self.gate_index].reshape(k, -1)  # index −1: the zero column
        unique, inverse = np.unique(G, axis=0, return_inverse=True)
        features = self.gate.features(X)
        score = (unique.reshape(-1, features.shape[0]) @ features).reshape(len(unique), N, -1)
        if N == 2:
            w = np.empty_like(score)
            difference = np.subtract(score[:, 0], score[:, 1])
            expit(difference, out=w[:, 0])
            expit(np.negative(difference, out=difference), out=w[:, 1])
        else:
            e = np.exp(score - score.max(axis=1, keepdims=True))
            w = e / e.sum(axis=1, keepdims=True)
        return w[np.ravel(inverse)], features

    @property
    def direct(self) -> bool:
        """The inner gate is a normalised log-linear gate without top-K (softmax, quadratic-softmax),
        each component's gate parameters all free or all pinned: :meth:`value` and
        :meth:`reduced_derivatives` take the shared-features path."""
        full = (self.gate_index >= 0).all(axis=1) | (self.gate_index < 0).all(axis=1)
        return self.gate.kind in ("softmax", "quadratic-softmax") and self.gate.normalised and bool(full.all())

    def value(self, X: np.ndarray, rows: np.ndarray, eta: np.ndarray) -> np.ndarray:
        """h of shape (k, n) for the part's rows Θ_p (k, width) and outer parameters eta (k, E_o)."""
        k, N = rows.shape[0], self.components
        if self.direct:
            w = self._weights(X, rows)[0]
        else:
            w = np.stack([gate.w for gate in self._gates(X, rows)])  # (k, N, n)
        h = self.expert.value(X, rows[:, self.expert_index].reshape(k * N, -1)).reshape(k, N, -1)
        return self.outer.value(X, eta, np.einsum("kin,kin->kn", w, h))

    def derivatives(self, X: np.ndarray, rows: np.ndarray, eta: np.ndarray, expert_columns: slice, weight, part=None):
        """(h (k, n), weight · ∂h/∂Θ_p (k, width, n), tied sums or None) with the outer gate's
        ``weight`` (k, n): the outer expert's columns, the inner gates' and experts' (module
        docstring); the outer gate's columns are left for the caller (uninitialised). When the tied
        columns of ``part`` (a :class:`~numeric.model.layout.PartLayout`) are the inner gate's, their
        group sums (groups, tied, n) are formed from the per-group coefficients, not per atom."""
        k, width, n, N = rows.shape[0], rows.shape[1], X.shape[0], self.components
        gates = self._gates(X, rows)
        w = np.stack([gate.w for gate in gates])
        h, dh = self.expert.value_and_gradient(X, rows[:, self.expert_index].reshape(k * N, -1))
        h, dh = h.reshape(k, N, n), dh.reshape(k, N, -1, n)
        u = np.einsum("kin,kin->kn", w, h)
        value, d_eta, c = self.outer.value_and_gradient(X, eta, u)
        scale = weight if c is None else weight * c  # ∂g/∂u per atom
        out = np.empty((k, width, n))
        out[:, expert_columns] = weight[:, None, :] * d_eta
        ws = w * scale[:, None, :]
        out[:, self.expert_index.ravel()] = (ws[:, :, None, :] * dh).reshape(k, -1, n)
        pinned = self.gate_index.ravel() < 0
        columns = self.gate_index.ravel()[~pinned]
        first = gates[0]
        if not (first.normalised and first.m is None and first.features is not None and first.constant is None):
            for atom, gate in enumerate(gates):
                out[atom, columns] = per_row(h[atom], gate).reshape(-1, n)[~pinned] * scale[atom]
            return value, out, None
        # a log-linear gate, its features shared by all atoms: (h_l − u) w_l · scale · features
        kept = np.flatnonzero((self.gate_index >= 0).any(axis=1))  # components with parameters
        a = ((h - u[:, None, :]) * ws)[:, kept]
        features = first.features[None, None]
        tied = part.tied_columns if part is not None else ()
        if len(tied) and sorted(columns) == list(tied) and (self.gate_index[kept] >= 0).all():
            sums = np.zeros((part.groups, len(kept), n))
            for atom, group in enumerate(part.group_of):
                sums[group] += a[atom]
            position = np.searchsorted(tied, self.gate_index[kept].ravel())
            grouped = np.empty((part.groups, len(tied), n))
            grouped[:, position] = (sums[:, :, None, :] * features).reshape(part.groups, -1, n)
            return value, out, grouped
        full = np.zeros((k, N, first.features.shape[0], n))
        full[:, kept] = a[:, :, None, :] * features
        out[:, columns] = full.reshape(k, -1, n)[:, ~pinned]
        return value, out, None

    def reduces(self, part) -> bool:
        """:meth:`reduced_derivatives` applies to ``part``: :attr:`direct`, and its tied columns (if
        any) exactly the inner gate's."""
        if not self.direct:
            return False
        columns = sorted(self.gate_index[self.gate_index >= 0].ravel())
        tied = list(part.tied_columns)
        return not tied or tied == columns

    def reduced_derivatives(self, X: np.ndarray, rows: np.ndarray, eta: np.ndarray, gate, part, out: np.ndarray):
        """h (k, n), with ∂g/∂θ_p written into ``out`` (part.size, n), θ_p's rows as
        :meth:`~numeric.model.layout.PartLayout.reduce` orders them, for ``part`` (a
        :class:`~numeric.model.layout.PartLayout` that :meth:`reduces`) and its outer gate's values
        ``gate``. The same columns as :meth:`derivatives` and :func:`~numeric.model.gates.per_row`
        of the outer gate, each product written once into its row of ``out``: no per-atom block of
        the tied columns, no copies into it."""
        k, n, N = rows.shape[0], X.shape[0], self.components
        free = part.free_columns
        position = np.full(part.width, -1)
        position[free] = np.arange(len(free))
        per_atom = out[: k * len(free)].reshape(k, len(free), n)
        w, features = self._weights(X, rows)
        h, gradients = self.expert.value_and_gradients(X, rows[:, self.expert_index].reshape(k * N, -1))
        h = h.reshape(k, N, n)
        u = np.einsum("kin,kin->kn", w, h)
        value, d_eta, c = self.outer.value_and_gradient(X, eta, u)
        weight = gate.w
        scale = weight if c is None else weight * c  # ∂g/∂u per atom
        for e, column in enumerate(range(part.n_gate, part.n_gate + part.n_expert)):
            np.multiply(weight, d_eta[:, e], out=per_atom[:, position[column]])
        ws = w * scale[:, None, :]
        for e, g in enumerate(gradients):
            g = np.asarray(g, dtype=float)
            g = g.reshape(k, N, -1) if g.ndim == 2 else g  # per row (k·N, n or 1), or shared: (n,) or ()
            for i in range(N):
                np.multiply(ws[:, i], g[:, i] if g.ndim == 3 else g, out=per_atom[:, position[self.expert_index[i, e]]])
        kept = np.flatnonzero((self.gate_index >= 0).all(axis=1))  # components with gate parameters
        a = (h[:, kept] - u[:, None, :]) * ws[:, kept]  # (h_l − u) w_l · scale, (k, kept, n)
        if len(part.tied_columns):
            sums = np.zeros((part.groups, len(kept), n))
            for atom, group in enumerate(part.group_of):
                sums[group] += a[atom]
            tied = out[k * len(free) :].reshape(part.groups, len(part.tied_columns), n)
            at = np.searchsorted(part.tied_columns, self.gate_index[kept].ravel())
            tied[:, at] = (sums[:, :, None, :] * features[None, None]).reshape(part.groups, -1, n)
        else:
            at = position[self.gate_index[kept].ravel()]
            per_atom[:, at] = (a[:, :, None, :] * features[None, None]).reshape(k, -1, n)
        per_atom[:, position[: part.n_gate]] = per_row(value, gate)
        return value


def compile_nested(declaration, part, n_gate: int, n_expert: int) -> NestedCode:
    """The array code of ``part``'s inner mixture and outer expert (sympy runs here, once)."""
    functions = atom_functions(declaration, part)
    inner, dim = part.inner, declaration.inputs.dim
    column = {entry: c for c, entry in enumerate(functions.entries)}
    layout: list[tuple[str, tuple]] = []  # the inner gate's parameters in GateCode's order: (name, index)
    for parameter in GATES[inner.gate.kind].parameters:
        if parameter.shape == "scalar":
            layout += [(parameter.name, ())]
        elif parameter.shape == "vector":
            layout += [(parameter.name, (j,)) for j in range(dim)]
        else:
            layout += [(parameter.name, (j, l)) for j in range(dim) for l in range(j, dim)]
    N = inner.components
    gate_index = np.array([[column.get((name, i, index), -1) for name, index in layout] for i in range(N)])
    names = set(inner.expert.names)
    expert_index = np.array(
        [[c for c, (name, i, _) in enumerate(functions.entries) if name in names and i == comp] for comp in range(N)],
        dtype=int,
    ).reshape(N, -1)
    kind = inner.gate.kind
    normalised = kind not in ("constant", "sigmoid")
    top_k = inner.gate.top_k if kind == "top-k" else None
    gate = GateCode(kind, dim, len(layout), normalised, inner.gate.of, top_k)
    params = functions.params
    expert = compile_expert(functions.inner_experts[0], functions.x, tuple(params[c] for c in expert_index[0]))
    outer_params = tuple(params[n_gate : n_gate + n_expert])
    outer = compile_outer(part.expert.parsed.h, functions.x, outer_params, sp.Symbol("inner", real=True))
    covered = set(range(n_gate, n_gate + n_expert)) | set(expert_index.ravel()) | set(gate_index[gate_index >= 0])
    assert covered == set(range(n_gate, len(params))), "every inner column has a derivative"
    return NestedCode(N, gate, expert, outer, gate_index, expert_index)
