"""Witness sequences: parameter paths G_t → G* along which the function moves less than the parameters.

For a truth G* and a path t ↦ G_t (G_0 = G*) the **ratio** is

    ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*),      μ = Uniform([−1, 1]²),

the norm a Monte Carlo mean over fixed points (standard error by the delta method), L2 the
Voronoi loss of :mod:`numeric.voronoi`. The gated models' rates rest on ρ ≥ c > 0 near G*;
a path with ρ(t) → 0 is a witness that this local inequality fails.

**From a probe to a model (the lift).** identcheck finds relations among the functions
ū(x; M, a) = exp(xᵀMx)·φ(aᵀx) of a probe's components θ_c = (M_c, a_c) (type 1), or among the
terms of one head (type 2). With N = 2 gates and M_2 = 0, Setting I's numerator is exactly a
sum of such functions, D(x)·g(x) = Σ_h Σ_k ω_{h,k} Σ_i ū(x; M_{h,i}, a_{h,i,k}),
D = Σ_i exp(xᵀM_{h,i}x) (for one head). A type-1 probe is lifted as follows:

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
violates (A.1)–(A.5) (type 2's "all M = 0") is skipped, with the reason.

**Constructions** (``t`` → 0; chosen by :func:`relation_construction`):

1. *Euler* (zφ' = cφ, φ = C·z^c): the scale symmetry of each channel k that holds a
   relation component, a_{h,·,k} ↦ s·a_{h,·,k}, ω_{h,k} ↦ s^{−c}·ω_{h,k}, s = 1 + t. The
   function does not move at all: ρ ≡ 0 (``exact_invariance``). For φ = z this is
   (ω, a) ↦ (ω/s, s·a).
2. *Weights only* (a relation Σ_c α_c ū_c = 0, e.g. symmetry φ(−z) = −φ(z) at a₂ = −a₁):
   ω_{h_c,k_c} ↦ ω + t·α_c/max|α|. g is linear in ω, so the function moves by t·Σ α_c ū_c / D,
   zero when the relation also holds at the fillers (it does for the families).
3. *First order* (relations among ū, ∂ū/∂M, ∂ū/∂a): the lifted direction
   δω_{h,k} = α_c, δa_{h,i,k} = β_{c,a}/ω_{h,k}, δm_{h,i} = β_{c,M}/ω_{h,k} (from
   δ(ω ū) = δω ū + ω ∇ū·δθ), projected onto the numerical null space of the column-scaled model
   Jacobian J at G* (this adds the moves the softmax denominator and the fillers need);
   G_t = G* + t·d. Then ‖Δg‖ = O(t²), L2 ≍ t: ρ ≍ t (slope 1).
4. *Second order* (the relation has ∂²ū/∂a_j∂a_l terms, e.g. heat φ'' = cφ:
   ∂ū/∂M_jl ∝ ∂²ū/∂a_j∂a_l): channel k of component c is split into two channels of weight
   ω/2 with a_{h,i,k} ± √t·v, v the top eigenvector of S (S_jj = 2γ_jj, S_jl = γ_jl from the
   relation's coefficients γ on ∂²ū/∂a_j∂a_l, so that Σ_± ½ū(a ± √t v) = ū + (t/2)vᵀ∇²ū v + …
   carries the relation's second-order part), every other head gets a weight-0 copy of its
   channel 1 (as in Theorem 1's sequence), and the first-order moves t·w compensate the
   second-order change Q: w = argmin ‖Q + J w‖ (least squares on fixed points; Q by two-step
   Richardson extrapolation of (g_{split(√t)} − g*)/t). The odd orders cancel between the two halves, so
   if Q + Jw = 0 then ‖Δg‖ = O(t²) against L2 ≍ t (|V| = 2 cells are squared: ω t‖v‖²):
   ρ ≍ t; if the residual r = ‖Q + Jw‖ is not 0 the relation does not lift to the
   softmax-normalised model and ρ → ρ₀ = ‖Q + Jw‖/ℓ > 0 (ℓ = lim L2/t): bounded. The residual
   and ρ₀ are recorded; ρ₀ = 0 when the relative residual is ≤ RESIDUAL_TOL.

**The t → 0 limit.** For every path the limit ρ₀ = lim_{t→0} ρ(t) is computed from first-order
quantities (analytic Jacobian; Q by Richardson extrapolation), not read off the curve: a
nearly-null direction (scaled singular value 1e-7) makes ρ fall like t over the measured window
t ≥ 1e-4 and level off at ρ₀ only below it. ρ → 0 means ρ₀ = 0 (the tangent is a null
direction of the model, or the split's second order is compensated) *and* a falling slope.

5. *Null vector* (labels not parsed term by term: type-2 relations other than φ(f_k)-only and
   Euler): G* + t·d with d the first null vector of the column-scaled J (its smallest singular
   direction if there is none, which then shows a bounded ratio).

Theorem 1's sequence (:mod:`numeric.ratio`) is construction 4 for the linear expert with v = e₁
and no compensation: u is linear in a, so Q = 0 exactly and only the weight error n^{−(r+1)}
moves the function.

**Probe and random paths** (for identifiable φ, expected bounded): G* + t·d with d the right
singular vector of the column-scaled J for its smallest singular value (the direction the
probe's model is least sensitive to), or a random unit vector; and a random split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .models import Model
from .params import HMoEParams, NumericError
from .voronoi import voronoi_loss

__all__ = [
    "Lift",
    "Path",
    "RatioCurve",
    "lift_probe",
    "witness_path",
    "relation_construction",
    "CONSTRUCTIONS",
    "probe_path",
    "random_paths",
    "ratio_curve",
    "EXACT_TOL",
    "NULL_TOL",
    "RESIDUAL_TOL",
]

#: ‖Δg‖ ≤ EXACT_TOL·‖g*‖ at every t: the function did not move (float64 rounding only).
EXACT_TOL = 1e-12
#: A singular value s of the column-scaled Jacobian with s ≤ NULL_TOL·s_max spans its null space.
NULL_TOL = 1e-8
#: A split whose second-order change is compensated up to ‖Q + Jw‖ ≤ RESIDUAL_TOL·‖Q‖ has ρ₀ = 0.
RESIDUAL_TOL = 1e-7
Q_FLOOR = 1e-9
FILLER_FACTORS = (0.75, 0.625, 0.875)
DEFAULT_M = np.array([[0.5, 0.25], [0.25, -0.5]])
PAD_VECTORS = ((-0.625, 0.875), (0.875, 0.375), (-0.375, -0.75), (0.25, -0.875))
RICHARDSON_T = 1e-3
COMPENSATION_POINTS = 4000

_T1_LABEL = re.compile(r"^(?:ū|∂ū/∂(?P<p1>[Ma]\d+)|∂²ū/∂(?P<p2>[Ma]\d+)(?:²|∂(?P<p3>[Ma]\d+)))(?:\[(?P<c>\d+)\])?$")
_T2_PHI = re.compile(r"^φ\(f(?P<k>\d+)\)$")
_M_INDEX = {"M11": 0, "M12": 1, "M22": 2}


@dataclass(frozen=True, slots=True)
class Lift:
    """A probe placed in the model: G* and where each probe component went.

    ``slots[c] = (h, i, k)`` for a type-1 component c (0-based); empty for type 2.
    """

    params: HMoEParams = field(repr=False)
    slots: tuple
    note: str


@dataclass(frozen=True, slots=True)
class Path:
    """t ↦ G_t with G_0 = G*; ``build(t)`` returns HMoEParams (maybe with more channels)."""

    kind: str  # "witness" | "probe" | "random"
    name: str
    construction: str
    truth: HMoEParams = field(repr=False)
    build: object = field(repr=False)
    note: str = ""
    direction: np.ndarray | None = field(repr=False, default=None)  # dG/dt at t = 0, θ layout (lines and curves)
    limit: float | None = None  # precomputed t → 0 limit (splits)
    sensitivity: float | None = None  # splits: the relative residual ‖Q + Jw‖/‖Q‖


@dataclass(frozen=True, slots=True)
class RatioCurve:
    """ρ(t) along a path, with the Monte Carlo standard error of the function distance."""

    t: tuple
    distance: tuple
    distance_se: tuple
    loss: tuple
    ratio: tuple
    slope: float | None
    exact_invariance: bool
    max_relative_change: float
    limit: float | None = None
    sensitivity: float | None = None


def _number(text) -> float:
    return float(Fraction(str(text)))


# ----------------------------------------------------------------------------- lifts


def lift_probe(probe, condition: str) -> Lift:
    """Place ``probe`` (an identcheck ProbeResult) in the model of ``condition``; see the module docstring.

    Raises NumericError when the lift violates (A.1)–(A.5).
    """
    dicts = [c.to_dict() for c in probe.components]
    if condition == "type2":
        (head,) = dicts
        M = np.array([[[_number(v) for v in row] for row in Mi] for Mi in head["M"]])
        a = np.array([[[_number(v) for v in vec] for vec in gate] for gate in head["a"]])
        K = a.shape[1]
        params = HMoEParams(_weights(1, K), M[None], a[None])
        params.validate(f"probe {probe.name!r}")
        return Lift(params, (), "the probe's head as is (H = 1)")
    comps = [
        (np.array([[_number(v) for v in row] for row in c["M"]]), np.array([_number(v) for v in c["a"]])) for c in dicts
    ]
    d = comps[0][1].size
    heads = []  # distinct nonzero M
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
    last_error = None
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
    raise last_error


def _weights(H: int, K: int) -> np.ndarray:
    return np.tile(1.0 + 0.5 * np.arange(K), (H, 1))


# ------------------------------------------------------------------ parameter layout


def _index(params: HMoEParams):
    H, N, K, d = params.a.shape
    p = d * (d + 1) // 2
    base_m = H * K
    base_a = base_m + H * (N - 1) * p

    def omega(h, k):
        return h * K + k

    def m(h, i, q):
        return base_m + (h * (N - 1) + i) * p + q

    def a(h, i, k, j):
        return base_a + ((h * N + i) * K + k) * d + j

    return omega, m, a


def _shape(params: HMoEParams):
    return params.H, params.N, params.K, params.dim


def _scaled_jacobian(model: Model, params: HMoEParams, X: np.ndarray):
    _, J = model.value_and_jacobian(params, X)
    norms = np.linalg.norm(J, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    _, s, vt = np.linalg.svd(J / norms, full_matrices=False)
    return J, norms, s, vt


def _coefficients(relation):
    pairs = relation.exact if relation.exact is not None else relation.terms
    return [(label, _number(c) if isinstance(c, str) else float(c)) for label, c in pairs]


def _parse_type1(label: str):
    """label → (component index (0-based), tuple of parameter names)."""
    match = _T1_LABEL.match(label)
    if match is None:
        return None
    names = tuple(p for p in (match["p1"], match["p2"], match["p3"]) if p)
    if match["p2"] and not match["p3"]:
        names = (match["p2"], match["p2"])
    return int(match["c"] or 1) - 1, names


# ------------------------------------------------------------------ constructions


#: Constructions in the order the witness search prefers them (exact ones first, cheapest first).
CONSTRUCTIONS = ("euler-scale", "weights", "first-order", "split", "null-vector")


def relation_construction(relation, condition: str) -> str:
    """Which construction (:data:`CONSTRUCTIONS`) :func:`witness_path` uses for ``relation``."""
    family = relation.family
    coefficients = [(label, c) for label, c in _coefficients(relation) if c != 0]
    if condition == "type2":
        phis = [label for label, _ in coefficients if _T2_PHI.match(label)]
        if family == "Euler/homogeneity" and phis:
            return "euler-scale"
        if phis and len(phis) == len(coefficients):
            return "weights"
        return "null-vector"
    parsed = [_parse_type1(label) for label, _ in coefficients]
    if any(p is None for p in parsed):
        return "null-vector"
    if family == "Euler/homogeneity":
        return "euler-scale"
    if all(names == () for _, names in parsed):
        return "weights"
    if any(len(names) == 2 and all(n.startswith("a") for n in names) for _, names in parsed):
        return "split"
    return "first-order"


def witness_path(model: Model, lift: Lift, relations, condition: str, X: np.ndarray) -> Path:
    """The witness path for the first of ``relations`` (construction: :func:`relation_construction`)."""
    relation = relations[0]
    family = relation.family or "unrecognised"
    G = lift.params
    kind = relation_construction(relation, condition)
    coefficients = [(label, c) for label, c in _coefficients(relation) if c != 0]
    if kind == "null-vector":
        return _null_space_path(model, G, None, X, family)
    if condition == "type2":
        channels = {int(m["k"]) - 1: c for m, c in ((_T2_PHI.match(label), c) for label, c in coefficients) if m}
        if kind == "euler-scale":
            return _euler_path(G, [(0, k) for k in channels], _euler_degree(model), family)
        return _weight_path(G, {(0, k): c for k, c in channels.items()}, family)
    parsed = [(_parse_type1(label), c) for label, c in coefficients]
    if kind == "euler-scale":
        channels = sorted({lift.slots[comp][::2] for (comp, _), _ in parsed})  # (h, k)
        return _euler_path(G, channels, _euler_degree(model), family)
    if kind == "weights":
        alpha = {}
        for (comp, _), c in parsed:
            h, _, k = lift.slots[comp]
            alpha[(h, k)] = alpha.get((h, k), 0.0) + c
        return _weight_path(G, alpha, family)
    if kind == "split":
        return _split_path(model, G, lift, parsed, X, family)
    return _null_space_path(model, G, _lifted_direction(G, lift, parsed), X, family)


def _euler_degree(model: Model) -> float:
    """c in zφ' = cφ, from φ at a few points (the family guarantees it is constant)."""
    activation = model.activation()
    z = np.array([0.3, 0.7, 1.1])
    value, slope = activation.numpy_derivative(0)(z), activation.numpy_derivative(1)(z)
    return float(np.median(z * slope / value))


