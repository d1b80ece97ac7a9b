r"""Paths and ratios in the declared DeepSeekMoE model (:mod:`numeric.confirm.expert_model`), built
from identcheck's relations of an expert condition (docs/confirm.md, "Expert conditions").

For a truth G* and a path t ↦ G_t,

    ρ(t) = ‖f_{G_t} − f_{G*}‖_{L²(μ × dy)} / D(G_t, G*),

D the declaration's Voronoi loss. A relation of ``deepseek-routed`` (S3) or ``deepseek-shared``
(S1, S2) is a linear identity among an atom's expert derivatives; its keys say which model
directions it pairs (atom c = the truth's atom c of the expert's part):

- ``("d", (p,))`` ∂h/∂p — the first-order move of column p;
- ``("dd", (p, q))`` ∂²h/∂p∂q and ``("prod", (p, q))`` ∂h/∂p·∂h/∂q — second order in (p, q)
  (in the density, ∂²f/∂p∂q = w(N_μ ∂²h/∂p∂q + N_μμ ∂h/∂p ∂h/∂q));
- ``("x", u, (p,))`` x_u·∂h/∂p — second order in (β1_u, p): ∂²(e^{β1ᵀx}N)/∂β1_u∂p;
- ``("1",)`` the constant — what ∂f/∂ν = ½ w N_μμ pairs with.

**Constructions.** *First order* (only ``d`` terms): the lifted direction u (δθ_{c,p} = α) is
projected on the numerical null space of the column-scaled Jacobian J at G* (singular values
≤ NULL_TOL·s_max) when more than NULL_SHARE of it lies there, else used as it is; G_t = G* + t·d.
If d is null, ‖Δf‖ = O(t²) while D ≍ t: ρ → 0 with slope 1. *Split* (second-order terms): the
atom with the largest second-order coefficients is split into two of half its weight (β0 − log 2,
or ω/2) at θ ± √t v, v the top eigenvector of S (S_pp = 2α_pp, S_pq = α_pq), and every free
coordinate moves by t·w, w = argmin ‖Q + J w‖ (Q = lim (f_split(√t) − f*)/t by two-step
Richardson extrapolation from t₀ = 1e-3, error ≈ t₀³). D ≍ t (the two-member cell counts squared
distances), so ρ₀ = ‖Q + J w‖/ℓ, ℓ = lim D/t; 0 when the relative residual ‖Q + Jw‖/‖Q‖ ≤
RESIDUAL_TOL: the relation's second order is then absorbed by first-order moves of the model.

**Other paths**: every counting probe's truth along its least sensitive direction (the smallest
singular vector of the column-scaled J); at the generic truth three random lines, a random split
of the expert part's first atom and the same split compensated. Lines get ρ₀ = ‖J d‖/ℓ(d) and the
scale-free sensitivity ‖J_s d_s‖/(s_max‖d_s‖) (≤ NULL_TOL: ρ₀ = 0), as in
:mod:`numeric.confirm.curves`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..model import ModelParams
from .curves import DISTANCE_FLOOR, EXACT_TOL, PLATEAU_FACTOR, T_MIN
from .expert_model import ExpertSetting
from .paths import NULL_TOL
from .result import Sequence
from .splits import RESIDUAL_TOL
from .witness import _coefficients

__all__ = [
    "ExpertPath",
    "EXPERT_CONSTRUCTIONS",
    "NULL_SHARE",
    "expert_construction",
    "expert_sequence",
    "line",
    "random_expert_paths",
    "relation_path",
    "smallest_direction",
    "split_path",
]

#: Share of a lifted relation's direction on the Jacobian's null space above which the projection is used.
NULL_SHARE = 0.1
#: The witness search's order (cheapest, most direct first).
EXPERT_CONSTRUCTIONS = ("first-order", "split")
RICHARDSON_T0 = 1e-3
#: A Jacobian column with norm ≤ ZERO_COLUMN·(largest column norm) is rounding (the finite differences'
#: ≈ 1e-13): the model does not see that coordinate, and the column counts as 0, not scaled up.
ZERO_COLUMN = 1e-9
LIMIT_STEP = 1e-7


@dataclass(frozen=True)
class ExpertPath:
    """t ↦ G_t (ModelParams, maybe more atoms) with G_0 = the setting's truth."""

    kind: str  # "witness" | "probe" | "random"
    name: str
    construction: str
    setting: ExpertSetting = field(repr=False)
    build: Callable[[float], ModelParams] = field(repr=False)
    note: str = ""
    direction: np.ndarray | None = field(default=None, repr=False)  # free coordinates, lines only
    limit: float | None = None
    sensitivity: float | None = None


