r"""A declared part's gate as array code: weights w_i(x), their logarithms, and exact derivatives.

For atoms i = 1..k with gate parameters θ_i (the declaration's :data:`~identcheck.declaration.GATES`)
and a per-atom factor g_i(x) > 0:

======================  =====================================  ==========================
kind                    g_i(x)                                  ∂g_i/∂θ_i
======================  =====================================  ==========================
softmax, top-k (of it)  exp(s_i), s_i = β1ᵢᵀx + β0ᵢ              g_i · (x, 1)
sigmoid, normalised σ   σ(s_i)                                  σ(s_i)(1 − σ(s_i)) · (x, 1)
laplace                 exp(−‖Wᵢ − x‖ + βᵢ)                     g_i · ((x − Wᵢ)/‖x − Wᵢ‖, 1)
quadratic-softmax       exp(xᵀMᵢx)                              g_i · (x_a x_b (1 if a = b else 2))_{a ≤ b}
constant                ω_i                                     1
======================  =====================================  ==========================

A normalised gate has w_i = g_i / S, S = Σ_j g_j, so ∂w_i/∂θ_l = (δ_il − w_i) D_l with
D_l = (∂g_l/∂θ_l) / S; an unnormalised one has w_i = g_i and D_l = ∂g_l/∂θ_l. Every use of the
derivatives is a contraction Σ_i c_i ∂w_i/∂θ_l for some per-atom c (k, n), which is

    (c_l − Σ_i c_i w_i) · D_l   (normalised),        c_l · D_l   (unnormalised)        (:func:`contract`)

— no division by a weight, so a switched-off atom (ω = 0, w = 0) has finite derivatives. The
exponential gates are evaluated from their scores (w = softmax(s), log w = s − logsumexp(s)),
never from exp(s) alone. Arrays are atoms first, (k, n): a reduction over a part's few atoms is
then an elementwise operation on contiguous rows (over the last axis of (n, k) it was 10× slower).
**Top-K** keeps the K atoms with the largest β1ᵢᵀx at each x (a mask, locally constant in θ
almost everywhere, so its derivative is that of the weights renormalised over the kept atoms).
A **constant** gate is normalised in a density (w_i = ω_i / Σ_j ω_j: a fit may move ω freely in
its box; the reported ω are normalised) and used as is in a regression.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, log_expit

__all__ = ["GateCode", "GateValues", "contract"]


@dataclass(frozen=True, slots=True)
class GateValues:
    """A gate at n inputs, atoms first: weights ``w`` and ``log_w`` (k, n); D_l = w_l · m_l · ∂s
    with the multiplier ``m`` (k, n; None: 1) and the score's derivative either shared by the
    atoms (``features``, (P_g, n)) or per atom (``per_atom``, (k, P_g, n)); a constant gate has
    D = ``constant`` (1/Σω normalised, 1 otherwise)."""

    w: np.ndarray = field(repr=False)
    log_w: np.ndarray = field(repr=False)
    normalised: bool
    m: np.ndarray | None = field(default=None, repr=False)
    features: np.ndarray | None = field(default=None, repr=False)
    per_atom: np.ndarray | None = field(default=None, repr=False)
    constant: float | None = None


@dataclass(frozen=True)
class GateCode:
    """One part's gate: ``kind`` as declared, ``of`` for top-K, ``top_k`` atoms kept (top-K only),
    ``normalised`` (:mod:`this module's docstring <numeric.model.gates>`)."""

    kind: str
    dim: int
    size: int
    normalised: bool
    of: str | None = None
    top_k: int | None = None

    @property
    def log_linear(self) -> bool:
        """log g_i = φ(x)ᵀθ_i with features φ shared by the atoms (softmax, quadratic, top-K of softmax)."""
        return self.kind in ("softmax", "quadratic-softmax") or (self.kind == "top-k" and self.of == "softmax")

    def evaluate(self, X: np.ndarray, G: np.ndarray) -> GateValues:
        """The gate at inputs X (n, d) for gate parameters G (k, P_g), in the declaration's order."""
        n, k = X.shape[0], G.shape[0]
        if self.kind == "constant":
            omega = G[:, 0]
            total = omega.sum() if self.normalised else 1.0
            w = np.broadcast_to((omega / total)[:, None], (k, n))
            # a regression's free weights may be negative: their log (a density's only) is nan, not an error
            with np.errstate(divide="ignore", invalid="ignore"):
                log_w = np.broadcast_to(np.log(omega / total)[:, None], (k, n))  # k logs, not k·n
            return GateValues(w, log_w, self.normalised, constant=1.0 / total)
        features = self.features(X)
        score, per_atom = self._score(X, G, features)
        if self.log_linear or self.kind == "laplace":
            log_g, m = score, None
        else:
            log_g, m = log_expit(score), expit(-score)
        mask = self._mask(X, G)
        if mask is not None:
            log_g = np.where(mask, log_g, -np.inf)
        if self.normalised:  # one exp: w = e/Σe with e = exp(log g − top), log w = log g − top − log Σe
            top = log_g.max(axis=0)
            e = np.exp(log_g - top)
            total = e.sum(axis=0)
            log_w = log_g - (top + np.log(total))
            w = np.divide(e, total, out=e)
        else:
            log_w = log_g
            w = np.exp(log_w)
        shared = None if per_atom is not None else features
        return GateValues(w, log_w, self.normalised, m, shared, per_atom)

    def features(self, X: np.ndarray) -> np.ndarray:
        """(P_g, n) score derivatives shared by all atoms (affine: (x, 1); quadratic: x_a x_b (×2 off the diagonal))."""
        n = X.shape[0]
        if self.kind == "quadratic-softmax":
            pairs = [(a, b) for a in range(self.dim) for b in range(a, self.dim)]
            return np.stack([(1.0 if a == b else 2.0) * X[:, a] * X[:, b] for a, b in pairs])
        return np.concatenate([X.T, np.ones((1, n))])

    def _score(self, X: np.ndarray, G: np.ndarray, features: np.ndarray | None = None):
        """(score (k, n), per-atom ∂score/∂θ (k, P_g, n), or None when it is the shared features)."""
        d = self.dim
        if self.kind == "quadratic-softmax":
            return G @ (self.features(X) if features is None else features), None
        if self.kind == "laplace":
            diff = X.T[None, :, :] - G[:, :d, None]  # x − W_i, (k, d, n)
            norm = np.sqrt((diff**2).sum(axis=1))
            with np.errstate(invalid="ignore", divide="ignore"):
                unit = np.where(norm[:, None, :] > 0, diff / norm[:, None, :], 0.0)
            per_atom = np.concatenate([unit, np.ones((G.shape[0], 1, X.shape[0]))], axis=1)
            return -norm + G[:, d, None], per_atom
        return _affine(X, G, d), None

    def _mask(self, X: np.ndarray, G: np.ndarray):
        """Top-K: True for the K atoms with the largest β1ᵢᵀx at each input (None for other gates)."""
        if self.kind != "top-k" or self.top_k is None or self.top_k >= G.shape[0]:
            return None
        selection = _affine(X, G[:, : self.dim], self.dim, intercept=False)
        kept = np.argpartition(-selection, self.top_k - 1, axis=0)[: self.top_k]
        mask = np.zeros(selection.shape, dtype=bool)
        np.put_along_axis(mask, kept, True, axis=0)
        return mask


