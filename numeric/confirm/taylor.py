"""The model-level Taylor term set at a truth, and its smallest singular value.

identcheck's type-1 condition is about the functions ū(x; M, a) = exp(xᵀMx)·φ(aᵀx) of a probe.
What the rates of Theorem 2 use in the end is the model: the functions a parameter move produces
in g to first order, and, for an over-fitted channel (a Voronoi cell with two members, the
split a ± √t·v), to second order in its expert vectors. Here, at a truth G*:

- every first-order term ∂g/∂θ_p (θ in the layout of :mod:`numeric.model.attention_params`: ω, the free entries
  m of M_{h,1..N−1}, a);
- every split term ∂²g/∂a_{h,i,k,j}∂a_{h,i,k,l} (j ≤ l; a channel's two gates do not mix:
  ∂²g/∂a_{h,1,k,·}∂a_{h,2,k,·} = 0 in Setting I):

      gated1, model (9):   ω_{h,k} σ_{h,i}(x) φ''(a_{h,i,k}ᵀx) x_j x_l
      gated2, model (12):  ω_{h,k} σ_{h,i}(x)² φ''(F_{h,k}(x)) x_j x_l.

(∂²g/∂ω∂a is ∂g/∂a / ω, the same function; it is not listed.) The columns are scaled to unit
norm on the sample and the singular values of the n × T matrix are returned: the smallest one,
s_min/s_max, says how close the model's Taylor terms come to a linear relation — the model-level
counterpart of identcheck's smallest singular value (which is about ū). docs/confirm.md uses it
to compare exp(z) with identifiable activations.
"""

from __future__ import annotations

import numpy as np

from ..model.attention_declared import AttentionCode
from ..model.attention_params import HMoEParams
from ..shipped import AFTER_OUTPUT, AFTER_VALUES

__all__ = ["taylor_terms", "taylor_singular_values"]


def _softmax(Q: np.ndarray) -> np.ndarray:
    Q = Q - Q.max(axis=-1, keepdims=True)
    E = np.exp(Q)
    return E / E.sum(axis=-1, keepdims=True)


def taylor_terms(model: AttentionCode, params: HMoEParams, X: np.ndarray):
    """(matrix n × T, labels): the first-order terms ∂g/∂θ and the split terms (module docstring).

    Parameters
    ----------
    model : AttentionCode
        A model with a gate φ (``gated1``, φ after the values, or ``gated2``, after the output).
    params : HMoEParams
        The truth G*.
    X : ndarray, shape (n, d)

    Returns
    -------
    terms : ndarray, shape (n, P + H·N·K·d(d+1)/2)
    labels : list of str, one per column (``"d/dtheta[p]"``, ``"d2/da[h,i,k;j,l]"``, 1-based h, i, k, j, l)
    """
    if model.phi_after not in (AFTER_VALUES, AFTER_OUTPUT):
        raise ValueError(f"model={model.kind!r}: the split terms are written for a model with a gate phi")
    _, J = model.value_and_jacobian(params, X)
    H, N, K, d = params.a.shape
    second = model.activation().numpy_derivative(2)
    Q = np.einsum("nj,hijl,nl->nhi", X, params.M, X)
    sigma = _softmax(Q)  # (n, H, N)
    S = np.einsum("nj,hikj->nhik", X, params.a)  # a_{h,i,k}ᵀx
    columns, labels = [J], [f"d/dtheta[{p}]" for p in range(J.shape[1])]
    pairs = [(j, l) for j in range(d) for l in range(j, d)]
    for h in range(H):
        for k in range(K):
            if model.phi_after == AFTER_OUTPUT:
                F = np.einsum("ni,ni->n", sigma[:, h], S[:, h, :, k])
                curvature = np.broadcast_to(second(F), F.shape)
            for i in range(N):
                if model.phi_after == AFTER_VALUES:
                    factor = sigma[:, h, i] * np.broadcast_to(second(S[:, h, i, k]), S[:, h, i, k].shape)
                else:
                    factor = sigma[:, h, i] ** 2 * curvature
                for j, l in pairs:
                    columns.append((params.omega[h, k] * factor * X[:, j] * X[:, l])[:, None])
                    labels.append(f"d2/da[{h + 1},{i + 1},{k + 1};{j + 1},{l + 1}]")
    return np.hstack(columns), labels


def taylor_singular_values(model: AttentionCode, params: HMoEParams, X: np.ndarray) -> np.ndarray:
    """Singular values of the column-scaled Taylor term matrix, largest first (a zero column left as is)."""
    T, _ = taylor_terms(model, params, X)
    norms = np.linalg.norm(T, axis=0)
    return np.linalg.svd(T / np.where(norms > 0, norms, 1.0), compute_uv=False)
