r"""The gate's M-step of EM: maximise Q_g(θ_g) = Σ_n Σ_i r_{n,i} log w_i(x_n; θ_g) in the box.

**Log-linear gates** (softmax, quadratic softmax, top-K of a softmax: log g_i = φ(x)ᵀθ_i with
features φ shared by the atoms, φ = (x, 1) or (x_a x_b)_{a≤b}) give a concave Q_g — a multinomial
logistic regression with soft labels r — with

    ∇_i Q_g = Σ_n (r_{n,i} − R_n w_{n,i}) φ_n,     ∇²_{ij} Q_g = −Σ_n R_n (w_{n,i} δ_ij − w_{n,i} w_{n,j}) φ_n φ_nᵀ,

R_n = Σ_i r_{n,i}. Newton steps δ = −(∇²Q_g)⁺∇Q_g on the free parameters (the pseudo-inverse: a
softmax's common shift is a null direction), each halved until it raises Q_g inside the box
(at most :data:`HALVINGS`; none once the quadratic model's gain is below
rounding, 1e-13 relative), at most ``steps`` of them. A top-K mask is held at θ_t's selection, so the
step stays a.e. exact.

**Other gates** (normalised sigmoid, Laplace) use scipy's L-BFGS-B from θ_t with the exact
gradient Σ_n Σ_i (r_{n,i}/w_{n,i}) ∂w_{n,i}/∂θ_g (:func:`numeric.model.gates.contract`), at most
``steps`` × 10 iterations. Either way θ_t is kept unless Q_g rose (a generalised M-step: EM's
log-likelihood still never decreases).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from ..model import CHUNK, contract

__all__ = ["gate_step"]

#: step halvings a Newton step may take before the M-step keeps what it has
HALVINGS = 12


def gate_step(gate, X, r, G0, lo, hi, steps: int = 2, first=None):
    """The gate parameters (k, P_g) after the M-step, from ``G0`` with posteriors ``r`` (k, n);
    ``first``: (Q_g, ∇Q_g, −∇²Q_g) at ``G0`` if already summed (:mod:`numeric.fitting.sums`)."""
    free = lo < hi
    if not free.any():
        return G0
    if gate.log_linear:
        return _newton(gate, X, r, G0, lo, hi, free, steps, first)
    return _quasi_newton(gate, X, r, G0, lo, hi, free, steps)


def _blocks(n: int):
    for start in range(0, n, CHUNK):
        yield slice(start, min(start + CHUNK, n))


def _objective(gate, X, r, G) -> float:
    total = 0.0
    for block in _blocks(r.shape[1]):
        log_w, rb = gate.evaluate(X[block], G).log_w, r[:, block]
        value = float(np.einsum("kn,kn->", rb, log_w))  # one pass; r · log w is nan or −inf only where log w = −inf
        if not np.isfinite(value):
            with np.errstate(invalid="ignore"):
                value = float(np.where(rb > 0, rb * log_w, 0.0).sum())
        total += value
    return total if np.isfinite(total) else -np.inf


def _gradient_and_curvature(gate, X, r, G):
    """Q_g, ∇Q_g (k, P) and −∇²Q_g (k·P, k·P) of a log-linear gate, over blocks of samples."""
    k, P = G.shape
    q, grad, full = 0.0, np.zeros((k, P)), np.zeros((k, P, k, P))
    for block in _blocks(r.shape[1]):
        rb, features = r[:, block], gate.features(X[block])  # φ (P, n), shared by the atoms
        values = gate.evaluate(X[block], G)
        w = values.w
        with np.errstate(invalid="ignore"):
            q += float(np.where(rb > 0, rb * values.log_w, 0.0).sum())
        R = rb.sum(axis=0)
        grad += (rb - R * w) @ features.T
        Rw = R * w
        for i in range(k):
            for j in range(i, k):
                c = (Rw[i] if i == j else 0.0) - Rw[i] * w[j]  # R (w_i δ_ij − w_i w_j), (n,)
                piece = (features * c) @ features.T
                full[i, :, j, :] += piece
                if j != i:
                    full[j, :, i, :] += piece.T
    return (q if np.isfinite(q) else -np.inf), grad, full.reshape(k * P, k * P)


def _newton(gate, X, r, G0, lo, hi, free, steps, first=None):
    """Newton steps on the concave Q_g of a log-linear gate (module docstring); r is (k, n)."""
    G = G0.copy()
    k, P = G.shape
    index = np.flatnonzero(free.ravel())
    for step_number in range(steps):
        if step_number == 0 and first is not None:
            current, grad, full = first
        else:
            current, grad, full = _gradient_and_curvature(gate, X, r, G)
        step = np.zeros(k * P)
        step[index] = np.linalg.lstsq(full[np.ix_(index, index)], grad.ravel()[index], rcond=1e-12)[0]
        step = step.reshape(k, P)
        if 0.5 * float(grad.ravel() @ step.ravel()) <= 1e-13 * max(abs(current), 1.0):
            break  # the quadratic model's gain is below rounding: at the optimum
        t, improved = 1.0, False
        for _ in range(HALVINGS):
            trial = np.clip(G + t * step, lo, hi)
            value = _objective(gate, X, r, trial)
            if value > current:
                improved = True
                break
            t /= 2
        if not improved:
            break
        gain = value - current
        G = trial
        if gain <= 1e-12 * abs(value):
            break
    return G


def _quasi_newton(gate, X, r, G0, lo, hi, free, steps):
    n = r.shape[1]

    def negative(flat):
        G = G0.copy()
        G[free] = flat
        q, grad = 0.0, np.zeros_like(G)
        for block in _blocks(n):
            values = gate.evaluate(X[block], G)
            rb = r[:, block]
            with np.errstate(invalid="ignore", divide="ignore"):
                q += float(np.where(rb > 0, rb * values.log_w, 0.0).sum())
                c = np.divide(rb, values.w, out=np.zeros_like(rb), where=values.w > 0)
            grad += contract(c, values)
        if not np.isfinite(q):
            return np.inf, np.zeros_like(flat)
        return -q / n, -grad[free] / n

    before = negative(G0[free])[0]
    result = minimize(
        negative,
        G0[free],
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lo[free], hi[free])),
        options={"maxiter": 10 * steps},
    )
    if not result.fun < before:
        return G0
    G = G0.copy()
    G[free] = result.x
    return G