def _affine(X: np.ndarray, G: np.ndarray, d: int, intercept: bool = True) -> np.ndarray:
    """β1ᵢᵀx (+ β0ᵢ) of shape (k, n), by broadcasting (a matrix product with d = 1 inner terms is slower)."""
    score = G[:, 0, None] * X[:, 0][None, :]
    for j in range(1, d):
        score = score + G[:, j, None] * X[:, j][None, :]
    return score + G[:, d, None] if intercept else score


def _centred(c: np.ndarray, gate: GateValues) -> np.ndarray:
    """c_l − Σ_i c_i w_i (normalised gate) or c (k, n)."""
    return c - (c * gate.w).sum(axis=0) if gate.normalised else c


def contract(c: np.ndarray, gate: GateValues) -> np.ndarray:
    """Σ_n Σ_i c_in ∂w_in/∂θ_l for every atom l, with c of shape (k, n): shape (k, P_g) (module docstring)."""
    c = _centred(c, gate)
    if gate.constant is not None:
        return c.sum(axis=1, keepdims=True) * gate.constant
    a = c * gate.w if gate.m is None else c * gate.w * gate.m
    if gate.per_atom is not None:
        return np.einsum("kn,kpn->kp", a, gate.per_atom)
    assert gate.features is not None  # a gate has shared or per-atom score derivatives
    return a @ gate.features.T


def per_row(c: np.ndarray, gate: GateValues) -> np.ndarray:
    """Σ_i c_in ∂w_in/∂θ_l at each input n: shape (k, P_g, n) (a Jacobian's gate rows)."""
    c = _centred(c, gate)
    if gate.constant is not None:
        return (c * gate.constant)[:, None, :]
    a = c * gate.w if gate.m is None else c * gate.w * gate.m
    if gate.per_atom is not None:
        return a[:, None, :] * gate.per_atom
    assert gate.features is not None
    return a[:, None, :] * gate.features[None, :, :]