def _euler_path(G: HMoEParams, channels, degree: float, family: str) -> Path:
    def build(t):
        s = 1.0 + t
        omega, a = G.omega.copy(), G.a.copy()
        for h, k in channels:
            a[h, :, k] *= s
            omega[h, k] *= s ** (-degree)
        return HMoEParams(omega, G.M, a)

    omega_i, _, a_i = _index(G)
    direction = np.zeros(G.size)
    for h, k in channels:
        direction[omega_i(h, k)] = -degree * G.omega[h, k]
        for i in range(G.N):
            for j in range(G.dim):
                direction[a_i(h, i, k, j)] = G.a[h, i, k, j]
    where = ", ".join(f"(h={h + 1}, k={k + 1})" for h, k in channels)
    return Path("witness", f"{family}: scale channel {where}", "euler-scale", G, build,
                f"a ↦ s·a, ω ↦ s^(-{degree:g})·ω with s = 1 + t", direction)


def _weight_path(G: HMoEParams, alpha: dict, family: str) -> Path:
    top = max(abs(v) for v in alpha.values())

    def build(t):
        omega = G.omega.copy()
        for (h, k), c in alpha.items():
            omega[h, k] += t * c / top
        return HMoEParams(np.maximum(omega, 0.0), G.M, G.a)

    omega_i, _, _ = _index(G)
    direction = np.zeros(G.size)
    for (h, k), c in alpha.items():
        direction[omega_i(h, k)] = c / top
    moves = ", ".join(f"ω[{h + 1},{k + 1}] += {c / top:+g}·t" for (h, k), c in alpha.items())
    return Path("witness", f"{family}: weights {moves}", "weights", G, build, "g is linear in ω", direction)


