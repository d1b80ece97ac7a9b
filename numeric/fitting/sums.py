r"""EM's E-step with the M-step's first sums: gathered on the same blocks, from the same values.

The M-step at θ_t starts from sums over the samples of quantities at θ_t weighted by the
posteriors r at θ_t (:mod:`numeric.fitting.em`), per part:

- the masses M_i = Σ_n r_{n,i};
- a log-linear gate's (:mod:`numeric.fitting.gate_step`) Q_g = Σ_n Σ_i r_{n,i} log w_{n,i},
  ∇_i Q_g = Σ_n (r_{n,i} − R_n w_{n,i}) φ_n and −∇²_{ij} Q_g = Σ_n R_n (w_{n,i} δ_ij − w_{n,i} w_{n,j}) φ_n φ_nᵀ,
  the last as one matrix product C Fᵀ with C_{(i,j),n} = R_n (w_{n,i} δ_ij − w_{n,i} w_{n,j}) and
  F_{(p,q),n} = φ_{n,p} φ_{n,q};
- a non-linear expert's Gauss–Newton sums at η_t, S_i = Σ_n r_{n,i} (y_n − h_{n,i})²,
  Σ_n r_{n,i} J_{n,i} J_{n,i}ᵀ and Σ_n r_{n,i} J_{n,i} (y_n − h_{n,i}), J = ∂h/∂η.

The E-step (:func:`numeric.model.density.posteriors` with ``gradient``) has evaluated w, log w, h
and J at θ_t on each block to get r; :func:`e_step` adds these sums on that block before moving
on, so the M-step evaluates neither the gate nor the experts at θ_t again. The sums are the ones
the M-step computed by itself before (tests compare them), added in another order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model import CHUNK, Layout, posteriors

__all__ = ["PartSums", "e_step"]


@dataclass(frozen=True, slots=True)
class PartSums:
    """One part's sums at θ_t: ``mass`` (k,); ``gate`` = (Q_g, ∇Q_g (k, P), −∇²Q_g (k·P, k·P)) for a
    log-linear gate, else None; ``expert`` = (S (k,), Σ rJJᵀ (k, E, E), Σ rJ(y − h) (k, E)) for a
    non-linear expert, else None."""

    mass: np.ndarray = field(repr=False)
    gate: tuple | None = field(default=None, repr=False)
    expert: tuple | None = field(default=None, repr=False)


def e_step(layout: Layout, theta: np.ndarray, X, Y, chunk: int = CHUNK):
    """(ℓ, posteriors [(k_p, n) per part], [:class:`PartSums` per part]) at the flat θ, over blocks
    of ``chunk`` samples."""
    accumulators = [_Accumulator(part) for part in layout.parts]

    def visit(block, terms, r):
        y = Y[block]
        for accumulator, term, rp in zip(accumulators, terms, r):
            accumulator.add(y, term, rp)

    ll, r = posteriors(layout, layout.unpack(theta), X, Y, chunk=chunk, gradient=True, visit=visit)
    return ll, r, [a.freeze() for a in accumulators]


class _Accumulator:
    """Running sums of one part over the blocks (module docstring)."""

    def __init__(self, part):
        k, P, E = part.k, part.n_gate, part.n_expert
        self.mass = np.zeros(k)
        self.gate = [0.0, np.zeros((k, P)), np.zeros((k, k, P, P))] if part.gate.log_linear else None
        self.expert = [np.zeros(k), np.zeros((k, E, E)), np.zeros((k, E))] if not part.expert.linear else None

    def add(self, y, term, rp):
        gate, h, dh, _, _, _ = term
        self.mass += rp.sum(axis=1)
        if self.gate is not None:
            _add_gate(self.gate, gate, rp)
        if self.expert is not None:
            residual = np.subtract(y, h)
            weighted = rp * residual
            self.expert[0] += np.einsum("kn,kn->k", weighted, residual)
            self.expert[2] += np.einsum("ken,kn->ke", dh, weighted)
            buffer = np.empty(dh.shape[1:])
            for i in range(dh.shape[0]):  # Σ r J Jᵀ atom by atom: one (E, n) product, then BLAS
                np.multiply(dh[i], rp[i], out=buffer)
                self.expert[1][i] += buffer @ dh[i].T

    def freeze(self) -> PartSums:
        gate = None
        if self.gate is not None:
            q, grad, full = self.gate
            k, P = grad.shape
            gate = (q if np.isfinite(q) else -np.inf, grad, full.transpose(0, 2, 1, 3).reshape(k * P, k * P))
        return PartSums(self.mass, gate, None if self.expert is None else tuple(self.expert))


def _add_gate(sums, gate, rp):
    """Q_g, ∇Q_g and the curvature's blocks (i, j, p, q) of a log-linear gate on one block: for each
    feature product u = φ_p φ_q (p ≤ q), Σ_n R w_i u (i = j) minus Σ_n R w_i u w_j, a matrix product."""
    w, features = gate.w, gate.features
    k, n = w.shape
    q = float(np.einsum("kn,kn->", rp, gate.log_w))
    if not np.isfinite(q):  # a masked atom (top-K: log w = −inf) where r = 0 adds nothing
        with np.errstate(invalid="ignore"):
            q = float(np.where(rp > 0, rp * gate.log_w, 0.0).sum())
    sums[0] += q
    Rw = rp.sum(axis=0) * w
    sums[1] += rp @ features.T - Rw @ features.T
    P = features.shape[0]
    product, scaled = np.empty(n), np.empty((k, n))
    for a in range(P):
        for b in range(a, P):
            np.multiply(features[a], features[b], out=product)
            np.multiply(Rw, product, out=scaled)
            block = -(scaled @ w.T)  # −Σ R w_i w_j u, (k, k)
            block[np.diag_indices(k)] += scaled.sum(axis=1)
            sums[2][:, :, a, b] += block
            if b != a:
                sums[2][:, :, b, a] += block