def _column(variable: tuple) -> str:
    """identcheck's typed variable → the layout's column name: ("eta2",) → eta2, ("eta1", 0) → eta1_1."""
    return variable[0] if len(variable) == 1 else f"{variable[0]}_{variable[1] + 1}"


def _pairs(key: tuple):
    """(order, columns) of a member key (module docstring); order 0 for the constant."""
    kind = key[0]
    if kind == "d":
        return 1, (_column(key[1][0]),)
    if kind in ("dd", "prod"):
        variables = key[1]
        if kind == "prod" and len(key) > 2:
            variables = key[-1]
        return 2, tuple(_column(v) for v in variables)
    if kind == "x":
        return 2, (f"beta1_{key[1]}", _column(key[2][0]))
    return 0, ()


def expert_construction(relation) -> str:
    """``first-order`` or ``split`` (module docstring)."""
    orders = [_pairs(member)[0] for (_, member), _ in _coefficients(relation)]
    return "split" if any(o == 2 for o in orders) else "first-order"


def _scaled(setting: ExpertSetting, J: np.ndarray):
    """(J_s, column norms, singular values, Vᵀ) in the weighted L² norm."""
    Jw = J * np.sqrt(setting.weights)[:, None]
    norms = np.linalg.norm(Jw, axis=0)
    zero = norms <= ZERO_COLUMN * norms.max()  # rounding only: the model does not see this coordinate
    Jw = np.where(zero[None, :], 0.0, Jw)
    norms = np.where(zero, 1.0, norms)
    _, s, vt = np.linalg.svd(Jw / norms, full_matrices=False)
    return Jw / norms, norms, s, vt


def _free_position(setting: ExpertSetting, atom: int, column: str) -> int | None:
    layout = setting.layout()
    part = layout.parts[setting.index]
    if column not in part.columns:
        return None
    full = int(part.indices(part.columns.index(column))[atom])
    where = np.flatnonzero(setting.free == full)
    return int(where[0]) if len(where) else None


def line(kind, name, construction, setting: ExpertSetting, direction: np.ndarray, note: str = "") -> ExpertPath:
    base = setting.theta()[setting.free]
    return ExpertPath(kind, name, construction, setting, lambda t: setting.at(base + t * direction), note, direction)


def smallest_direction(setting: ExpertSetting, J: np.ndarray, kind: str, name: str) -> ExpertPath:
    _, norms, s, vt = _scaled(setting, J)
    direction = vt[-1] / norms
    direction /= np.linalg.norm(direction)
    return line(kind, name, "smallest-singular", setting, direction, f"s_min/s_max = {s[-1] / s[0]:.2e}")


def _first_order(setting, J, coefficients, family) -> ExpertPath:
    u = np.zeros(len(setting.free))
    for (atom, member), c in coefficients:
        order, columns = _pairs(member)
        if order == 1:
            position = _free_position(setting, atom, columns[0])
            if position is not None:
                u[position] += c
    _, norms, s, vt = _scaled(setting, J)
    null = vt[s <= NULL_TOL * s[0]]
    if not np.any(u):
        return smallest_direction(setting, J, "witness", f"{family}: first order (no free column)")
    scaled = u * norms
    projected = null.T @ (null @ scaled) if len(null) else np.zeros_like(scaled)
    share = float(np.linalg.norm(projected) / np.linalg.norm(scaled))
    if share > NULL_SHARE:
        direction = projected / norms
        note = f"lifted relation projected on the Jacobian's null space ({share:.2f} of it lies there)"
    else:
        direction = u
        note = f"the lifted relation is not a null direction of the model (share {share:.2e})"
    direction = direction / np.linalg.norm(direction)
    return line("witness", f"{family}: first order", "first-order", setting, direction, note)


