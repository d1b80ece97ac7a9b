"""Channel recombination: mixtures that Setting I cannot tell from G*, and the channel-level loss can.

**The invariance.** Model (9) reads, exchanging the sums over k and i,

    g(x) = Σ_h Σ_i σ_{h,i}(x) Σ_k ω_{h,k} φ(a_{h,i,k}ᵀx) = Σ_h Σ_i σ_{h,i}(x) ∫ φ(aᵀx) dμ_{h,i}(a),
    μ_{h,i} = Σ_k ω_{h,k} δ_{a_{h,i,k}}:

the channels enter only through the per-(head, gate) measures. Any two mixtures with the same M
and the same μ_{h,i} have the same g, for every φ (also for MHA's linear expert). A channel is a
choice of one atom per gate; re-pairing the atoms of different gates into other channels
("recombination") keeps every μ_{h,i} when the weights are re-shared to match. With N ≥ 2 gates
and two true channels k₁, k₂ of one head (weights ω₁, ω₂), write a channel as its expert vectors
(a_1, a_{2..N}) and let

    A = (a_{1,k₁}, a_{2..N,k₂}),   B = (a_{1,k₂}, a_{2..N,k₁})            (the mixed channels).

1. **Local ε-recombination** (K ≥ K* + 2): k₁ with ω₁ − ε, k₂ with ω₂ − ε, A with ε, B with ε.
   At gate 1, a_{1,k₁} carries (ω₁ − ε) + ε = ω₁ and a_{1,k₂} carries ω₂; at gates 2..N
   likewise. So g_ε = g* exactly for 0 ≤ ε ≤ min(ω₁, ω₂), while the channel-level L2 grows like
   ε: A and B sit at a fixed parameter distance from both true channels (‖a_{2..N,k₂} − a_{2..N,k₁}‖
   from k₁, ‖a_{1,k₁} − a_{1,k₂}‖ from k₂). It needs two spare channels in the head.
2. **Global exact alternative** (K ≥ K* + 1, ω₁ > ω₂): k₁ with ω₁ − ω₂, B with ω₂ (in k₂'s slot),
   A with ω₂ (in the spare). Gate 1: a_{1,k₁} carries (ω₁ − ω₂) + ω₂ = ω₁, a_{1,k₂} carries ω₂;
   gates 2..N: a_{i,k₁} carries (ω₁ − ω₂) + ω₂, a_{i,k₂} carries ω₂. One spare channel; G' is a
   fixed point with L2(G', G*) > 0, not a path from G*.
3. **Swap** (K = K*, ω₁ = ω₂ = ω): k₁ ↦ B, k₂ ↦ A, both with ω — construction 2 with a weight-0
   first channel dropped. It needs equal weights in one head.

Each is applied in every head where it can be (the pair k₁, k₂ = the first two channels for 1;
for 2 the first unequal pair, heavier first; for 3 the first equal pair). Channels beyond what a
construction needs split the heaviest channel of their head into two halves (exact copies: ω/2 +
ω/2 = ω in floating point), which keeps g and every μ_{h,i}.

**Setting II is different.** Model (12) applies φ to one channel's gate mixture,
φ(Σ_i σ_{h,i} a_{h,i,k}ᵀx): g is not a function of the μ_{h,i}, and the same re-pairing moves g by
ε·Σ_h[φ(F_A) + φ(F_B) − φ(F_{k₁}) − φ(F_{k₂})], not 0 unless φ is affine on the range. The
constructions are built and *measured* there too; nothing is claimed.

:func:`alternatives` verifies each on Monte Carlo points: ‖g_{G'} − g*‖_{L²(μ)}/‖g*‖ ≤ EXACT_TOL
(1e-12) is an exact invariance (float64 rounding only); it records L2(G', G*) (channel level) and
the measure-level loss (:mod:`numeric.losses.measure`, 0 at all three by construction).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..losses.attention_voronoi import voronoi_loss
from ..losses.measure import measure_loss
from ..model.attention_declared import attention_model
from ..model.attention_params import HMoEParams, NumericError
from ..shipped import SHIPPED
from .curves import EXACT_TOL
from .paths import Path

__all__ = [
    "Alternative",
    "CONSTRUCTIONS",
    "alternatives",
    "global_alternative",
    "local_recombination",
    "recombination_path",
    "swap_alternative",
    "LOCAL_EPS",
    "MODEL_NOTE",
    "RecombinationRow",
    "recombination_table",
]

#: The three constructions, in the module docstring's order.
CONSTRUCTIONS = ("local", "global", "swap")
#: ε at which :func:`alternatives` evaluates the local recombination (a fraction of the smaller weight if that is
#: below it).
LOCAL_EPS = 0.1
#: Why a recombination is or is not an invariance of each model (:mod:`numeric.shipped`).
MODEL_NOTE = {name: spec.recombination_note for name, spec in SHIPPED.items()}


@dataclass(frozen=True, slots=True)
class Alternative:
    """One construction at one K, verified (module docstring). ``applies`` is structural (N, K*,
    K, the weights); ``exact`` is measured (None when it does not apply)."""

    construction: str
    model: str
    K: int
    K_star: int
    applies: bool
    reason: str
    relative_change: float | None = None
    exact: bool | None = None
    channel_loss: float | None = None
    measure_loss: float | None = None
    epsilon: float | None = None

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__slots__}


def _check(truth: HMoEParams, K: int, spare: int, what: str) -> None:
    if truth.N < 2:
        raise NumericError(
            f"{what}: needs N >= 2 gates (one gate: a channel is its own atom, nothing to re-pair); N = {truth.N}"
        )
    if truth.K < 2:
        raise NumericError(f"{what}: needs K* >= 2 channels per head to re-pair; K* = {truth.K}")
    if isinstance(K, bool) or not isinstance(K, int) or K < truth.K + spare:
        raise NumericError(
            param="K", value=K, reason=f"the {what} needs K >= K* + {spare} = {truth.K + spare} channels per head"
        )


def _mixed(a_head: np.ndarray, k1: int, k2: int) -> tuple:
    """(A, B) for one head's a (N, K, d): A = (a_{1,k1}, a_{2..N,k2}), B = (a_{1,k2}, a_{2..N,k1})."""
    A = a_head[:, k2].copy()
    A[0] = a_head[0, k1]
    B = a_head[:, k1].copy()
    B[0] = a_head[0, k2]
    return A, B


