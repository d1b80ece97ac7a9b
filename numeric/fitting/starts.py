r"""Where a declared fit starts: the papers' start near the truth, or a broad start in the box.

**The papers' start** (``"paper"``; the over-fitted MoE papers' simulations, e.g. arXiv 2505.10860
App. G): fitted atom i of a part starts at true atom j(i) = i mod k* (with groups: atom p of
group g at true atom p mod k*_g of true group g mod G*), so every true atom is taken at least once
and the m_j fitted atoms of true atom j split its weight equally —

    constant:                     ω ← ω*_j / m_j
    softmax, top-K of softmax:    β0 ← β0*_j − log m_j          (e^{β0} split)
    Laplace:                      β ← β*_j − log m_j
    sigmoid, normalised sigmoid:  β0 ← logit(σ(β0*_j) / m_j)     (σ(β0) split)
    quadratic softmax:            unchanged (no intercept to split)

— then every other parameter is perturbed by N(0, δ²), δ = c · n^(−γ) (defaults c = 1, γ = 0.083,
this project's reading of the paper's n^−0.083), a variance multiplicatively (ν ← ν e^{N(0, δ²)},
so it stays positive), and the result clipped into the box. The weights (ω, β0, β) are not
perturbed: they start split equally.

**A broad start** (``"broad"``): every parameter uniform in the box, weights equal (ω = 1/k,
β0 = 0), shares equal; restarts draw further broad starts (:mod:`numeric.fitting.fit`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, logit

from ..errors import NumericError
from ..model import DeclaredModel, Layout, ModelParams
from .attention_box import Box

__all__ = ["START_KINDS", "broad_start", "paper_start"]

START_KINDS = ("paper", "broad")
_INTERCEPT = {"constant": "omega", "softmax": "beta0", "top-k": "beta0", "laplace": "beta"}
_INTERCEPT |= {"sigmoid": "beta0", "normalized-sigmoid": "beta0"}


def paper_start(model: DeclaredModel, layout: Layout, box: Box, n: int, rng, c: float = 1.0, gamma: float = 0.083):
    """The papers' start (module docstring) as a flat θ in ``layout``."""
    for name, value in (("init_scale", c), ("init_exponent", gamma)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise NumericError(param=name, value=value, reason="must be a finite number ≥ 0")
    delta = c * float(n) ** (-gamma)
    truth = model.truth()
    atoms = []
    for index, (part, declared) in enumerate(zip(layout.parts, model.declaration.parts)):
        true = truth.atoms[index]
        k_true = true.shape[0]
        owner = _owners(part, declared) if part.group_of else np.arange(part.k) % k_true
        copies = np.bincount(owner, minlength=k_true)[owner]
        theta = true[owner].copy()
        weight = _INTERCEPT.get(declared.gate.kind)
        kind = declared.gate.kind if declared.gate.kind != "top-k" else declared.gate.of
        weight_columns = [c for c, owner_name in enumerate(part.names) if owner_name == weight]
        for column in weight_columns:
            if kind == "constant":
                theta[:, column] /= copies
            elif kind in ("softmax", "laplace"):
                theta[:, column] -= np.log(copies)
            else:
                theta[:, column] = logit(expit(theta[:, column]) / copies)
        moved = [c for c in range(part.width) if c not in weight_columns]
        noise = rng.normal(0.0, delta, size=(part.k, len(moved))) if delta > 0 else np.zeros((part.k, len(moved)))
        for j, column in enumerate(moved):
            if part.variance and column == part.width - 1:
                theta[:, column] *= np.exp(noise[:, j])
            else:
                theta[:, column] += noise[:, j]
        atoms.append(theta)
    return box.clip(layout.pack(ModelParams(tuple(atoms), truth.shares)))


def _owners(part, declared) -> np.ndarray:
    """The true atom each fitted atom starts at, for a part with groups: fitted atom p of group g
    starts at true atom p mod k*_g of true group g mod G* (so a group's tied values are one group's)."""
    true_groups = np.asarray(declared.groups.of)
    members = [np.flatnonzero(true_groups == g) for g in range(declared.groups.count)]
    owner: list = []
    seen: dict[int, int] = {}
    for group in part.group_of:
        position = seen.get(group, 0)
        seen[group] = position + 1
        atoms = members[group % len(members)]
        owner.append(atoms[position % len(atoms)])
    return np.array(owner, dtype=int)


def broad_start(model: DeclaredModel, layout: Layout, box: Box, rng) -> np.ndarray:
    """A broad start (module docstring) as a flat θ in ``layout``."""
    theta = rng.uniform(box.lo, box.hi)
    params = layout.unpack(theta)
    atoms = []
    for part, declared, rows in zip(layout.parts, model.declaration.parts, params.atoms):
        rows = rows.copy()
        weight = _INTERCEPT.get(declared.gate.kind)
        for column, owner in enumerate(part.names):
            if owner == weight:
                rows[:, column] = 1.0 / part.k if declared.gate.kind == "constant" else 0.0
        atoms.append(rows)
    shares = np.full(len(layout.parts), 1.0 / len(layout.parts))
    return box.clip(layout.pack(ModelParams(tuple(atoms), shares)))
