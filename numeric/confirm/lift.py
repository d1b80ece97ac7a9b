"""From an identcheck probe to a model's parameters (the lift).

identcheck finds relations among the functions ū(x; M, a) = exp(xᵀMx)·φ(aᵀx) of a probe's
components θ_c = (M_c, a_c) (type 1), or among the terms of one head (type 2). With N = 2
gates and M_2 = 0, Setting I's numerator is exactly a sum of such functions,
D(x)·g(x) = Σ_h Σ_k ω_{h,k} Σ_i ū(x; M_{h,i}, a_{h,i,k}), D = Σ_i exp(xᵀM_{h,i}x) (for one
head). A type-1 probe is lifted as follows:

- every distinct M_c ≠ 0 becomes gate 1 of its own head (H = number of them, at least 1);
  a component with M_c = 0 sits at gate 2 (M_2 = 0) of head 1; a head with no M ≠ 0
  gets M_1 = [[1/2, 1/4], [1/4, −1/2]] (A.4);
- the components of one gate fill channels k = 1, 2, … in order; an empty slot of a channel
  whose other gate holds a component a_c gets the **filler** ρ·a_c (ρ = 3/4, else 5/8, 7/8 if
  that collides), which keeps every linear structure of the probe (a₂ = −a₁, a₂ = c·a₁) at the
  other gate too, so a family relation that holds on the probe also holds on the filler;
  channels beyond the probe's (K ≥ 2 always) get fixed generic vectors; ω_{h,k} = 1 + k/2
  (k = 0, 1, …: unequal, so that a pair a₂ = −a₁ of an odd φ does not cancel to g ≡ 0).

A type-2 probe is one head (M_1..M_N, a_{i,k}) and is used as is (H = 1). A lift that
violates (A.1)–(A.5) (type 2's "all M = 0") is refused (:class:`NumericError`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..model.attention_params import HMoEParams, NumericError

__all__ = ["Lift", "lift_probe", "exact_float", "FILLER_FACTORS", "DEFAULT_M", "PAD_VECTORS"]

FILLER_FACTORS = (0.75, 0.625, 0.875)
DEFAULT_M = np.array([[0.5, 0.25], [0.25, -0.5]])
PAD_VECTORS = ((-0.625, 0.875), (0.875, 0.375), (-0.375, -0.75), (0.25, -0.875))


@dataclass(frozen=True, slots=True)
class Lift:
    """A probe placed in the model: G* and where each probe component went.

    ``slots[c] = (h, i, k)`` for a type-1 component c (0-based); empty for type 2.
    """

    params: HMoEParams = field(repr=False)
    slots: tuple
    note: str


def exact_float(text) -> float:
    """An identcheck exact number (text such as '-3/4', or a number) as a float."""
    return float(Fraction(str(text)))


def lift_probe(probe, condition: str) -> Lift:
    """Place ``probe`` (an identcheck ProbeResult) in the model of ``condition``; see the module docstring.

    Raises NumericError when the lift violates (A.1)–(A.5).
    """
    dicts = [c.to_dict() for c in probe.components]
    if condition == "type2":
        (head,) = dicts
        M = np.array([[[exact_float(v) for v in row] for row in Mi] for Mi in head["M"]])
        a = np.array([[[exact_float(v) for v in vec] for vec in gate] for gate in head["a"]])
        K = a.shape[1]
        params = HMoEParams(_weights(1, K), M[None], a[None])
        params.validate(f"probe {probe.name!r}")
        return Lift(params, (), "the probe's head as is (H = 1)")
    comps = [
        (np.array([[exact_float(v) for v in row] for row in c["M"]]), np.array([exact_float(v) for v in c["a"]]))
        for c in dicts
    ]
    d = comps[0][1].size
    heads: list[np.ndarray] = []  # distinct nonzero M
    for M, _ in comps:
        if np.any(M != 0) and not any(np.array_equal(M, other) for other in heads):
            heads.append(M)
    if not heads:
        heads.append(DEFAULT_M[:d, :d])
    H, N = len(heads), 2
    count = np.zeros((H, N), dtype=int)
    slots = []
    for M, _ in comps:
        h, i = (next(j for j, other in enumerate(heads) if np.array_equal(M, other)), 0) if np.any(M != 0) else (0, 1)
        slots.append((h, i, int(count[h, i])))
        count[h, i] += 1
    K = max(2, int(count.max()))
    last_error: NumericError | None = None
    for rho in FILLER_FACTORS:
        a = np.full((H, N, K, d), np.nan)
        for (h, i, k), (_, vector) in zip(slots, comps):
            a[h, i, k] = vector
        pads = iter(PAD_VECTORS * 4)
        for h in range(H):
            for k in range(K):
                for i in range(N):
                    if np.isnan(a[h, i, k, 0]):
                        other = a[h, 1 - i, k]
                        a[h, i, k] = rho * other if not np.isnan(other[0]) else np.array(next(pads))[:d]
        M = np.zeros((H, N, d, d))
        M[:, 0] = np.array(heads)
        try:
            params = HMoEParams(_weights(H, K), M, a).validate(f"probe {probe.name!r}")
        except NumericError as exc:
            last_error = exc
            continue
        note = f"H = {H}, K = {K}; fillers {rho:g}·a at the other gate of a probe channel, generic vectors elsewhere"
        return Lift(params, tuple(slots), note)
    assert last_error is not None  # FILLER_FACTORS is not empty: every factor was tried and refused
    raise last_error


def _weights(H: int, K: int) -> np.ndarray:
    return np.tile(1.0 + 0.5 * np.arange(K), (H, 1))