def _lifted_direction(G: HMoEParams, lift: Lift, parsed) -> np.ndarray:
    omega_i, m_i, a_i = _index(G)
    u = np.zeros(G.size)
    for (comp, names), c in parsed:
        h, i, k = lift.slots[comp]
        if names == ():
            u[omega_i(h, k)] += c
        elif len(names) == 1 and names[0].startswith("a"):
            u[a_i(h, i, k, int(names[0][1:]) - 1)] += c / G.omega[h, k]
        elif len(names) == 1 and i < G.N - 1:
            u[m_i(h, i, _M_INDEX[names[0]])] += c / G.omega[h, k]
    return u


def _null_space_path(model, G, u, X, family) -> Path:
    """Construction 3 (u given) or a pure null vector of the model (u None)."""
    _, norms, s, vt = _scaled_jacobian(model, G, X[:COMPENSATION_POINTS])
    null = vt[s <= NULL_TOL * s[0]]
    if u is None or not np.any(u):
        if len(null) == 0:
            direction, note = vt[-1] / norms, f"no null vector (s_min/s_max = {s[-1] / s[0]:.2e}); smallest singular direction"
        else:
            direction, note = null[0] / norms, f"null vector of the model Jacobian ({len(null)} found)"
    else:
        scaled = u * norms
        projected = null.T @ (null @ scaled) if len(null) else np.zeros_like(scaled)
        share = float(np.linalg.norm(projected) / np.linalg.norm(scaled))
        if share > 0.1:
            direction, note = projected / norms, f"lifted relation projected on the Jacobian's null space ({share:.2f} of it lies there)"
        else:
            direction, note = u, f"the lifted relation is not a null direction of the model (share {share:.2e})"
    direction = direction / np.linalg.norm(direction)
    theta, shape = G.to_vector(), _shape(G)

    def build(t):
        return HMoEParams.from_vector(theta + t * direction, *shape)

    return Path("witness", f"{family}: first order", "first-order", G, build, note, direction)


