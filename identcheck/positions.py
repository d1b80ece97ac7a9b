"""Where to put the gate: the five positions of gated attention (G1–G5), derived and checked.

One attention layer on tokens X (T × d̄), head h: scores s_{h,j} = (x_i W_Q^h)·(x_j W_K^h)/√d_k,
σ_{h,j} = softmax_j, head output o_h = Σ_j σ_{h,j} x_j W_V^h, layer output y = [o_1 … o_H] W_O.
Each entry of y is the HMoE of docs/method.md §7 with experts a = columns of W_V (in x_j's block) and
weights ω = entries of W_O. The gate φ acts at

- **G1**, after the SDPA output: o_h ↦ φ(o_h). Experts stay linear inside φ(f^{h,k}) with ω
  outside: model (12), decided by **type-2**.
- **G2**, after the value projection: x_j W_V ↦ φ(x_j W_V). Experts become φ(aᵀx): model (9),
  decided by **type-1**.
- **G3**, after the keys (x_j W_K ↦ φ(x_j W_K)) and **G4**, after the queries: only the gating
  changes; the experts stay the linear aᵀx and ω multiplies them.
- **G5**, after the dense output: y ↦ φ(y) = φ(Σ_{h,k} ω_{h,k} f^{h,k}): ω sits inside φ.

**The PDE's trace.** Write r_V = Σ W_V ∂y/∂W_V and r_O = Σ W_O ∂y/∂W_O (Euler sums: the
derivatives of y along t·W_V and t·W_O at t = 1). Without a gate, y is bilinear in (W_V, W_O),
so r_V = y = r_O — the aggregate form of Σ_j a_j ∂u/∂a_j = u, the interaction behind the slow
MHA rates. At G3/G4 the experts are still linear and multiplied by ω: r_V = r_O for every φ.
At G5, r_V = φ'(y)·y = r_O for every φ. At G1, r_O = Σ W_O φ(o) but r_V = Σ W_O φ'(o)·o, and
at G2 the same with x W_V in place of o: r_V = c·r_O for all inputs only when zφ'(z) = cφ(z)
(φ homogeneous, such as the identity). So G1 and G2 can remove the interaction — whether they
do for a given φ is what type-2 and type-1 decide — and G3, G4, G5 cannot, whatever φ is.

:func:`positions` checks the prediction numerically: derivatives by complex step (exact to
rounding), at random weights and inputs; the relative residual of the best fit r_V ≈ c·r_O over
all samples is ~1e-16 where the relation holds and O(1e-3…1) where it does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import sympy as sp

from .parse.activation import Z, parse_activation

__all__ = ["POSITIONS", "PositionResult", "positions"]

POSITIONS = {
    "G1": ("after the SDPA output", "phi(sum_i sigma_i a_i^T x) per channel, omega outside", "type2"),
    "G2": ("after the value projection", "phi(a^T x) per expert", "type1"),
    "G3": ("after the keys", "a^T x (only the gating changes)", None),
    "G4": ("after the queries", "a^T x (only the gating changes)", None),
    "G5": ("after the dense output", "phi(sum_{h,k} omega_{h,k} f^{h,k}), omega inside phi", None),
}
RELATION_HOLDS = 1e-10  # relative residual below which r_V = c·r_O is taken to hold numerically


@dataclass(frozen=True, slots=True)
class PositionResult:
    position: str
    where: str
    expert_form: str
    decided_by: str | None
    predicted_survives: bool
    prediction_reason: str
    residual: float
    ratio: float
    observed_survives: bool

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__slots__}


def _attention(X, WQ, WK, WV, WO, phi, position):
    H = len(WQ)
    gate = phi if position else (lambda v: v)
    outs = []
    for h in range(H):
        Q = X @ WQ[h]
        K = X @ WK[h]
        if position == "G3":
            K = phi(K)
        if position == "G4":
            Q = phi(Q)
        scores = Q @ K.T / np.sqrt(WQ[h].shape[1])
        scores = scores - scores.real.max(axis=1, keepdims=True)
        weights = np.exp(scores)
        weights = weights / weights.sum(axis=1, keepdims=True)
        V = X @ WV[h]
        if position == "G2":
            V = gate(V)
        out = weights @ V
        if position == "G1":
            out = gate(out)
        outs.append(out)
    y = np.concatenate(outs, axis=1) @ WO
    return gate(y) if position == "G5" else y


def _measure(name, rng, samples, T, dbar, WQ, WK, WV, WO, phi_fn, step):
    """(r_V, r_O): the complex-step derivatives of the output along W_V and along W_O (module docstring)."""
    r_v, r_o = [], []
    for _ in range(samples):
        X = rng.uniform(-1, 1, size=(T, dbar))
        along_v = _attention(X, WQ, WK, [w * (1 + 1j * step) for w in WV], WO, phi_fn, name)
        along_o = _attention(X, WQ, WK, WV, WO * (1 + 1j * step), phi_fn, name)
        r_v.append(along_v.imag.ravel() / step)
        r_o.append(along_o.imag.ravel() / step)
    return np.concatenate(r_v), np.concatenate(r_o)


def positions(phi, params=None, seed: int = 0, samples: int = 40) -> list[PositionResult]:
    """For each gate position: the derived prediction and the numerical check (module docstring)."""
    act = parse_activation(phi, params)
    complex_phi = sp.lambdify(Z, act.expr, modules=["scipy", "numpy"])
    reached = [1.0]  # the largest |argument| phi is evaluated at

    def phi_fn(v):
        reached[0] = max(reached[0], float(np.max(np.abs(np.real(v)))))
        return np.asarray(complex_phi(v)) + 0 * v

    zeta = sp.simplify(Z * act.derivatives[1] / act.expr)
    homogeneous = not zeta.has(Z)
    rng = np.random.default_rng([seed, 5])
    T, dbar, H, dk, dv = 3, 2, 2, 2, 2
    WQ = [rng.normal(size=(dbar, dk)) for _ in range(H)]
    WK = [rng.normal(size=(dbar, dk)) for _ in range(H)]
    WV = [rng.normal(size=(dbar, dv)) for _ in range(H)]
    WO = rng.normal(size=(H * dv, dbar))
    step = 1e-20
    results = []
    with np.errstate(all="ignore"):  # a phi invalid where it was evaluated is refused below, with the reason
        measured = {name: _measure(name, rng, samples, T, dbar, WQ, WK, WV, WO, phi_fn, step) for name in POSITIONS}
    act.check_domain(math.ceil(reached[0] * 100) / 100)  # the domain check every command shares, on the range reached
    for name, (where, form, decided_by) in POSITIONS.items():
        r_v, r_o = measured[name]
        c = float(r_o @ r_v / (r_o @ r_o))
        residual = float(np.linalg.norm(r_v - c * r_o) / np.linalg.norm(r_v))
        if decided_by is None:
            predicted, reason = True, "for every phi"
        else:
            predicted = homogeneous
            reason = f"z*phi'/phi = {zeta}" + (
                " is constant: phi is homogeneous" if homogeneous else " is not constant"
            )
        results.append(
            PositionResult(name, where, form, decided_by, predicted, reason, residual, c, residual < RELATION_HOLDS)
        )
    return results
