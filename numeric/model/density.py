r"""A declared Gaussian mixture of experts: log-likelihood, its exact gradient, and posteriors.

    f(y | x) = Σ_p s_p Σ_{i ≤ k_p} w_{p,i}(x) N(y | h_p(x; η_{p,i}), ν_{p,i}),
    ℓ(θ) = Σ_n log f(y_n | x_n),

evaluated in logarithms: a_{n,p,i} = log s_p + log w_{p,i}(x_n) + log N(y_n | h, ν), log f = logsumexp_{p,i} a.
The posterior of atom (p, i) is r_{n,p,i} = exp(a_{n,p,i} − log f_n) (Σ over all atoms = 1), and
q_{n,p,i} = s_p N_{n,p,i} / f_n = r / w without dividing by w. The gradient, for each atom:

    ∂ℓ/∂η   = Σ_n r (y − h)/ν · ∂h/∂η,
    ∂ℓ/∂ν   = Σ_n r ((y − h)² − ν) / (2ν²),
    ∂ℓ/∂θ_g = Σ_n Σ_i q_{n,p,i} ∂w_{p,i}/∂θ_g      (:func:`numeric.model.gates.contract`),
    ∂ℓ/∂u_p = Σ_n (R_{n,p}/s_p − 1) / Σ_q u_q       (free shares s = u/Σu; R_{n,p} = Σ_i r_{n,p,i}).

Data are taken in chunks of :data:`CHUNK` samples, so memory beyond the data is O(CHUNK · k).
"""

from __future__ import annotations

import math

import numpy as np

from .gates import contract
from .layout import Layout, ModelParams, part_values

__all__ = ["CHUNK", "log_likelihood", "log_likelihood_and_gradient", "posteriors"]

#: samples per block of array work
CHUNK = 1 << 17
_LOG_2PI = math.log(2 * math.pi)


def _blocks(n: int, chunk: int):
    for start in range(0, n, chunk):
        yield slice(start, min(start + chunk, n))


def _terms(layout: Layout, params: ModelParams, X, Y, gradient: bool):
    """Per part: (gate values, h, ∂h/∂η or None, ν, log N, a) on one block, each (k, n) atoms first."""
    out = []
    with np.errstate(divide="ignore"):
        log_shares = np.log(params.shares)
    for index, part in enumerate(layout.parts):
        G, eta, nu = part_values(layout, params, index)
        gate = part.gate.evaluate(X, G)
        if gradient:
            h, dh = part.expert.value_and_gradient(X, eta)
        else:
            h, dh = part.expert.value(X, eta), None
        log_n = np.subtract(Y[None, :], h)  # in place from here: one (k, n) array for log N, one for a
        np.square(log_n, out=log_n)
        log_n *= (-0.5 / nu)[:, None]
        log_n += (-0.5 * (_LOG_2PI + np.log(nu)))[:, None]
        a = np.add(gate.log_w, log_n)
        a += log_shares[index]
        out.append((gate, h, dh, nu, log_n, a))
    return out


def _log_total(terms, keep: bool = False):
    """log f of shape (n,): logsumexp over every atom of every part; with ``keep``, also
    (exp(a − top) per part, Σ of them), so the posteriors are exp(a − top)/Σ without a second exp."""
    top = terms[0][5].max(axis=0)
    for t in terms[1:]:
        top = np.maximum(top, t[5].max(axis=0))
    total = np.zeros_like(top)
    scaled = []
    for t in terms:
        e = np.subtract(t[5], top)
        np.exp(e, out=e)
        total += e.sum(axis=0)
        if keep:
            scaled.append(e)
    log_f = top + np.log(total)
    return (log_f, scaled, total) if keep else log_f


def log_likelihood(layout: Layout, params: ModelParams, X: np.ndarray, Y: np.ndarray, chunk: int = CHUNK) -> float:
    """ℓ = Σ_n log f(y_n | x_n)."""
    total = 0.0
    for block in _blocks(len(Y), chunk):
        total += float(_log_total(_terms(layout, params, X[block], Y[block], False)).sum())
    return total


def log_likelihood_and_gradient(layout: Layout, theta: np.ndarray, X, Y, chunk: int = CHUNK):
    """(ℓ, ∂ℓ/∂θ) at the flat θ of ``layout``."""
    params = layout.unpack(theta)
    total = 0.0
    grads = [np.zeros((p.k, p.width)) for p in layout.parts]
    share_grad = np.zeros(len(layout.parts))
    for block in _blocks(len(Y), chunk):
        y = Y[block]
        terms = _terms(layout, params, X[block], y, True)
        log_f = _log_total(terms)
        total += float(log_f.sum())
        for index, (part, (gate, h, dh, nu, log_n, a)) in enumerate(zip(layout.parts, terms)):
            r = np.exp(a - log_f)
            residual = y - h
            g = grads[index]
            g[:, part.expert_columns] += np.einsum("ken,kn->ke", dh, r * residual) / nu[:, None]
            g[:, -1] += (r * (residual**2 - nu[:, None])).sum(axis=1) / (2 * nu**2)
            with np.errstate(divide="ignore"):
                q = np.exp(np.log(params.shares[index]) + log_n - log_f)
            g[:, part.gate_columns] += contract(q, gate)
            if layout.free_shares:
                share_grad[index] += (r.sum(axis=0) / params.shares[index] - 1.0).sum()
    pieces = [g.ravel() for g in grads]
    if layout.free_shares:
        pieces.append(share_grad / theta[-len(layout.parts) :].sum())
    return total, np.concatenate(pieces)


def posteriors(layout: Layout, params: ModelParams, X, Y, chunk: int = CHUNK, gradient: bool = False, visit=None):
    """(ℓ, [r_p of shape (k_p, n) per part]): the E-step.

    With ``visit``, ``visit(block, terms, r)`` is called on each block of samples with that block's
    per-part terms (gate values, h, ∂h/∂η when ``gradient`` else None, ν, log N, a) and posteriors
    [(k_p, block) per part], so that sums over the samples at these parameters (EM's M-step) reuse
    them rather than evaluate the gate and the experts again."""
    n = len(Y)
    out = [np.empty((p.k, n)) for p in layout.parts]
    total = 0.0
    for block in _blocks(n, chunk):
        terms = _terms(layout, params, X[block], Y[block], gradient)
        log_f, scaled, norm = _log_total(terms, keep=True)
        total += float(log_f.sum())
        for r, e in zip(out, scaled):
            np.divide(e, norm, out=r[:, block])
        if visit is not None:
            visit(block, terms, [r[:, block] for r in out])
    return total, out