def _split_base(G: HMoEParams, h0: int, k0: int):
    """K+1 channels: channel K of head h0 is a copy of (h0, k0) sharing its weight; other heads get a weight-0 copy."""
    H, N, K, d = G.a.shape
    omega = np.zeros((H, K + 1))
    a = np.zeros((H, N, K + 1, d))
    omega[:, :K], a[:, :, :K] = G.omega, G.a
    a[:, :, K] = G.a[:, :, 0]
    a[h0, :, K] = G.a[h0, :, k0]
    omega[h0, k0] = omega[h0, K] = G.omega[h0, k0] / 2
    return omega, a


def _split_builder(G, h0, k0, v):
    omega, a = _split_base(G, h0, k0)
    K = G.K

    def split(root_t):
        b = a.copy()
        b[h0, :, k0] += root_t * v
        b[h0, :, K] -= root_t * v
        return HMoEParams(omega, G.M, b)

    return split


def _split_path(model, G, lift, parsed, X, family) -> Path:
    """Construction 4 for the component with the largest second-order a-coefficients."""
    d = G.dim
    by_comp = {}
    for (comp, names), c in parsed:
        if len(names) == 2 and all(n.startswith("a") for n in names):
            j, l = (int(n[1:]) - 1 for n in names)
            S = by_comp.setdefault(comp, np.zeros((d, d)))
            if j == l:
                S[j, j] += 2 * c
            else:
                S[j, l] += c
                S[l, j] += c
    comp = max(by_comp, key=lambda c: np.abs(by_comp[c]).max())
    S = by_comp[comp]
    values, vectors = np.linalg.eigh(S)
    top = int(np.argmax(np.abs(values)))
    h, i, k = lift.slots[comp]
    v = np.zeros((G.N, d))
    v[i] = vectors[:, top] * np.sqrt(abs(values[top]) / np.abs(values).max())
    v[i] /= np.linalg.norm(v[i])
    return _compensated_split(model, G, h, k, v, X, "witness", f"{family}: split channel (h={h + 1}, k={k + 1}) along v = {np.round(v[i], 3).tolist()} at gate {i + 1}")


