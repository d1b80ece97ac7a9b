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
parameters. :class:`DeclaredAttention` is a shipped declaration's array code behind the
hand-written :class:`~numeric.model.attention.Model`'s interface (values, normal equations,
Jacobian, vector–Jacobian product on :class:`~numeric.model.attention_params.HMoEParams`), so the
hand-written optimisers and losses run on it unchanged. :func:`declaration_for` is the shipped
declaration with another truth (H heads of K* channels, N gates, d inputs, its φ and noise): the
shipped one itself for numeric's default truth; :func:`attention_code` is what a fit computes with.
"""

from __future__ import annotations

import tomllib

import numpy as np

from identcheck import parse_activation
from identcheck.declaration import Declaration, atom_functions, example_path, parse_declaration, read_example

from ..errors import NumericError
from ..shipped import SHIPPED, shipped_model
from .attention import Model
from .attention_params import HMoEParams
from .density import CHUNK
from .layout import DeclaredModel, Layout, ModelParams, compile_model
from .regression import jacobian, normal_equations, regression_function

__all__ = [
    "AttentionCode",
    "DECLARATIONS",
    "attention_code",
    "attention_model",
    "declaration_for",
    "DeclaredAttention",
    "declared_layout",
    "declared_model",
    "declared_order",
    "shaped_model",
    "from_declared",
    "to_declared",
]

#: Samples per block of the declared Jacobian: its per-atom derivatives (k × width × block) come
#: before the reduced rows, so half the hand-written model's block keeps a fit's peak memory below
#: :func:`numeric.fitting.memory.estimate_bytes`.
BLOCK = CHUNK // 2

#: The shipped declaration of each hand-written model (:mod:`numeric.shipped`).
DECLARATIONS = {name: spec.declaration for name, spec in SHIPPED.items()}


def declared_model(kind: str, phi: str | None = None) -> DeclaredModel:
    """The compiled shipped declaration of hand-written model ``kind`` (its φ replaced by ``phi``)."""
    spec = shipped_model(kind)
    functions = {"phi": phi} if phi is not None and spec.has_phi else None
    return compile_model(read_example(spec.declaration, functions))


def declaration_for(kind: str, truth) -> Declaration:
    """The shipped declaration of ``kind`` with ``truth``'s parameters, φ and noise (a
    :class:`~numeric.model.attention_truth.Truth` without named constants in φ)."""
    if truth.phi_params:
        raise NumericError(param="phi_params", value=truth.phi_params, reason="a declared φ has no named constants")
    return _declaration(kind, truth.phi, truth.params, float(truth.noise_std))


def shaped_model(kind: str, phi: str, N: int, d: int) -> DeclaredModel:
    """The compiled shipped declaration of ``kind`` with N gates per head and d inputs: the array
    code of any H heads of K channels of that shape (its truth, one generic channel, only gives
    the shape)."""
    j = np.arange(d)
    M = np.zeros((1, N, d, d))
    for i in range(N - 1):
        M[0, i] = np.diag((i + 1.0) / N * np.where(j % 2 == 0, 1.0, -1.0))
    a = np.array([[(i + 1.0) / N * (-1.0) ** (j + i) + 0.25 * j] for i in range(N)])[None]
    return compile_model(_declaration(kind, phi, HMoEParams(np.ones((1, 1)), M, a), 0.1))


def _declaration(kind: str, phi: str, P: HMoEParams, noise_std: float) -> Declaration:
    spec = shipped_model(kind)
    data = tomllib.loads(example_path(spec.declaration).read_text(encoding="utf-8"))
    data["inputs"]["dim"] = P.dim
    data["noise"]["sigma"] = noise_std
    if "functions" in data:
        data["functions"]["phi"] = phi
    part = data["parts"]["channels"]
    part["inner"]["components"] = P.N
    per_head = max(P.K, part["fitted"] // part["groups"]["fitted"])  # the shipped fit's channels per head, or K*
    part["fitted"] = P.H * per_head
    part["groups"]["fitted"] = P.H
    part["groups"]["truth"] = [{"M": P.M[h].tolist()} for h in range(P.H)]
    part["truth"] = [
        {"group": h + 1, "omega": float(P.omega[h, k]), "a": P.a[h, :, k].tolist()}
        for h in range(P.H)
        for k in range(P.K)
    ]
    return parse_declaration(data)


def attention_code(kind: str, truth):
    """What a fit of ``kind`` to ``truth`` computes with: the declaration's array code
    (:class:`DeclaredAttention` of :func:`declaration_for`), or the hand-written model when φ has
    named constants, which a declaration does not express."""
    if truth.phi_params:
        return truth.model(kind)
    return DeclaredAttention(kind, truth.phi, compile_model(declaration_for(kind, truth)))


def attention_model(kind: str, phi: str = "sigmoid(z)", params: dict | None = None):
    """Model ``kind`` with gate ``phi`` for parameters of any shape (confirm's lifted probes, ratio's
    sequences): :class:`DeclaredAttention`, or the hand-written model when φ has named constants
    ``params``, which a declaration does not express."""
    if params:
        return Model(kind, phi, params)
    return DeclaredAttention(kind, phi)


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


class DeclaredAttention:
    """Hand-written model ``kind`` computed by its shipped declaration's array code, φ = ``phi``
    (module docstring); θ in the hand-written layout, permuted to the declared one and back."""

    def __init__(self, kind: str, phi: str = "sigmoid(z)", model: DeclaredModel | None = None):
        self.spec = shipped_model(kind)
        self.kind, self.phi, self.phi_after = kind, phi, self.spec.phi_after
        self.params: dict = {}  # φ's named constants: a declared φ has none
        self.model = model if model is not None else declared_model(kind, phi)
        self._layouts: dict = {}
        self._models = {self._shape(self.model): self.model}

    @staticmethod
    def _shape(model: DeclaredModel) -> tuple:
        inner = model.declaration.parts[0].inner
        assert inner is not None  # a model of heads of channels (_columns)
        return inner.components, model.declaration.inputs.dim

    def activation(self):
        """φ as identcheck's :class:`~identcheck.Activation` (no named constants)."""
        return parse_activation(self.phi)

    def model_for(self, N: int, d: int) -> DeclaredModel:
        """The compiled declaration of N gates and d inputs: this one, or :func:`shaped_model`."""
        if (N, d) not in self._models:
            self._models[N, d] = shaped_model(self.kind, self.phi, N, d)
        return self._models[N, d]

    def __repr__(self) -> str:
        return f"DeclaredAttention({self.kind!r}, phi={self.phi!r})"

    def _declared(self, params: HMoEParams):
        """(layout, π, θ_declared) for ``params``."""
        key = (params.H, params.K, params.N, params.dim)
        if key not in self._layouts:
            model = self.model_for(params.N, params.dim)
            layout = declared_layout(model, params.H, params.K)
            self._layouts[key] = (layout, declared_order(model, layout, params.N))
        layout, order = self._layouts[key]
        return layout, order, params.to_vector()[order]

    def value(self, params: HMoEParams, X: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
        """f(X), shape (n,)."""
        layout, _, theta = self._declared(params)
        X = np.asarray(X, dtype=float)
        atoms = layout.unpack(theta)
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], chunk):
            out[start : start + chunk] = regression_function(layout, atoms, X[start : start + chunk])
        return out

    def normal_equations(self, params: HMoEParams, X: np.ndarray, Y: np.ndarray, chunk: int = BLOCK):
        """r = f(X) − Y, JᵀJ and Jᵀr in the hand-written layout, in blocks of ``chunk`` samples."""
        layout, order, theta = self._declared(params)
        r, JtJ, Jtr = normal_equations(layout, theta, np.asarray(X, dtype=float), Y, chunk)
        back = np.argsort(order)
        return r, JtJ[np.ix_(back, back)], Jtr[back]

    def value_and_jacobian(self, params: HMoEParams, X: np.ndarray):
        """f(X) (n,) and ∂f/∂θ (n, P) in the hand-written layout."""
        layout, order, theta = self._declared(params)
        value, Jt = jacobian(layout, theta, np.asarray(X, dtype=float))
        return value, Jt[np.argsort(order)].T

    def value_and_vjp(self, params: HMoEParams, X: np.ndarray):
        """f(X) and w ↦ Σ_j w_j ∂f(X_j)/∂θ, the Jacobian formed block by block at each call."""
        layout, order, theta = self._declared(params)
        X = np.asarray(X, dtype=float)
        value = self.value(params, X)
        back = np.argsort(order)

        def vjp(w: np.ndarray) -> np.ndarray:
            total = np.zeros(layout.size)
            for start in range(0, X.shape[0], BLOCK):
                total += jacobian(layout, theta, X[start : start + BLOCK])[1] @ w[start : start + BLOCK]
            return total[back]

        return value, vjp


#: What a model's code is: the declaration's (:class:`DeclaredAttention`) or the hand-written one.
AttentionCode = Model | DeclaredAttention
