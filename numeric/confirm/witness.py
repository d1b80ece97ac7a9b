"""Witness paths: parameter paths G_t → G* along which the function moves less than the parameters.

:mod:`numeric.confirm` measures the ratio ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*)
(:mod:`numeric.confirm.curves`) along paths built here from identcheck's relations, after the probe has
been placed in the model (:mod:`numeric.confirm.lift`). A path with ρ(t) → 0 witnesses that the local
inequality behind the gated models' rates fails.

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
   Jacobian J at G* (:mod:`numeric.confirm.paths`; this adds the moves the softmax denominator and the
   fillers need); G_t = G* + t·d. Then ‖Δg‖ = O(t²), L2 ≍ t: ρ ≍ t (slope 1).
4. *Second order* (the relation has ∂²ū/∂a_j∂a_l terms, e.g. heat φ'' = cφ): the compensated
   split of :mod:`numeric.confirm.splits` for the component with the largest second-order
   a-coefficients γ, along v the top eigenvector of S (S_jj = 2γ_jj, S_jl = γ_jl).
5. *Null vector* (relations not lifted term by term: type-2 relations other than φ(f_k)-only
   and Euler): G* + t·d with d the first null vector of the column-scaled J (its smallest singular
   direction if there is none, which then shows a bounded ratio).

ρ → 0 means ρ₀ = 0 (the tangent is a null direction of the model, or the split's second order
is compensated) *and* a falling slope (:mod:`numeric.confirm.curves`).

**Probe and random paths** (for identifiable φ, expected bounded): G* + t·d with d the right
singular vector of the column-scaled J for its smallest singular value (the direction the
probe's model is least sensitive to), or a random unit vector; a random split of channel
(1, 1), every gate shifted by a random unit vector; and two compensated splits (construction 4
with random v: the over-fitted part of Theorem 2).
"""

from __future__ import annotations

import numpy as np

from ..model.attention_declared import AttentionCode
from ..model.attention_params import HMoEParams, NumericError
from .lift import Lift, exact_float, lift_probe
from .paths import COMPENSATION_POINTS, NULL_TOL, Path, index_of, line_path, scaled_jacobian
from .splits import compensated_split

__all__ = [
    "Lift",
    "Path",
    "lift_probe",
    "witness_path",
    "relation_construction",
    "CONSTRUCTIONS",
    "probe_path",
    "random_paths",
    "NULL_TOL",
]

#: share of a lifted relation's direction on the Jacobian's null space above which the projection is used
NULL_SHARE = 0.1


def _is_a(variable: tuple) -> bool:
    """Whether a typed variable of identcheck's keys (``("a", 1)``, ``("M", 0, 1)``) is an expert entry."""
    return variable[0] == "a"


def _a_index(variable: tuple) -> int:
    """``("a", 1)`` → 1 (0-based)."""
    return variable[1]


def _m_index(variable: tuple, dim: int) -> int:
    """``("M", 0, 1)`` → the entry's position in the upper triangle, row by row (θ's layout,
    :mod:`numeric.model.attention_params`)."""
    _, j, k = variable
    return [(r, c) for r in range(dim) for c in range(r, dim)].index((j, k))


def _coefficients(relation):
    """(structural key, coefficient) of each nonzero term of ``relation``.

    The keys are identcheck's (:attr:`identcheck.Relation.keys`, typed; also in its JSON): type-1
    ``(component, derivative)`` with ``derivative`` a tuple of typed variables (``()``, ``(("a", 0),)``,
    ``(("M", 0, 0), ("a", 1))``); type-2 :attr:`identcheck.terms.type2.Type2Term.key` (``("phi", k)`` for φ(f^k)).
    """
    pairs = relation.exact if relation.exact is not None else relation.terms
    if len(relation.keys) != len(pairs):
        raise NumericError(f"relation {relation}: no structural keys (schema-2 JSON did not record them)")
    values = [exact_float(c) if isinstance(c, str) else float(c) for _, c in pairs]
    return [(key, c) for key, c in zip(relation.keys, values) if c != 0]


def _phi_channels(coefficients) -> dict:
    """Type-2: channel k → coefficient of each φ(f^k) term."""
    return {key[1]: c for key, c in coefficients if key[0] == "phi"}