def _compensated_split(model, G, h, k, v, X, kind, name, compensate=True) -> Path:
    """Construction 4 (or, with ``compensate=False``, a bare split); records its t → 0 limit.

    ρ₀ = lim ρ(t) = ‖Q + J w‖_{L²(μ)} / ℓ, ℓ = lim L2/t (read at t = 1e-8), on the first
    20 000 Monte Carlo points (w is fitted on the first 4 000, so the residual is out of sample);
    the relative residual ‖Q + Jw‖/‖Q‖ ≤ RESIDUAL_TOL = 1e-7 counts as 0 (the two-step Richardson
    estimate of Q is good to about t₀³ = 1e-9 relative; an exact compensation, e.g. the polynomial
    φ = z + z², measures ≈ 1e-12).
    """
    split = _split_builder(G, h, k, v)
    Xe = X[:20_000]
    g_star = model.value(G, Xe)
    base = split(0.0)
    theta, shape = base.to_vector(), _shape(base)

    def quotient(t):
        return (model.value(split(np.sqrt(t)), Xe) - g_star) / t

    # D(t) = Q + a·t + b·t² + …: two Richardson steps leave an error O(t₀³) ≈ 1e-9 (rounding ≈ eps/t₀ ≈ 1e-12)
    Q = (8 * quotient(RICHARDSON_T / 4) - 6 * quotient(RICHARDSON_T / 2) + quotient(RICHARDSON_T)) / 3
    _, J = model.value_and_jacobian(base, Xe)
    w = np.zeros_like(theta)
    if compensate:
        w, *_ = np.linalg.lstsq(J[:COMPENSATION_POINTS], -Q[:COMPENSATION_POINTS], rcond=None)
    remainder = Q + J @ w
    size = float(np.sqrt(np.mean(Q**2)))
    # Q below Q_FLOOR·‖g*‖ is float rounding of the difference quotient (eps/t₀ ≈ 1e-13): Q = 0
    residual = float(np.sqrt(np.mean(remainder**2)) / size) if size > Q_FLOOR * np.sqrt(np.mean(g_star**2)) else 0.0

    def build(t):
        moved = split(np.sqrt(t)).to_vector() + t * w
        moved[: shape[0] * shape[2]] = np.maximum(moved[: shape[0] * shape[2]], 0.0)
        return HMoEParams.from_vector(moved, *shape)

    step = 1e-8
    ell = voronoi_loss(build(step), G, "L2") / step
    limit = 0.0 if residual <= RESIDUAL_TOL else float(np.sqrt(np.mean(remainder**2)) / ell)
    what = "second-order change Q compensated by t·w" if compensate else "uncompensated split"
    note = f"{what}; relative residual ‖Q + Jw‖/‖Q‖ = {residual:.2e}"
    return Path(kind, name, "split", G, build, note, None, limit, residual)


