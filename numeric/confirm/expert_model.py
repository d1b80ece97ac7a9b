r"""The declared DeepSeekMoE model with the user's expert in one part: the setting of
``numeric confirm --condition deepseek-routed|deepseek-shared --expert EXPR`` (docs/confirm.md).

**The model.** The shipped declaration ``deepseek-tanh`` (arXiv 2505.10860's model (1), Gaussian
mixture, softmax-routed and constant-gated shared parts, X ~ U[−3, 3]):

    f(y | x) = ½ Σ_i ω_i N(y | h1(x, κ_i), τ_i) + ½ Σ_i softmax_i(β1ᵢᵀx + β0ᵢ) N(y | h2(x, η_i), ν_i),

with the user's expert put in as h2 (``deepseek-routed``, ``deepseek-weak``) or h1
(``deepseek-shared``); the other part keeps the declaration's tanh expert and truth (for
``deepseek-shared`` the routed gate made to vary in x: β1 = (1, 0), β0 = (−1, 0) — the printed
β1 = (5, 5) normalises to a gate constant in x, whose denominator couples the model-level check's
cells). The loss is
the declaration's D1 with the user's parameters as the expert term: per cell the mass term and
Σ u(θ_i)‖Δ(gate)‖ + ‖Δη‖ + |Δν| (exponent 1 on a cell of one atom, 2 on larger cells)
(:func:`numeric.losses.voronoi.voronoi_loss`).

**Truths.** The *witness* truth puts a probe's atoms (identcheck's exact values, the expert's
flat parameters) in the expert's part, with gates that vary in x (β1 = 1, −½, … and β0 = ¼, −¼, …
relative to the last atom; shared weights ω_i ∝ 1 + i/2) and variance ν = τ = 0.4; the *generic*
truth puts two atoms drawn from the seed (each parameter ±U[½, 3/2]) there.

**Function distance.** ‖f − f*‖ in L²(μ × dy), μ the input law: for d = 1 a midpoint rule on
:data:`X_POINTS` inputs × :data:`Y_POINTS` outputs over y ∈ [min h* − 6σ, max h* + 6σ] (a
quadrature, no Monte Carlo error); for d ≥ 2 Monte Carlo inputs. The Jacobian ∂f/∂θ on the same
points is a fourth-order central difference (step 1e-3·max(1, |θ_j|): truncation ≈ 1e-12,
rounding ≈ 1e-13 relative), over the **free coordinates**: θ without the softmax reference atom's
gate entries and without the last ω of a normalised constant gate (directions the model does not
see by construction, which are not witnesses).
"""

from __future__ import annotations

import copy
import tomllib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from identcheck import IdentcheckError
from identcheck.declaration import Declaration, example_path, parse_declaration
from identcheck.parse.expert import parse_expert

from ..errors import NumericError
from ..losses.voronoi import voronoi_loss
from ..model import DeclaredModel, ModelParams, compile_model, part_values

__all__ = [
    "BASE",
    "PART_FOR",
    "ExpertSetting",
    "X_POINTS",
    "Y_POINTS",
    "expert_setting",
    "generic_atoms",
]

#: The shipped declaration the user's expert is put into.
BASE = "deepseek-tanh"
#: condition → the part that holds the user's expert
PART_FOR = {"deepseek-routed": "routed", "deepseek-shared": "shared", "deepseek-weak": "routed"}
#: Quadrature points of the function distance for d = 1 (inputs × outputs); Monte Carlo inputs for d ≥ 2.
X_POINTS, Y_POINTS = 120, 160
MC_INPUTS = 2000
VARIANCE = 0.4
SPREAD = 6.0
_BETA1 = (1.0, -0.5, 0.75, -1.0)
_BETA0 = (0.25, -0.25, 0.5, -0.5)
RESERVED = ("x", "y", "beta0", "beta1", "omega", "nu", "tau")


def _fail(expert: str, reason: str):
    raise NumericError(param="expert", value=expert, reason=reason)


def _atom_table(expert, values, names_of_part: dict) -> dict:
    """The declaration's truth entry for flat parameter ``values`` (expert.params order)."""
    out: dict[str, Any] = {}
    position = 0
    for name in expert.names:
        if name in expert.vectors:
            out[name] = [float(v) for v in values[position : position + expert.dim]]
            position += expert.dim
        else:
            out[name] = float(values[position])
            position += 1
    return out | names_of_part