def _pad(omega: list, a: list, K: int) -> tuple:
    """Per head, split the heaviest channel into two halves until it has K channels; (omega (H, K), a (H, N, K, d))."""
    out_w, out_a = [], []
    for w, vectors in zip(omega, a):  # w: list of weights, vectors: list of (N, d)
        w, vectors = list(w), list(vectors)
        while len(w) < K:
            k = int(np.argmax(w))
            w[k] = w[k] / 2
            w.append(w[k])
            vectors.append(vectors[k].copy())
        out_w.append(w)
        out_a.append(np.stack(vectors, axis=1))
    return np.array(out_w), np.array(out_a)


def _channels(truth: HMoEParams, h: int) -> tuple:
    return [float(w) for w in truth.omega[h]], [truth.a[h, :, k].copy() for k in range(truth.K)]


def local_recombination(truth: HMoEParams, K: int, epsilon: float) -> HMoEParams:
    """Construction 1 in every head (channels 1 and 2), K channels per head."""
    _check(truth, K, 2, "local recombination")
    if not 0 <= epsilon <= truth.omega[:, :2].min():
        raise NumericError(
            param="epsilon",
            value=epsilon,
            reason=f"must be from 0 to the smaller weight of the re-paired channels, {truth.omega[:, :2].min():g}",
        )
    omega, a = [], []
    for h in range(truth.H):
        w, vectors = _channels(truth, h)
        A, B = _mixed(truth.a[h], 0, 1)
        w[0] -= epsilon
        w[1] -= epsilon
        omega.append(w + [epsilon, epsilon])
        a.append(vectors + [A, B])
    omega, a = _pad(omega, a, K)
    return HMoEParams(omega, truth.M, a)


def _unequal_pair(weights) -> tuple | None:
    for k1 in range(len(weights)):
        for k2 in range(k1 + 1, len(weights)):
            if weights[k1] != weights[k2]:
                return (k1, k2) if weights[k1] > weights[k2] else (k2, k1)
    return None


