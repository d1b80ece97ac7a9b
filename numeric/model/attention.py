"""The three regression functions of docs/method.md §7, their values and analytic Jacobians.

With q_{h,i}(x) = xᵀM_{h,i}x, σ_{h,i} = softmax_i(q_{h,·}) and s_{h,i,k}(x) = a_{h,i,k}ᵀx:

- ``mha``,    model (2):  f(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} s_{h,i,k}
- ``gated1``, model (9):  g(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} φ(s_{h,i,k})      (gate after the value projection)
- ``gated2``, model (12): g(x) = Σ_h Σ_k ω_{h,k} φ(F_{h,k}),  F_{h,k} = Σ_i σ_{h,i} s_{h,i,k}   (after the SDPA output)

Derivatives (∂σ_{h,i'}/∂q_{h,i} = σ_{h,i'}(δ_{ii'} − σ_{h,i}); ∂q/∂m_{jl} = w_{jl} x_j x_l with
w = 1 on the diagonal, 2 off it). Writing e = s, e' = 1 (mha) or e = φ(s), e' = φ'(s) (gated1),
G_{h,k} = Σ_i σ_{h,i} e_{h,i,k}:

    ∂/∂ω_{h,k} = G_{h,k}                          | gated2: φ(F_{h,k})
    ∂/∂a_{h,i,k} = ω_{h,k} σ_{h,i} e'_{h,i,k} x    | gated2: ω_{h,k} φ'(F_{h,k}) σ_{h,i} x
    ∂/∂q_{h,i} = Σ_k ω_{h,k} σ_{h,i} (e_{h,i,k} − G_{h,k})  | gated2: Σ_k ω_{h,k} φ'(F_{h,k}) σ_{h,i}
                                                            |         (s_{h,i,k} − F_{h,k})

All arrays are float64 and vectorized over samples; the softmax is stable (N = 2: σ_1 = expit(q_1 − q_2);
otherwise the row maximum is subtracted).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

import numpy as np
from scipy.special import expit

from identcheck import IdentcheckError, parse_activation, parse_param
from identcheck.errors import InputError

from ..cli.choices import MODELS
from ..shipped import AFTER_OUTPUT, shipped_model
from .attention_params import HMoEParams, NumericError

__all__ = ["MODELS", "Model", "as_numeric_error", "get_model", "CHUNK"]

#: Samples per block in :meth:`Model.value` and :meth:`Model.normal_equations`: memory is bounded by
#: the block (a 65536 × 46 Jacobian block is 24 MB), not by n.
CHUNK = 65_536


def exact_constants(params) -> dict:
    """φ's named constants (a mapping or (name, value) pairs, values as text or numbers) as the exact
    rationals identcheck's parser takes; a bad value is identcheck's one-line error."""
    pairs = params.items() if hasattr(params, "items") else params
    return dict(parse_param(f"{k}={v}") for k, v in pairs)


@lru_cache(maxsize=32)
def _phi_functions(phi: str, params: tuple = ()):
    if phi == "sigmoid(z)" and not params:  # the default, written out for speed and overflow-free evaluation

        def f1(z, value=None):  # σ' = σ(1 − σ), from σ(z) when the caller has it already
            s = expit(z) if value is None else value
            return s * (1.0 - s)

        return expit, f1
    try:
        act = parse_activation(phi, exact_constants(params))
    except IdentcheckError as exc:
        raise as_numeric_error(exc) from None
    derivative = act.numpy_derivative(1)
    return act.numpy_derivative(0), lambda z, value=None: derivative(z)


def as_numeric_error(exc: InputError, note: str = "", reword: Callable[[str], str] | None = None) -> NumericError:
    """identcheck's error as numeric's, its parameter, value and reason kept (the command line reads
    them as the flag: ``--phi 'foo(z)': unknown function 'foo'; …``); ``note`` ends the reason, ``reword``
    (if given) rewrites its words (numeric.model.attention_truth: what a fit, not a condition, needs)."""
    parts = tuple(reword(p) if reword is not None and isinstance(p, str) else p for p in exc.parts)
    reason = parts + ((note,) if note else ())
    subject = exc.subject
    if subject is None:
        return NumericError(reason=reason)
    return NumericError(
        param=subject.name,
        value=subject.value,
        reason=reason,
        key=subject.key,
        index=subject.index,
        shown=subject.shown,
    )


class Model:
    """One of :data:`MODELS` with a gate activation φ (text, parsed by identcheck, with the values
    of its named constants in ``params``). ``spec`` is its record (:mod:`numeric.shipped`);
    ``phi_after`` where it applies φ (None: linear experts), which selects the array code."""

    def __init__(self, kind: str, phi: str = "sigmoid(z)", params: dict | None = None):
        self.spec = shipped_model(kind)
        self.kind = kind
        self.phi_after = self.spec.phi_after
        self.phi = phi
        self.params = dict(params or {})
        key = tuple(sorted((k, str(v)) for k, v in self.params.items()))
        # φ and φ' as array functions; None for a model whose experts are linear (no gate)
        self._phi: Callable[..., Any] | None
        self._dphi: Callable[..., Any] | None
        self._phi, self._dphi = _phi_functions(phi, key) if self.spec.has_phi else (None, None)

    def _gate(self) -> tuple[Callable[..., Any], Callable[..., Any]]:
        """(φ, φ') of a gated model."""
        if self._phi is None or self._dphi is None:
            raise ValueError(f"model {self.kind!r} has no gate")
        return self._phi, self._dphi

    def __repr__(self) -> str:
        return f"Model({self.kind!r}, phi={self.phi!r})"

    def activation(self):
        """φ as identcheck's :class:`~identcheck.Activation`, with this model's constants."""
        return parse_activation(self.phi, exact_constants(self.params))

    def value(self, params: HMoEParams, X: np.ndarray, chunk: int = CHUNK) -> np.ndarray:
        """f(X), shape (n,), computed in blocks of ``chunk`` samples."""
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[0] <= chunk:
            return self._forward(params, X)[0]
        out = np.empty(X.shape[0])
        for start in range(0, X.shape[0], chunk):
            out[start : start + chunk] = self._forward(params, X[start : start + chunk])[0]
        return out

    def normal_equations(self, params: HMoEParams, X: np.ndarray, Y: np.ndarray, chunk: int = CHUNK):
        """r = f(X) − Y, JᵀJ and Jᵀr (J = ∂f/∂θ), accumulated over blocks of ``chunk`` samples.

        The n × P Jacobian is never held whole: peak memory is one block's Jacobian plus the
        length-n residual, so a fit at n = 10⁷ needs no more than one at 10⁵ beyond its data.
        """
        X = np.asarray(X, dtype=float)
        n = X.shape[0]
        r = np.empty(n)
        P = params.size
        JtJ = np.zeros((P, P))
        Jtr = np.zeros(P)
        for start in range(0, n, chunk):
            block = slice(start, start + chunk)
            value, J = self.value_and_jacobian(params, X[block])
            r[block] = value - Y[block]
            JtJ += J.T @ J
            Jtr += J.T @ r[block]
        return r, JtJ, Jtr

    def value_and_jacobian(self, params: HMoEParams, X: np.ndarray):
        """f(X) of shape (n,) and ∂f/∂θ of shape (n, params.size), θ as in :mod:`numeric.model.attention_params`."""
        value, pieces = self._forward(params, X)
        d_omega, d_q, d_a_factor, features = pieces()
        if isinstance(d_a_factor, tuple):  # gated2 keeps it factored as σ_{h,i} · slope_{h,k}
            sigma, slope, _ = d_a_factor
            d_a_factor = sigma[:, :, None, :] * slope[:, None]
        H, N, K, d = params.a.shape
        n = X.shape[0]
        d_m = d_q[:, : N - 1, None, :] * features.T[None, None]  # (H, N-1, p, n)
        d_a = d_a_factor[:, :, :, None, :] * X.T[None, None, None]  # (H, N, K, d, n)
        rows = np.concatenate([d_omega.reshape(-1, n), d_m.reshape(-1, n), d_a.reshape(-1, n)], axis=0)
        return value, rows.T

    def value_and_vjp(self, params: HMoEParams, X: np.ndarray):
        """f(X) and a function w ↦ Σ_j w_j ∂f(X_j)/∂θ (the gradient without forming the Jacobian).

        The derivative pieces are computed on the first call of the function, so a value that is
        only looked at (a rejected line-search trial) costs one forward pass.
        """
        value, pieces = self._forward(params, X)
        N = params.N

        def vjp(w: np.ndarray) -> np.ndarray:
            d_omega, d_q, d_a_factor, features = pieces()
            g_omega = d_omega @ w
            g_m = (d_q[:, : N - 1] * w) @ features
            if isinstance(d_a_factor, tuple):  # Σ_n (σ_{h,i} x_d)(x_n) · slope_{h,k}(x_n) w_n, by matmul
                sigma, slope, sx = d_a_factor
                H, K = slope.shape[:2]
                g_a = np.matmul(sx, (slope * w).transpose(0, 2, 1))  # (H, N·d, K)
                g_a = g_a.reshape(H, N, -1, K).transpose(0, 1, 3, 2)
            else:
                g_a = (d_a_factor * w) @ X
            return np.concatenate([g_omega.ravel(), g_m.ravel(), g_a.ravel()])

        return value, vjp

    def _forward(self, params: HMoEParams, X: np.ndarray):
        """f(X), and a function returning the pieces of its derivatives (computed once, on demand),
        samples last: ∂f/∂ω (H,K,n), ∂f/∂q (H,N,n), the factor of x in ∂f/∂a (H,N,K,n), and
        ∂q/∂m (n, d(d+1)/2).

        Samples are the last, contiguous axis so that sums over the small axes (i, k) are
        vectorised adds of length-n rows.
        """
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or X.shape[1] != params.dim:
            raise NumericError(f"X has shape {X.shape}, expected (n, {params.dim})")
        omega, a = params.omega, params.a
        H, N, K, d = a.shape
        n = X.shape[0]
        j, l = np.triu_indices(d)
        features = X[:, j] * X[:, l] * np.where(j == l, 1.0, 2.0)  # ∂q/∂m_{jl}: q = features · m
        q = (params.M[:, :, j, l].reshape(H * N, -1) @ features.T).reshape(H, N, n)
        sigma = _softmax(q)
        w = omega[:, None, :, None]  # (H, 1, K, 1)
        if self.phi_after == AFTER_OUTPUT:
            # F_{h,k} = Σ_i σ_{h,i} a_{h,i,k}ᵀx = Σ_{i,d} (σ_{h,i} x_d) a_{h,i,k,d}: one batched matmul,
            # without the (H, N, K, n) array of the s_{h,i,k}
            sx = (sigma[:, :, None, :] * X.T[None, None]).reshape(H, N * d, n)
            a_t = a.transpose(0, 1, 3, 2).reshape(H, N * d, K)
            F = np.matmul(a_t.transpose(0, 2, 1), sx)  # (H, K, n)
            phi, dphi = self._gate()
            outer = phi(F)
            value = np.einsum("hk,hkn->n", omega, outer)

            def derivative_pieces():
                slope = omega[:, :, None] * dphi(F, outer)  # (H, K, n)
                # Σ_k (s_ik − F_k)·slope_k with Σ_k s_ik slope_k = Σ_d x_d Σ_k a_{ikd} slope_k
                s_slope = (np.matmul(a_t, slope).reshape(H, N, d, n) * X.T[None, None]).sum(axis=2)
                d_q = sigma * (s_slope - np.einsum("hkn,hkn->hn", F, slope)[:, None])
                return outer, d_q, (sigma, slope, sx), features

        else:
            s = (a.reshape(-1, d) @ X.T).reshape(H, N, K, n)
            d_phi: Callable[..., Any] | None
            if self.phi_after is None:
                expert, d_phi = s, None
            else:
                phi, d_phi = self._gate()
                expert = phi(s)
            G = np.einsum("hin,hikn->hkn", sigma, expert)  # (H, K, n)
            value = np.einsum("hk,hkn->n", omega, G)

            def derivative_pieces():
                d_expert = 1.0 if d_phi is None else d_phi(s, expert)
                d_a_factor = w * sigma[:, :, None, :] * d_expert
                d_q = sigma * (np.einsum("hikn,hk->hin", expert, omega) - np.einsum("hkn,hk->hn", G, omega)[:, None])
                return G, d_q, d_a_factor, features

        cache: list = []

        def pieces():
            if not cache:
                cache.append(derivative_pieces())
            return cache[0]

        return value, pieces


def _softmax(q: np.ndarray) -> np.ndarray:
    """softmax over axis 1 of (H, N, n), stable: for N = 2 σ_1 = expit(q_1 − q_2), σ_2 = expit(q_2 − q_1)
    (half the work); otherwise exp(q − max) / Σ."""
    if q.shape[1] == 2:
        difference = q[:, 0] - q[:, 1]
        return np.stack([expit(difference), expit(-difference)], axis=1)
    q = q - q.max(axis=1, keepdims=True)
    sigma = np.exp(q)
    sigma /= sigma.sum(axis=1, keepdims=True)
    return sigma


def get_model(kind: str, phi: str = "sigmoid(z)") -> Model:
    """The model ``kind`` with gate ``phi``.

    Parameters
    ----------
    kind : {"mha", "gated1", "gated2"}
        Plain multi-head attention (model (2)), the gate after the value projection (model (9))
        or after the attention output (model (12)).
    phi : str
        The gate activation, in any form identcheck parses (ignored for ``mha``).

    Returns
    -------
    Model
    """
    return Model(kind, phi)
