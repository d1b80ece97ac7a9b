"""The three regression functions of SPEC §1, their values and analytic Jacobians.

With q_{h,i}(x) = xᵀM_{h,i}x, σ_{h,i} = softmax_i(q_{h,·}) and s_{h,i,k}(x) = a_{h,i,k}ᵀx:

- ``mha``,    model (2):  f(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} s_{h,i,k}
- ``gated1``, model (9):  g(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} φ(s_{h,i,k})      (gate after the value projection)
- ``gated2``, model (12): g(x) = Σ_h Σ_k ω_{h,k} φ(F_{h,k}),  F_{h,k} = Σ_i σ_{h,i} s_{h,i,k}   (after the SDPA output)

Derivatives (∂σ_{h,i'}/∂q_{h,i} = σ_{h,i'}(δ_{ii'} − σ_{h,i}); ∂q/∂m_{jl} = w_{jl} x_j x_l with
w = 1 on the diagonal, 2 off it). Writing e = s, e' = 1 (mha) or e = φ(s), e' = φ'(s) (gated1),
G_{h,k} = Σ_i σ_{h,i} e_{h,i,k}:

    ∂/∂ω_{h,k} = G_{h,k}                          | gated2: φ(F_{h,k})
    ∂/∂a_{h,i,k} = ω_{h,k} σ_{h,i} e'_{h,i,k} x    | gated2: ω_{h,k} φ'(F_{h,k}) σ_{h,i} x
    ∂/∂q_{h,i} = Σ_k ω_{h,k} σ_{h,i} (e_{h,i,k} − G_{h,k})  | gated2: Σ_k ω_{h,k} φ'(F_{h,k}) σ_{h,i} (s_{h,i,k} − F_{h,k})

All arrays are float64 and vectorized over samples; the softmax subtracts the row maximum.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .params import HMoEParams, NumericError

__all__ = ["MODELS", "Model", "get_model"]

MODELS = ("mha", "gated1", "gated2")


@lru_cache(maxsize=32)
def _phi_functions(phi: str):
    from identcheck import IdentcheckError, parse_activation

    if phi == "sigmoid(z)":  # the default, written out for speed and overflow-free evaluation
        def f0(z):
            return 0.5 * (1.0 + np.tanh(0.5 * z))

        def f1(z):
            s = f0(z)
            return s * (1.0 - s)

        return f0, f1
    try:
        act = parse_activation(phi)
    except IdentcheckError as exc:
        raise NumericError(str(exc)) from None
    return act.numpy_derivative(0), act.numpy_derivative(1)


class Model:
    """One of :data:`MODELS` with a gate activation φ (text, parsed by identcheck)."""

    def __init__(self, kind: str, phi: str = "sigmoid(z)"):
        if kind not in MODELS:
            raise NumericError(f"model={kind!r}: unknown; choose one of {', '.join(MODELS)}")
        self.kind = kind
        self.phi = phi
        self._phi, self._dphi = _phi_functions(phi) if kind != "mha" else (None, None)

    def __repr__(self) -> str:
        return f"Model({self.kind!r}, phi={self.phi!r})"

    def value(self, params: HMoEParams, X: np.ndarray) -> np.ndarray:
        """f(X), shape (n,)."""
        return self._evaluate(params, X, jacobian=False)[0]

    def value_and_jacobian(self, params: HMoEParams, X: np.ndarray):
        """f(X) of shape (n,) and ∂f/∂θ of shape (n, params.size), θ as in :mod:`numeric.params`."""
        return self._evaluate(params, X, jacobian=True)

    def _evaluate(self, params: HMoEParams, X: np.ndarray, jacobian: bool):
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != params.dim:
            raise NumericError(f"X has shape {X.shape}, expected (n, {params.dim})")
        omega, M, a = params.omega, params.M, params.a
        q = np.einsum("nj,hijl,nl->nhi", X, M, X)
        q -= q.max(axis=2, keepdims=True)
        sigma = np.exp(q)
        sigma /= sigma.sum(axis=2, keepdims=True)
        s = np.einsum("nd,hikd->nhik", X, a)
        if self.kind == "gated2":
            F = np.einsum("nhi,nhik->nhk", sigma, s)
            outer = self._phi(F)
            value = np.einsum("hk,nhk->n", omega, outer)
            if not jacobian:
                return value, None
            slope = omega[None] * self._dphi(F)  # (n, h, k)
            d_omega = outer
            d_a = np.einsum("nhk,nhi,nd->nhikd", slope, sigma, X)
            d_q = np.einsum("nhk,nhi,nhik->nhi", slope, sigma, s - F[:, :, None, :])
        else:
            expert = s if self.kind == "mha" else self._phi(s)
            G = np.einsum("nhi,nhik->nhk", sigma, expert)
            value = np.einsum("hk,nhk->n", omega, G)
            if not jacobian:
                return value, None
            d_expert = np.ones_like(s) if self.kind == "mha" else self._dphi(s)
            d_omega = G
            d_a = np.einsum("hk,nhi,nhik,nd->nhikd", omega, sigma, d_expert, X)
            d_q = np.einsum("hk,nhi,nhik->nhi", omega, sigma, expert - G[:, :, None, :])
        j, l = np.triu_indices(params.dim)
        features = X[:, j] * X[:, l] * np.where(j == l, 1.0, 2.0)  # ∂q/∂m_{jl}
        d_m = d_q[:, :, : params.N - 1, None] * features[:, None, None, :]
        n = X.shape[0]
        J = np.concatenate([d_omega.reshape(n, -1), d_m.reshape(n, -1), d_a.reshape(n, -1)], axis=1)
        return value, J


def get_model(kind: str, phi: str = "sigmoid(z)") -> Model:
    """The model ``kind`` with gate ``phi`` (ignored for ``mha``)."""
    return Model(kind, phi)
