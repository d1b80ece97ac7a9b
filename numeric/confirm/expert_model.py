r"""The declared DeepSeekMoE model with the user's expert in one part: the setting of
``numeric confirm --condition deepseek-routed|deepseek-shared --expert EXPR`` (docs/confirm.md).

**The model.** The declaration of :mod:`identcheck.declaration.deepseek_expert` (the shipped
``deepseek-tanh`` with the user's expert as h2 for ``deepseek-routed``/``deepseek-weak`` or h1 for
``deepseek-shared``, the routed gate varying in x, the D1 loss with the user's parameters as the
expert term), compiled by :func:`numeric.model.compile_model`; identcheck's catalog checks the
same declaration at the model level (``identcheck catalog --experts --model-level``). This module
keeps the numeric parts: the points of the function distance and the Jacobian.

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

from dataclasses import dataclass, field

import numpy as np

from identcheck import IdentcheckError
from identcheck.declaration import Declaration
from identcheck.declaration.deepseek_expert import BASE, PART_FOR, expert_declaration, generic_atoms

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

#: Quadrature points of the function distance for d = 1 (inputs × outputs); Monte Carlo inputs for d ≥ 2.
X_POINTS, Y_POINTS = 120, 160
MC_INPUTS = 2000
SPREAD = 6.0


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
    expert's flat parameters, identcheck's order): the declaration built by
    :func:`identcheck.declaration.deepseek_expert.expert_declaration`, compiled, and its points.
    Bad input: :class:`NumericError` naming ``expert`` (or ``condition``)."""
    try:
        declaration = expert_declaration(condition, expert_text, atoms)
    except IdentcheckError as exc:
        if exc.param not in ("expert", "condition"):
            raise
        raise NumericError(param=exc.param, value=exc.value, reason=exc.reason) from None
    try:
        model = compile_model(declaration)
    except IdentcheckError as exc:
        raise NumericError(
            param="expert", value=expert_text, reason=f"the declaration cannot hold it ({exc})"
        ) from None
    part = PART_FOR[condition]
    X, Y, weights = _points(declaration, model, seed)
    return ExpertSetting(condition, expert_text, part, declaration, model, X, Y, weights, _free_coordinates(model))