def generic_atoms(expert, seed: int, count: int = 2) -> list[tuple]:
    """``count`` atoms of the expert's flat parameters: each entry ±U[½, 3/2] from ``seed``, the
    atoms distinct."""
    rng = np.random.default_rng([seed, 0xE4])
    size = len(expert.params)
    return [tuple(rng.choice((-1.0, 1.0), size) * rng.uniform(0.5, 1.5, size)) for _ in range(count)]


@dataclass(frozen=True)
class ExpertSetting:
    """The declared model with the user's expert in ``part`` at one truth (module docstring)."""

    condition: str
    expert_text: str
    part: str
    declaration: Declaration = field(repr=False)
    model: DeclaredModel = field(repr=False)
    X: np.ndarray = field(repr=False)
    Y: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)  # quadrature weight of each (x, y) point
    free: np.ndarray = field(repr=False)  # the free coordinates' positions in θ

    @property
    def index(self) -> int:
        return [p.name for p in self.declaration.parts].index(self.part)

    @property
    def truth(self) -> ModelParams:
        return self.model.truth()

    def layout(self, counts: dict | None = None):
        return self.model.layout(False, counts)

    def density(self, params: ModelParams) -> np.ndarray:
        """f(y | x) at the points, for ``params`` with any atom counts."""
        counts = {p.name: a.shape[0] for p, a in zip(self.declaration.parts, params.atoms)}
        layout = self.layout(counts)
        f = np.zeros(len(self.Y))
        for index, part in enumerate(layout.parts):
            G, eta, nu = part_values(layout, params, index)
            w = part.gate.evaluate(self.X, G).w
            h = part.expert.value(self.X, eta)
            normal = np.exp(-0.5 * (self.Y[None, :] - h) ** 2 / nu[:, None]) / np.sqrt(2 * np.pi * nu)[:, None]
            f += params.shares[index] * (w * normal).sum(axis=0)
        return f

    def norm(self, values: np.ndarray) -> float:
        """‖values‖ in L²(μ × dy) by the points' weights."""
        return float(np.sqrt(self.weights @ (values**2)))

    def loss(self, params: ModelParams) -> float:
        """The declaration's Voronoi loss of ``params`` against the truth."""
        return float(voronoi_loss(self.model, params).value)

    def theta(self) -> np.ndarray:
        return self.layout().pack(self.truth)

    def at(self, free_values: np.ndarray) -> ModelParams:
        """The truth's layout with the free coordinates set to ``free_values``."""
        theta = self.theta()
        theta[self.free] = free_values
        return self.layout().unpack(theta)

    def jacobian(self) -> np.ndarray:
        """∂f/∂θ_free at the truth on the points (n × P), fourth-order central differences."""
        base = self.theta()[self.free]
        columns = []
        for j in range(len(base)):
            step = 1e-3 * max(1.0, abs(base[j]))
            values = []
            for s in (-2, -1, 1, 2):
                moved = base.copy()
                moved[j] += s * step
                values.append(self.density(self.at(moved)))
            columns.append((values[0] - 8 * values[1] + 8 * values[2] - values[3]) / (12 * step))
        return np.stack(columns, axis=1)

    def labels(self) -> list[str]:
        labels = self.layout().labels()
        return [labels[i] for i in self.free]


def _free_coordinates(model: DeclaredModel) -> np.ndarray:
    layout = model.layout(False)
    drop = set()
    for part in layout.parts:
        if part.gate.kind in ("softmax",):
            last = part.k - 1
            for column in range(part.n_gate):
                drop.add(int(part.indices(column)[last]))
        elif part.gate.kind == "constant" and part.gate.normalised:
            drop.add(int(part.indices(0)[part.k - 1]))
    return np.array([i for i in range(layout.size) if i not in drop], dtype=int)