#: Constructions in the order the witness search prefers them (exact ones first, cheapest first).
CONSTRUCTIONS = ("euler-scale", "weights", "first-order", "split", "null-vector")


def relation_construction(relation, condition: str) -> str:
    """Which construction (:data:`CONSTRUCTIONS`) :func:`witness_path` uses for ``relation``."""
    family = relation.family
    coefficients = _coefficients(relation)
    if condition == "type2":
        phis = _phi_channels(coefficients)
        if family == "Euler/homogeneity" and phis:
            return "euler-scale"
        if phis and len(phis) == len(coefficients):
            return "weights"
        return "null-vector"
    parsed = [key for key, _ in coefficients]
    if family == "Euler/homogeneity":
        return "euler-scale"
    if all(names == () for _, names in parsed):
        return "weights"
    if any(len(names) == 2 and all(_is_a(n) for n in names) for _, names in parsed):
        return "split"
    return "first-order"


def witness_path(model: AttentionCode, lift: Lift, relations, condition: str, X: np.ndarray) -> Path:
    """The witness path for the first of ``relations`` (construction: :func:`relation_construction`)."""
    relation = relations[0]
    family = relation.family or "unrecognised"
    G = lift.params
    kind = relation_construction(relation, condition)
    coefficients = _coefficients(relation)
    if kind == "null-vector":
        return _null_space_path(model, G, None, X, family)
    if condition == "type2":
        channels = _phi_channels(coefficients)
        if kind == "euler-scale":
            return _euler_path(G, [(0, k) for k in channels], _euler_degree(model), family)
        return _weight_path(G, {(0, k): c for k, c in channels.items()}, family)
    parsed = coefficients  # ((component, derivative), coefficient)
    if kind == "euler-scale":
        pairs = sorted({lift.slots[comp][::2] for (comp, _), _ in parsed})  # (h, k)
        return _euler_path(G, pairs, _euler_degree(model), family)
    if kind == "weights":
        alpha: dict[tuple[int, int], float] = {}
        for (comp, _), c in parsed:
            h, _, k = lift.slots[comp]
            alpha[(h, k)] = alpha.get((h, k), 0.0) + c
        return _weight_path(G, alpha, family)
    if kind == "split":
        return _split_path(model, G, lift, parsed, X, family)
    return _null_space_path(model, G, _lifted_direction(G, lift, parsed), X, family)


def _euler_degree(model: AttentionCode) -> float:
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

    omega_i, _, a_i = index_of(G)
    direction = np.zeros(G.size)
    for h, k in channels:
        direction[omega_i(h, k)] = -degree * G.omega[h, k]
        for i in range(G.N):
            for j in range(G.dim):
                direction[a_i(h, i, k, j)] = G.a[h, i, k, j]
    where = ", ".join(f"(h={h + 1}, k={k + 1})" for h, k in channels)
    return Path(
        "witness",
        f"{family}: scale channel {where}",
        "euler-scale",
        G,
        build,
        f"a ↦ s·a, ω ↦ s^(-{degree:g})·ω with s = 1 + t",
        direction,
    )


def _weight_path(G: HMoEParams, alpha: dict, family: str) -> Path:
    top = max(abs(v) for v in alpha.values())

    def build(t):
        omega = G.omega.copy()
        for (h, k), c in alpha.items():
            omega[h, k] += t * c / top
        return HMoEParams(np.maximum(omega, 0.0), G.M, G.a)

    omega_i, _, _ = index_of(G)
    direction = np.zeros(G.size)
    for (h, k), c in alpha.items():
        direction[omega_i(h, k)] = c / top
    moves = ", ".join(f"ω[{h + 1},{k + 1}] += {c / top:+g}·t" for (h, k), c in alpha.items())
    return Path("witness", f"{family}: weights {moves}", "weights", G, build, "g is linear in ω", direction)


