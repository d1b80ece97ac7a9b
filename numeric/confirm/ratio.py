"""The sequence G_n from the proof of Theorem 1: ‖f_{G_n} − f_{G*}‖_{L²(μ)} / L(G_n, G*) against n.

G_n keeps every parameter of G* except that true channel (1, 1) is fitted by two channels
that split its weight equally, their total off by n^−(r+1), with expert vectors a* ± e₁/n
(for every gating component); the other head gets a copy of its first channel with weight 0, so
both heads have K* + 1 channels. For MHA with the loss L1,r the ratio goes to 0 — the local
inequality ‖f_G − f_G*‖ ≳ L(G, G*) fails, the root of the slow rates; for the gated models with
L2 it stays bounded away from 0 (the inequality behind Theorems 2–3).

The L²(μ) norm (μ uniform on [−1, 1]^d) is a Monte Carlo mean over ``mc`` fixed points, reported
with its standard error (delta method).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..losses.attention_voronoi import voronoi_loss
from ..model.attention_declared import attention_model
from ..model.attention_params import HMoEParams, NumericError

__all__ = ["RatioRow", "theorem1_sequence", "ratio_table", "MAX_SEQUENCE_N"]

#: Largest n of the sequence: the weight offset n^-(r+1) must stay above the float resolution of ω.
MAX_SEQUENCE_N = 1e6


@dataclass(frozen=True, slots=True)
class RatioRow:
    n: float
    l2: float
    l2_se: float
    loss: float
    ratio: float
    ratio_se: float

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in ("n", "l2", "l2_se", "loss", "ratio", "ratio_se")}


def theorem1_sequence(truth: HMoEParams, n: float, r: float) -> HMoEParams:
    """G_n as in the module docstring."""
    H, N, K, d = truth.a.shape
    omega = np.zeros((H, K + 1))
    a = np.zeros((H, N, K + 1, d))
    omega[:, :K] = truth.omega
    a[:, :, :K] = truth.a
    a[:, :, K] = truth.a[:, :, 0]  # the extra channel copies channel 1 of its head
    e1 = np.zeros(d)
    e1[0] = 1.0
    total = truth.omega[0, 0] + n ** -(r + 1)
    omega[0, 0] = omega[0, K] = total / 2
    a[0, :, 0] = truth.a[0, :, 0] + e1 / n
    a[0, :, K] = truth.a[0, :, 0] - e1 / n
    return HMoEParams(omega, truth.M, a)


def ratio_table(model: str, truth, ns, r: float = 1.0, mc: int = 200_000, seed: int = 0) -> list[RatioRow]:
    if not 1 <= r <= 4:
        raise NumericError(param="r", value=r, reason="must be from 1 to 4")
    if not 1000 <= mc <= 10_000_000:
        raise NumericError(param="mc", value=mc, reason="must be from 1,000 to 10,000,000")
    for index, n in enumerate(ns):
        if not (isinstance(n, (int, float)) and 1 <= n <= MAX_SEQUENCE_N):
            raise NumericError(
                param="ns",
                index=index,
                value=n,
                reason=f"must be from 1 to {MAX_SEQUENCE_N:.0e} (beyond, n^-(r+1) underflows against the weights)",
            )
    m = attention_model(model, truth.phi, truth.phi_params)
    X = np.random.default_rng([seed, 7]).uniform(-1, 1, size=(mc, truth.params.dim))
    f_star = m.value(truth.params, X)
    kind = m.spec.loss_kind
    rows = []
    for n in ns:
        G = theorem1_sequence(truth.params, float(n), r)
        squared = (m.value(G, X) - f_star) ** 2
        mean = squared.mean()
        l2 = float(np.sqrt(mean))
        l2_se = float(squared.std(ddof=1) / np.sqrt(mc) / (2 * l2)) if l2 > 0 else 0.0
        loss = voronoi_loss(G, truth.params, kind, r=r)
        rows.append(RatioRow(float(n), l2, l2_se, loss, l2 / loss, l2_se / loss))
    return rows