def _equal_pair(weights) -> tuple | None:
    for k1 in range(len(weights)):
        for k2 in range(k1 + 1, len(weights)):
            if weights[k1] == weights[k2] and weights[k1] > 0:
                return k1, k2
    return None


def global_alternative(truth: HMoEParams, K: int) -> HMoEParams:
    """Construction 2 in every head with two unequal weights, K channels per head."""
    _check(truth, K, 1, "global alternative")
    if not any(_unequal_pair(truth.omega[h]) for h in range(truth.H)):
        raise NumericError(
            "global alternative: needs a head with two unequal channel weights (with equal weights it is the swap)"
        )
    omega, a = [], []
    for h in range(truth.H):
        w, vectors = _channels(truth, h)
        pair = _unequal_pair(w)
        if pair is not None:
            k1, k2 = pair
            A, B = _mixed(truth.a[h], k1, k2)
            w2 = w[k2]
            w[k1] -= w2
            vectors[k2] = B
            w.append(w2)
            vectors.append(A)
        omega.append(w)
        a.append(vectors)
    omega, a = _pad(omega, a, K)
    return HMoEParams(omega, truth.M, a)


def swap_alternative(truth: HMoEParams, K: int | None = None) -> HMoEParams:
    """Construction 3 in every head with two equal weights (K = K* by default)."""
    K = truth.K if K is None else K
    _check(truth, K, 0, "swap")
    if not any(_equal_pair(truth.omega[h]) for h in range(truth.H)):
        raise NumericError(
            "swap: needs a head with two equal channel weights; the truth's weights differ in every head"
        )
    omega, a = [], []
    for h in range(truth.H):
        w, vectors = _channels(truth, h)
        pair = _equal_pair(w)
        if pair is not None:
            k1, k2 = pair
            A, B = _mixed(truth.a[h], k1, k2)
            vectors[k1], vectors[k2] = B, A
        omega.append(w)
        a.append(vectors)
    omega, a = _pad(omega, a, K)
    return HMoEParams(omega, truth.M, a)


def _build(construction: str, truth: HMoEParams, K: int, epsilon: float) -> HMoEParams:
    if construction == "local":
        return local_recombination(truth, K, epsilon)
    if construction == "global":
        return global_alternative(truth, K)
    return swap_alternative(truth, K)


def _relative_change(model, truth: HMoEParams, G: HMoEParams, X: np.ndarray) -> float:
    g_star = model.value(truth, X)
    return float(np.sqrt(np.mean((model.value(G, X) - g_star) ** 2)) / np.sqrt(np.mean(g_star**2)))


def alternatives(model, truth: HMoEParams, K: int, X: np.ndarray) -> tuple:
    """Every construction at K channels per head (the swap at K* too), verified on the points X."""
    out = []
    epsilon = min(LOCAL_EPS, float(truth.omega[:, :2].min()) / 2) if truth.K >= 2 else LOCAL_EPS
    for construction in CONSTRUCTIONS:
        try:
            G = _build(construction, truth, K, epsilon)
        except NumericError as exc:
            out.append(Alternative(construction, model.kind, K, truth.K, False, str(exc)))
            continue
        change = _relative_change(model, truth, G, X)
        exact = change <= EXACT_TOL
        note = model.spec.recombination_note
        if not model.spec.channels_through_measures and exact:
            note = (
                "model (12) is not a function of the per-(head, gate) measures, "
                "but here the change is rounding only (phi affine on the range?)"
            )
        out.append(
            Alternative(
                construction,
                model.kind,
                K,
                truth.K,
                True,
                note,
                change,
                exact,
                voronoi_loss(G, truth, "L2"),
                measure_loss(G, truth),
                epsilon if construction == "local" else None,
            )
        )
    return tuple(out)