def _lifted_direction(G: HMoEParams, lift: Lift, parsed) -> np.ndarray:
    omega_i, m_i, a_i = index_of(G)
    u = np.zeros(G.size)
    for (comp, names), c in parsed:
        h, i, k = lift.slots[comp]
        if names == ():
            u[omega_i(h, k)] += c
        elif len(names) == 1 and _is_a(names[0]):
            u[a_i(h, i, k, _a_index(names[0]))] += c / G.omega[h, k]
        elif len(names) == 1 and i < G.N - 1:
            u[m_i(h, i, _m_index(names[0], G.dim))] += c / G.omega[h, k]
    return u


def _null_space_path(model, G, u, X, family) -> Path:
    """Construction 3 (u given) or a pure null vector of the model (u None)."""
    _, norms, s, vt = scaled_jacobian(model, G, X[:COMPENSATION_POINTS])
    null = vt[s <= NULL_TOL * s[0]]
    if u is None or not np.any(u):
        if len(null) == 0:
            direction, note = (
                vt[-1] / norms,
                f"no null vector (s_min/s_max = {s[-1] / s[0]:.2e}); smallest singular direction",
            )
        else:
            direction, note = null[0] / norms, f"null vector of the model Jacobian ({len(null)} found)"
    else:
        scaled = u * norms
        projected = null.T @ (null @ scaled) if len(null) else np.zeros_like(scaled)
        share = float(np.linalg.norm(projected) / np.linalg.norm(scaled))
        if share > NULL_SHARE:
            direction, note = (
                projected / norms,
                f"lifted relation projected on the Jacobian's null space ({share:.2f} of it lies there)",
            )
        else:
            direction, note = u, f"the lifted relation is not a null direction of the model (share {share:.2e})"
    direction = direction / np.linalg.norm(direction)
    return line_path("witness", f"{family}: first order", "first-order", G, direction, note)


def _split_path(model, G, lift, parsed, X, family) -> Path:
    """Construction 4 for the component with the largest second-order a-coefficients."""
    d = G.dim
    by_comp: dict[int, np.ndarray] = {}
    for (comp, names), c in parsed:
        if len(names) == 2 and all(_is_a(n) for n in names):
            j, l = (_a_index(n) for n in names)
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
    return compensated_split(
        model,
        G,
        h,
        k,
        v,
        X,
        "witness",
        f"{family}: split channel (h={h + 1}, k={k + 1}) along v = {np.round(v[i], 3).tolist()} at gate {i + 1}",
    )


def probe_path(model: AttentionCode, name: str, G: HMoEParams, X: np.ndarray) -> Path:
    """G* + t·d along the smallest singular direction of the column-scaled Jacobian."""
    _, norms, s, vt = scaled_jacobian(model, G, X[:COMPENSATION_POINTS])
    direction = vt[-1] / norms
    direction /= np.linalg.norm(direction)
    return line_path("probe", name, "smallest-singular", G, direction, f"s_min/s_max = {s[-1] / s[0]:.2e}")


def random_paths(model: AttentionCode, G: HMoEParams, X: np.ndarray, count: int = 3, seed: int = 0) -> list[Path]:
    """``count`` straight lines along random unit directions, one random (uncompensated) split of
    channel (1, 1), and two compensated ±√t splits (construction 4 with the least-squares moves
    t·w over every other parameter): channel (1, 1) along the same v, and the last channel of the
    last head along a second random v. For an identifiable φ all must stay bounded — the
    compensated splits exercise the over-fitted (two-member cell) part of Theorem 2."""
    rng = np.random.default_rng([seed, 0x5EC])
    paths = []
    for index in range(count):
        direction = rng.standard_normal(G.size)
        direction /= np.linalg.norm(direction)
        paths.append(line_path("random", f"random direction {index + 1}", "line", G, direction))
    v = rng.standard_normal((G.N, G.dim))  # every gate shifted, as Theorem 1's a* ± e₁/n
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    paths.append(compensated_split(model, G, 0, 0, v, X, "random", "random split", compensate=False))
    paths.append(compensated_split(model, G, 0, 0, v, X, "random", "random split, compensated"))
    u = rng.standard_normal((G.N, G.dim))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    h, k = G.H - 1, G.K - 1
    paths.append(
        compensated_split(model, G, h, k, u, X, "random", f"random split of (h={h + 1}, k={k + 1}), compensated")
    )
    return paths
