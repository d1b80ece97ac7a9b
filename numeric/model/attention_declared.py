r"""The hand-written models' parameters and a shipped declaration's flat vector, each way.

numeric's hand-written models (:mod:`numeric.model.attention`) and the shipped declarations
``mha``, ``setting1``, ``setting2`` (docs/numeric.md) are the same functions of the same parameters
(:data:`DECLARATIONS`). The hand-written layout is θ = (ω [H·K], m [H·(N−1)·d(d+1)/2], a [H·N·K·d])
(:mod:`numeric.model.attention_params`); the declared one (:mod:`numeric.model.layout`) has one
row per channel (h, k) — atom h·K + k, its head h the atom's group — holding ω_{h,k} and
a_{h,i,k} for every gate i, and the head's tied M_{h,i} (upper triangles, M_{h,N} = 0 pinned) once
per head. The map reads each declared column's entry (parameter, gate i, index) from
:func:`identcheck.declaration.atom_functions`, so it is a permutation of θ:
:func:`declared_order` gives it, :func:`to_declared` and :func:`from_declared` apply it to
parameters.
"""

from __future__ import annotations

import numpy as np

from identcheck.declaration import atom_functions, read_example

from ..errors import NumericError
from .attention_params import HMoEParams
from .layout import DeclaredModel, Layout, ModelParams, compile_model

__all__ = ["DECLARATIONS", "declared_layout", "declared_model", "declared_order", "from_declared", "to_declared"]

#: The shipped declaration of each hand-written model.
DECLARATIONS = {"mha": "mha", "gated1": "setting1", "gated2": "setting2"}


def declared_model(kind: str, phi: str | None = None) -> DeclaredModel:
    """The compiled shipped declaration of hand-written model ``kind`` (its φ replaced by ``phi``)."""
    if kind not in DECLARATIONS:
        raise NumericError(param="model", value=kind, reason=f"unknown; choose one of {', '.join(DECLARATIONS)}")
    functions = {"phi": phi} if phi is not None and kind != "mha" else None
    return compile_model(read_example(DECLARATIONS[kind], functions))


def declared_layout(model: DeclaredModel, H: int, K: int) -> Layout:
    """The declared layout of H heads of K channels."""
    part = model.declaration.parts[0]
    return model.layout(True, {part.name: (K,) * H})


def _columns(model: DeclaredModel) -> tuple:
    declaration = model.declaration
    if len(declaration.parts) != 1 or declaration.parts[0].groups is None or declaration.parts[0].inner is None:
        why = "not a model of heads of channels (one nested part with groups)"
        raise NumericError(param="model", value=declaration.name, reason=why)
    entries = atom_functions(declaration, declaration.parts[0]).entries
    if {name for name, *_ in entries} != {"omega", "M", "a"}:
        raise NumericError(param="model", value=declaration.name, reason="its parameters are not omega, M and a")
    return entries


def to_declared(model: DeclaredModel, layout: Layout, params: HMoEParams) -> np.ndarray:
    """The declared flat θ of ``params`` (H heads of K channels in ``layout``)."""
    entries, part = _columns(model), layout.parts[0]
    H, K = params.H, params.K
    if part.groups != H or part.k != H * K:
        raise NumericError(f"the layout has {part.groups} heads of {part.k} channels, the parameters H={H}, K={K}")
    rows = np.empty((part.k, part.width))
    for h in range(H):
        for k in range(K):
            rows[h * K + k] = [_entry(params, h, k, entry) for entry in entries]
    return layout.pack(ModelParams((rows,), layout.fixed_shares))


def from_declared(model: DeclaredModel, layout: Layout, theta: np.ndarray) -> HMoEParams:
    """The hand-written parameters of a declared flat θ in ``layout``."""
    entries, part = _columns(model), layout.parts[0]
    rows = layout.unpack(np.asarray(theta, dtype=float)).atoms[0]
    H = part.groups
    K = part.k // H
    inner = model.declaration.parts[0].inner
    assert inner is not None  # _columns checked it
    N, d = inner.components, model.declaration.inputs.dim
    omega, M, a = np.zeros((H, K)), np.zeros((H, N, d, d)), np.zeros((H, N, K, d))
    for h in range(H):
        for k in range(K):
            for column, (name, component, index) in enumerate(entries):
                value = rows[h * K + k, column]
                if name == "omega":
                    omega[h, k] = value
                elif name == "M":
                    M[h, component, index[0], index[1]] = M[h, component, index[1], index[0]] = value
                else:
                    a[h, component, k, index[0]] = value
    return HMoEParams(omega, M, a)


def declared_order(model: DeclaredModel, layout: Layout, N: int) -> np.ndarray:
    """The permutation π with θ_declared = θ_hand[π] (and J_declared = J_hand[:, π])."""
    part = layout.parts[0]
    H, d = part.groups, model.declaration.inputs.dim
    K = part.k // H
    size = H * K + H * (N - 1) * d * (d + 1) // 2 + H * N * K * d
    order = to_declared(model, layout, HMoEParams.from_vector(np.arange(size, dtype=float), H, N, K, d))
    return np.rint(order).astype(int)


def _entry(params: HMoEParams, h: int, k: int, entry) -> float:
    name, component, index = entry
    if name == "omega":
        return float(params.omega[h, k])
    if name == "M":
        return float(params.M[h, component][index])
    return float(params.a[h, component, k][index])
