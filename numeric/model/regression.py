r"""A declared regression: the function g(x), its exact Jacobian, and the normal equations.

    g(x) = Σ_p Σ_{i ≤ k_p} w_{p,i}(x) h_p(x; η_{p,i}),      y = g(x) + N(0, σ²),

fitted by least squares, MSE(θ) = (1/n) Σ_n (g(x_n) − y_n)². The Jacobian's columns, per atom l:

    ∂g/∂η_l   = w_l ∂h/∂η_l,
    ∂g/∂θ_g,l = Σ_i h_i ∂w_i/∂θ_g,l = (h_l − Σ_i w_i h_i) D_l  (normalised gate; h_l D_l otherwise;
                 :func:`numeric.model.gates.per_row`).

A nested part's h_l is its outer expert of the inner mixture, whose columns ∂h/∂Θ (outer η,
inner gates and experts) come from :mod:`numeric.model.nested`: ∂g/∂Θ_l = w_l ∂h_l/∂Θ_l there. A
tied column's derivative is the sum over its group's atoms (:meth:`~numeric.model.layout.PartLayout.reduce`).

JᵀJ and Jᵀr are accumulated over blocks of :data:`~numeric.model.density.CHUNK` samples, so the
n × P Jacobian is never held whole; every block is written into the same memory (a fresh block's
pages cost more than its arithmetic on a machine whose page faults are dear).
"""

from __future__ import annotations

import numpy as np

from .density import CHUNK
from .gates import per_row
from .layout import Layout, ModelParams, part_values

__all__ = ["jacobian", "normal_equations", "regression_function"]


def regression_function(layout: Layout, params: ModelParams, X: np.ndarray) -> np.ndarray:
    """g(X) of shape (n,)."""
    total = np.zeros(X.shape[0])
    for index, part in enumerate(layout.parts):
        G, eta, _ = part_values(layout, params, index)
        if part.nested is not None:
            h = part.nested.value(X, params.atoms[index], eta)
        else:
            h = part.expert.value(X, eta)
        total += (part.gate.evaluate(X, G).w * h).sum(axis=0)
    return total


def jacobian(layout: Layout, theta: np.ndarray, X: np.ndarray, out: np.ndarray | None = None):
    """(g(X) of shape (n,), ∂g/∂θ transposed, of shape (P, n)) at the flat θ (a regression has no
    shares), the latter written into ``out`` (a C-contiguous (P, n) array) when given."""
    params = layout.unpack(theta)
    n = X.shape[0]
    value = np.zeros(n)
    size = sum(part.size for part in layout.parts)
    Jt = np.empty((size, n)) if out is None else out
    assert Jt.shape == (size, n) and Jt.flags.c_contiguous
    for index, part in enumerate(layout.parts):
        G, eta, _ = part_values(layout, params, index)
        gate = part.gate.evaluate(X, G)
        out = Jt[part.offset : part.offset + part.size]
        if part.nested is not None and part.nested.reduces(part):
            h = part.nested.reduced_derivatives(X, params.atoms[index], eta, gate, part, out)
            value += np.einsum("kn,kn->n", gate.w, h)
            continue
        if part.nested is not None:
            h, block, grouped = part.nested.derivatives(X, params.atoms[index], eta, part.expert_columns, gate.w, part)
        else:
            grouped = None
            h, dh = part.expert.value_and_gradient(X, eta)
            block = np.zeros((part.k, part.width, n))
            block[:, part.expert_columns] = gate.w[:, None, :] * dh
        value += np.einsum("kn,kn->n", gate.w, h)
        block[:, part.gate_columns] = per_row(h, gate)
        out[...] = part.reduce(block, grouped)
    return value, Jt


def normal_equations(layout: Layout, theta: np.ndarray, X: np.ndarray, Y: np.ndarray, chunk: int = CHUNK):
    """(r = g(X) − Y, JᵀJ, Jᵀr), accumulated over blocks of ``chunk`` samples."""
    n, P = len(Y), layout.size
    r = np.empty(n)
    JtJ, Jtr = np.zeros((P, P)), np.zeros(P)
    buffer = np.empty(P * min(chunk, n))  # one Jacobian block's memory, written anew for each block
    for start in range(0, n, chunk):
        block = slice(start, min(start + chunk, n))
        m = block.stop - block.start
        value, Jt = jacobian(layout, theta, X[block], buffer[: P * m].reshape(P, m))
        r[block] = value - Y[block]
        JtJ += Jt @ Jt.T
        Jtr += Jt @ r[block]
    return r, JtJ, Jtr