def _points(declaration: Declaration, model: DeclaredModel, seed: int):
    """(X, Y, weights): the quadrature (d = 1) or Monte Carlo (d ≥ 2) points of the distance."""
    inputs = declaration.inputs
    d = inputs.dim
    low, high = (float(inputs.low), float(inputs.high)) if inputs.kind == "uniform" else (-3.0, 3.0)  # type: ignore[arg-type]
    if d == 1:
        x = low + (np.arange(X_POINTS) + 0.5) * (high - low) / X_POINTS
        xs = x[:, None]
    else:
        xs = np.random.default_rng([seed, 0xD1]).uniform(low, high, size=(MC_INPUTS, d))
    layout = model.layout(False)
    truth = model.truth()
    ends = []
    for index, part in enumerate(layout.parts):
        _, eta, nu = part_values(layout, truth, index)
        h = part.expert.value(xs, eta)
        sd = np.sqrt(nu.max())
        ends += [h.min() - SPREAD * sd, h.max() + SPREAD * sd]
    y_low, y_high = min(ends), max(ends)
    y = y_low + (np.arange(Y_POINTS) + 0.5) * (y_high - y_low) / Y_POINTS
    X = np.repeat(xs, Y_POINTS, axis=0)
    Y = np.tile(y, len(xs))
    weights = np.full(len(Y), (y_high - y_low) / Y_POINTS / len(xs))
    return X, Y, weights


def expert_setting(condition: str, expert_text: str, atoms, seed: int = 0) -> ExpertSetting:
    """The model of the module docstring with the expert's part holding ``atoms`` (each the
    expert's flat parameters, identcheck's order). Bad input: :class:`NumericError` naming ``expert``."""
    if condition not in PART_FOR:
        raise NumericError(
            param="condition", value=condition, reason=f"no declaration holds its expert (choose {', '.join(PART_FOR)})"
        )
    data = tomllib.loads(example_path(BASE).read_text(encoding="utf-8"))
    dim = data["inputs"]["dim"]
    try:
        expert = parse_expert(expert_text, dim)
    except IdentcheckError as exc:
        _fail(expert_text, str(exc.reason if getattr(exc, "reason", None) else exc))
    clash = sorted(set(expert.names) & set(RESERVED))
    if clash:
        _fail(expert_text, f"its parameter {clash[0]!r} is a name the declaration's gate or variance uses")
    part = PART_FOR[condition]
    table = data["parts"][part]
    spec = copy.deepcopy(table)
    variance = spec["variance"]
    k = len(atoms)
    entries = []
    gate: dict[str, Any]
    for i, values in enumerate(atoms):
        if part == "routed":
            gate = {"beta1": 0.0, "beta0": 0.0} if i == k - 1 else {"beta1": _BETA1[i % 4], "beta0": _BETA0[i % 4]}
            gate = {key: ([v] * dim if key == "beta1" and dim > 1 else v) for key, v in gate.items()}
        else:
            gate = {"omega": (1 + i / 2) / sum(1 + j / 2 for j in range(k))}
        entries.append(_atom_table(expert, values, gate | {variance: VARIANCE}))
    if part == "shared":  # the routed truth's gate made to vary in x (the printed beta1 = (5, 5) normalises to 0)
        for other, beta1 in zip(data["parts"]["routed"]["truth"], (1.0, 0.0)):
            other["beta1"], other["beta0"] = beta1, 0.0 if beta1 == 0.0 else -1.0
    spec["expert"] = expert_text
    spec["truth"] = entries
    spec["fitted"] = k + 1
    data["parts"][part] = spec
    functions = data.get("functions", {})
    if "phi" in functions and "phi(" not in data["parts"]["shared" if part == "routed" else "routed"]["expert"]:
        functions.pop("phi")
    loss = data["loss"]["parts"][part]
    gate_cells = [c for c in loss["cells"] if c in ("beta1",)]
    loss["cells"] = gate_cells + list(expert.names) + [variance]
    loss["terms"] = [t for t in loss["terms"] if t["params"] in (["beta1"],)] + [
        {"params": list(expert.names), "exact": 1, "over": 2},
        {"params": [variance], "exact": 1, "over": 2},
    ]
    data["name"] = f"{BASE}-{part}-confirm"
    try:
        declaration = parse_declaration(data)
        model = compile_model(declaration)
    except IdentcheckError as exc:
        _fail(expert_text, f"the declaration cannot hold it ({exc})")
    X, Y, weights = _points(declaration, model, seed)
    return ExpertSetting(condition, expert_text, part, declaration, model, X, Y, weights, _free_coordinates(model))