def recombination_path(model, truth: HMoEParams, K: int, X: np.ndarray) -> Path:
    """Construction 1 as a path t ↦ G_t (ε = t) for :func:`numeric.confirm.curves.ratio_curve`, with its
    t → 0 limit: 0 when g does not move (the channels enter only through the measures); else ‖Δg‖/L2
    at t = 1e-3 — both are linear in ε (ω enters g linearly and the atoms stay put), so the ratio is
    constant in t."""
    _check(truth, K, 2, "local recombination")
    t0 = 1e-3
    G = local_recombination(truth, K, t0)
    distance = float(np.sqrt(np.mean((model.value(G, X[:20_000]) - model.value(truth, X[:20_000])) ** 2)))
    scale = float(np.sqrt(np.mean(model.value(truth, X[:20_000]) ** 2)))
    limit = 0.0 if distance <= EXACT_TOL * scale else distance / voronoi_loss(G, truth, "L2")
    heads = "every head" if truth.H > 1 else "the head"
    note = (
        f"channels 1, 2 of {heads} re-paired at gate 1 with weight eps = t (K = {K}, K* = {truth.K}): "
        "every per-(head, gate) "
        f"measure is unchanged; {model.spec.recombination_note}"
    )
    return Path(
        "recombination",
        f"recombination, K = {K}",
        "recombination",
        truth,
        lambda t: local_recombination(truth, K, t),
        note,
        None,
        limit,
        None,
    )


#: ε of the ratio table (``numeric ratio --path recombination``): seven points from 1e-1 to 1e-4, as
#: ``numeric confirm``.
TABLE_EPSILONS = tuple(float(t) for t in np.logspace(-1, -4, 7))
#: Channels per head the table takes at most (as a rate grid, :class:`numeric.experiments.sweep.Grid`).
MAX_TABLE_K = 16


@dataclass(frozen=True, slots=True)
class RecombinationRow:
    """One ε of the local recombination: ‖g_ε − g*‖_{L²(μ)} (Monte Carlo, with its standard error),
    the channel-level loss, the measure-level loss and their ratio (0 when ``exact``: ‖g_ε − g*‖ ≤
    EXACT_TOL·‖g*‖, float64 rounding only)."""

    epsilon: float
    l2: float
    l2_se: float
    loss: float
    measure_loss: float
    ratio: float
    exact: bool

    def to_dict(self) -> dict:
        return {f: getattr(self, f) for f in self.__slots__}


def recombination_table(model_kind: str, truth, K: int | None = None, mc: int = 200_000, seed: int = 0):
    """(rows, alternatives) for ``numeric ratio --path recombination``: the local recombination of
    ``truth`` (a :class:`numeric.model.attention_truth.Truth`) at ε = TABLE_EPSILONS with K channels per head
    (default K* + 2), and every construction at that K (:func:`alternatives`). The channel-level
    loss is L1,1 for MHA, L2 for the gated models."""
    params = truth.params
    K = params.K + 2 if K is None else K
    if isinstance(K, bool) or not isinstance(K, int) or not params.K + 2 <= K <= MAX_TABLE_K:
        raise NumericError(
            param="K",
            value=K,
            reason=f"the local recombination needs K from K* + 2 = {params.K + 2} to {MAX_TABLE_K} channels per head",
        )
    if not 1000 <= mc <= 10_000_000:
        raise NumericError(param="mc", value=mc, reason="must be from 1,000 to 10,000,000")
    model = attention_model(model_kind, truth.phi, truth.phi_params)
    X = np.random.default_rng([seed, 7]).uniform(-1, 1, size=(mc, params.dim))
    g_star = model.value(params, X)
    scale = float(np.sqrt(np.mean(g_star**2)))
    kind = model.spec.loss_kind
    rows = []
    for epsilon in TABLE_EPSILONS:
        G = local_recombination(params, K, epsilon)
        squared = (model.value(G, X) - g_star) ** 2
        l2 = float(np.sqrt(squared.mean()))
        l2_se = float(squared.std(ddof=1) / np.sqrt(mc) / (2 * l2)) if l2 > 0 else 0.0
        loss = voronoi_loss(G, params, kind)
        exact = l2 <= EXACT_TOL * scale
        rows.append(
            RecombinationRow(epsilon, l2, l2_se, loss, measure_loss(G, params), 0.0 if exact else l2 / loss, exact)
        )
    return tuple(rows), alternatives(model, params, K, X[:20_000])