def _split_rows(setting: ExpertSetting, params: ModelParams, atom: int, v: np.ndarray, s: float) -> ModelParams:
    """The expert part's ``atom`` split in two of half its weight at θ ± s·v (v over the part's columns)."""
    index = setting.index
    rows = params.atoms[index]
    part = setting.layout().parts[index]
    weight = part.columns.index("beta0") if "beta0" in part.columns else part.columns.index("omega")
    plus, minus = rows[atom] + s * v, rows[atom] - s * v
    if part.columns[weight] == "beta0":
        plus[weight] = minus[weight] = rows[atom, weight] - np.log(2.0)
    else:
        plus[weight] = minus[weight] = rows[atom, weight] / 2
    new = np.vstack([rows[:atom], plus[None, :], rows[atom + 1 :], minus[None, :]])
    atoms = list(params.atoms)
    atoms[index] = new
    return ModelParams(tuple(atoms), params.shares)


def split_path(setting, J, atom: int, v: np.ndarray, kind: str, name: str, compensate: bool = True) -> ExpertPath:
    """The ±√t split of ``atom`` along ``v`` (part columns; the weight column's entry ignored), with
    the least-squares first-order compensation t·w when ``compensate`` (module docstring)."""
    f_star = setting.density(setting.truth)
    truth = setting.truth

    def q_at(t):
        return (setting.density(_split_rows(setting, truth, atom, v, np.sqrt(t))) - f_star) / t

    t0 = RICHARDSON_T0
    Q = (8 * q_at(t0 / 4) - 6 * q_at(t0 / 2) + q_at(t0)) / 3
    sqrt_w = np.sqrt(setting.weights)
    if compensate:
        w = np.linalg.lstsq(J * sqrt_w[:, None], -Q * sqrt_w, rcond=None)[0]
    else:
        w = np.zeros(len(setting.free))
    base = setting.theta()[setting.free]

    def build(t):
        return _split_rows(setting, setting.at(base + t * w), atom, v, np.sqrt(t))

    residual = setting.norm(Q + J @ w)
    relative = residual / setting.norm(Q) if setting.norm(Q) > 0 else 0.0
    ell = setting.loss(build(LIMIT_STEP)) / LIMIT_STEP
    limit = 0.0 if relative <= RESIDUAL_TOL else (residual / ell if ell > 0 else None)
    note = f"split atom {atom + 1} of '{setting.part}' along v = {np.round(v, 3).tolist()}" + (
        f", compensated (relative residual {relative:.1e})" if compensate else ", uncompensated"
    )
    return ExpertPath(kind, name, "split", setting, build, note, None, limit, relative)


def _split_from_relation(setting, J, coefficients, family) -> ExpertPath:
    part = setting.layout().parts[setting.index]
    width = len(part.columns)
    by_atom: dict[int, np.ndarray] = {}
    for (atom, member), c in coefficients:
        order, columns = _pairs(member)
        if order != 2 or any(col not in part.columns for col in columns):
            continue
        j, l = (part.columns.index(col) for col in columns)
        S = by_atom.setdefault(atom, np.zeros((width, width)))
        if j == l:
            S[j, j] += 2 * c
        else:
            S[j, l] += c
            S[l, j] += c
    if not by_atom:
        return smallest_direction(setting, J, "witness", f"{family}: no second-order column in the model")
    atom = max(by_atom, key=lambda a: np.abs(by_atom[a]).max())
    values, vectors = np.linalg.eigh(by_atom[atom])
    v = vectors[:, int(np.argmax(np.abs(values)))]
    return split_path(setting, J, atom, v / np.linalg.norm(v), "witness", f"{family}: split atom {atom + 1}")