def probe_path(model: Model, name: str, G: HMoEParams, X: np.ndarray) -> Path:
    """G* + t·d along the smallest singular direction of the column-scaled Jacobian."""
    _, norms, s, vt = _scaled_jacobian(model, G, X[:COMPENSATION_POINTS])
    direction = vt[-1] / norms
    direction /= np.linalg.norm(direction)
    theta, shape = G.to_vector(), _shape(G)
    return Path("probe", name, "smallest-singular", G, lambda t: HMoEParams.from_vector(theta + t * direction, *shape),
                f"s_min/s_max = {s[-1] / s[0]:.2e}", direction)


def random_paths(model: Model, G: HMoEParams, X: np.ndarray, count: int = 3, seed: int = 0) -> list[Path]:
    """``count`` straight lines along random unit directions and one random (uncompensated) split."""
    rng = np.random.default_rng([seed, 0x5EC])
    theta, shape = G.to_vector(), _shape(G)
    paths = []
    for index in range(count):
        direction = rng.standard_normal(theta.size)
        direction /= np.linalg.norm(direction)
        paths.append(Path("random", f"random direction {index + 1}", "line", G,
                          lambda t, d=direction: HMoEParams.from_vector(theta + t * d, *shape), "", direction))
    v = np.zeros((G.N, G.dim))
    v[0] = rng.standard_normal(G.dim)
    v[0] /= np.linalg.norm(v[0])
    paths.append(_compensated_split(model, G, 0, 0, v, X, "random", "random split", compensate=False))
    return paths