def relation_path(setting: ExpertSetting, J: np.ndarray, relation) -> ExpertPath:
    """The witness path of ``relation`` at ``setting``'s truth (the probe's atoms)."""
    family = relation.family or "unrecognised"
    coefficients = _coefficients(relation)
    if expert_construction(relation) == "first-order":
        return _first_order(setting, J, coefficients, family)
    return _split_from_relation(setting, J, coefficients, family)


def random_expert_paths(setting: ExpertSetting, J: np.ndarray, seed: int = 0, count: int = 3) -> list[ExpertPath]:
    """``count`` random lines, a random split of the expert part's atom 1, and that split compensated."""
    rng = np.random.default_rng([seed, 0x5EE])
    paths = []
    for index in range(count):
        d = rng.standard_normal(len(setting.free))
        paths.append(line("random", f"random direction {index + 1}", "line", setting, d / np.linalg.norm(d)))
    part = setting.layout().parts[setting.index]
    v = rng.standard_normal(len(part.columns))
    v /= np.linalg.norm(v)
    paths.append(split_path(setting, J, 0, v, "random", "random split", compensate=False))
    paths.append(split_path(setting, J, 0, v, "random", "random split, compensated"))
    return paths


def _first_order_limit(path: ExpertPath, J: np.ndarray):
    setting = path.setting
    Js, norms, s, _ = _scaled(setting, J)
    ds = path.direction * norms
    sensitivity = float(np.linalg.norm(Js @ ds) / (s[0] * np.linalg.norm(ds)))
    ell = setting.loss(path.build(LIMIT_STEP)) / LIMIT_STEP
    limit = setting.norm(J @ path.direction) / ell if ell > 0 else None
    if sensitivity <= NULL_TOL:
        limit = 0.0
    return limit, sensitivity


def expert_sequence(path: ExpertPath, J: np.ndarray, ts) -> Sequence:
    """ρ(t) along ``path`` for ``ts``, extended by half decades below them until the plateau of a
    positive limit shows or float64 stops resolving ‖Δf‖ (the rules of :mod:`numeric.confirm.curves`)."""
    setting = path.setting
    f_star = setting.density(setting.truth)
    scale = setting.norm(f_star)
    distances, losses = [], []

    def measure(t):
        G = path.build(float(t))
        distances.append(setting.norm(setting.density(G) - f_star))
        losses.append(setting.loss(G))

    ts = [float(t) for t in ts]
    window = len(ts)
    with np.errstate(over="raise", invalid="raise"):
        for t in ts:
            measure(t)
    relative = float(max(distances) / scale)
    exact = relative <= EXACT_TOL
    limit, sensitivity = path.limit, path.sensitivity
    if path.direction is not None:
        limit, sensitivity = _first_order_limit(path, J)

    def within():
        ratio = distances[-1] / losses[-1] if losses[-1] > 0 else 0.0
        return ratio > 0 and 1 / PLATEAU_FACTOR <= ratio / limit <= PLATEAU_FACTOR

    if not exact and limit is not None and limit > 0:
        with np.errstate(over="raise", invalid="raise"):
            while not within():
                t = ts[-1] / np.sqrt(10.0)
                if t < T_MIN or distances[-1] < DISTANCE_FLOOR * scale:
                    break
                ts.append(float(t))
                measure(t)
    d, loss = np.array(distances), np.array(losses)
    ratio = np.zeros_like(d) if exact else d / np.where(loss > 0, loss, np.inf)
    slope = None
    if not exact and np.all(ratio[:window] > 0):
        slope = float(np.polyfit(np.log(ts[:window]), np.log(ratio[:window]), 1)[0])
    return Sequence(
        path.kind,
        path.name,
        path.construction,
        path.note,
        tuple(ts),
        tuple(ratio.tolist()),
        tuple(0.0 for _ in ts),  # a quadrature: no Monte Carlo error
        tuple(loss.tolist()),
        slope,
        exact,
        relative,
        limit,
        sensitivity,
        window,
    )