# ------------------------------------------------------------------ the ratio


def ratio_curve(model: Model, path: Path, ts, X: np.ndarray) -> RatioCurve:
    """ρ(t) for ``ts`` on the Monte Carlo points ``X``; slope of log ρ on log t (None if exact)."""
    g_star = model.value(path.truth, X)
    scale = float(np.sqrt(np.mean(g_star**2)))
    n = X.shape[0]
    distances, ses, losses = [], [], []
    with np.errstate(over="raise", invalid="raise"):
        for t in ts:
            G = path.build(float(t))
            squared = (model.value(G, X) - g_star) ** 2
            distance = float(np.sqrt(squared.mean()))
            distances.append(distance)
            ses.append(float(squared.std(ddof=1) / np.sqrt(n) / (2 * distance)) if distance > 0 else 0.0)
            losses.append(voronoi_loss(G, path.truth, "L2"))
    distances, losses = np.array(distances), np.array(losses)
    relative = float(distances.max() / scale) if scale > 0 else float(distances.max())
    exact = relative <= EXACT_TOL
    ratio = np.zeros_like(distances) if exact else distances / losses
    slope = None
    if not exact and np.all(ratio > 0):
        slope = float(np.polyfit(np.log(ts), np.log(ratio), 1)[0])
    limit, sensitivity = path.limit, path.sensitivity
    if path.direction is not None:
        limit, sensitivity = first_order_limit(model, path, X)
    return RatioCurve(tuple(float(t) for t in ts), tuple(distances.tolist()), tuple(ses), tuple(losses.tolist()),
                      tuple(ratio.tolist()), slope, exact, relative, limit, sensitivity)


def first_order_limit(model: Model, path: Path, X: np.ndarray):
    """(ρ₀, s) for a path with a tangent d at t = 0.

    ρ₀ = lim_{t→0} ρ(t) = ‖J d‖_{L²(μ)} / ℓ(d), ℓ(d) = lim L2(G_t, G*)/t (every cell has one
    member, so L2 is linear in t; ℓ is read at t = 1e-7); and the scale-free sensitivity
    s = ‖J_s d_s‖ / (s_max(J_s)·‖d_s‖) in column-scaled coordinates (J_s = J/‖columns‖,
    d_s = d·‖columns‖): s ≤ NULL_TOL means d is a null direction of the model, ρ₀ = 0.
    """
    _, J = model.value_and_jacobian(path.truth, X[:20_000])
    norms = np.linalg.norm(J, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    Js, ds = J / norms, path.direction * norms
    s_max = float(np.sqrt(np.linalg.eigvalsh(Js.T @ Js)[-1]))
    sensitivity = float(np.linalg.norm(Js @ ds) / (s_max * np.linalg.norm(ds)))
    step = 1e-7
    ell = voronoi_loss(path.build(step), path.truth, "L2") / step
    limit = float(np.sqrt(np.mean((J @ path.direction) ** 2)) / ell) if ell > 0 else None
    if sensitivity <= NULL_TOL:
        limit = 0.0
    return limit, sensitivity
