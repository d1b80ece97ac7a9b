r"""The box Θ of a declared fit: bounds lo ≤ θ ≤ hi on the flat vector of :mod:`numeric.model.layout`.

For a declared parameter a (all its columns, all atoms) with truth values θ*_a:

    θ_a ∈ [−F·m_a, F·m_a],   m_a = max(max |θ*_a|, 1)                     (gate and expert parameters)
    ν   ∈ [ν_floor, F·max ν*]                                              (a density's variances)
    ω   ∈ [0, 1] in a density (weights normalised, :mod:`numeric.model.gates`), [0, F·max ω*] otherwise
    u   ∈ [0, 1]                                                           (free part shares)

with F = ``factor`` (2 by default). A constant gate with ``weights = "fixed"`` has lo = hi: its
weights stay at the start's (the truth's weights split over the fitted atoms,
:mod:`numeric.fitting.starts`). The box is part of the estimator (docs/method.md §10 says why); it is
reported with every fit, with the parameters that end on a bound.
"""

from __future__ import annotations

import numpy as np

from ..errors import NumericError
from ..model import DeclaredModel, Layout
from .attention_box import Box

__all__ = ["declared_box", "fix_parameters"]


def declared_box(model: DeclaredModel, layout: Layout, factor: float = 2.0) -> Box:
    """The box of a fit in ``layout`` (module docstring)."""
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or not np.isfinite(factor) or factor <= 0:
        raise NumericError(param="box_factor", value=factor, reason="must be a positive number")
    truth = model.truth()
    floor = model.declaration.noise.variance_floor
    lo, hi, text = [], [], []
    for index, part in enumerate(layout.parts):
        true = truth.atoms[index]
        part_lo, part_hi = np.empty(part.width), np.empty(part.width)
        for name in dict.fromkeys(part.names):
            columns = [c for c, owner in enumerate(part.names) if owner == name]
            largest = float(np.abs(true[:, columns]).max())
            if part.variance and columns == [part.width - 1]:
                bounds = (floor, factor * largest)
            elif name == "omega":
                bounds = (0.0, 1.0) if layout.density else (0.0, factor * largest)
            else:
                bounds = (-factor * max(largest, 1.0), factor * max(largest, 1.0))
            part_lo[columns], part_hi[columns] = bounds
            text.append(f"{part.name}.{name} in [{bounds[0]:g}, {bounds[1]:g}]")
        lo.append(part.flat(np.tile(part_lo, (part.k, 1))))
        hi.append(part.flat(np.tile(part_hi, (part.k, 1))))
    if layout.free_shares:
        lo.append(np.zeros(len(layout.parts)))
        hi.append(np.ones(len(layout.parts)))
        text.append("shares in [0, 1]")
    return Box(np.concatenate(lo), np.concatenate(hi), "; ".join(text) + f" (factor {factor:g})")


def fix_parameters(model: DeclaredModel, layout: Layout, box: Box, theta: np.ndarray) -> Box:
    """``box`` with lo = hi = θ on the parameters the declaration fixes (constant weights ``fixed``)."""
    lo, hi = box.lo.copy(), box.hi.copy()
    for part, declared in zip(layout.parts, model.declaration.parts):
        if declared.gate.kind == "constant" and declared.gate.weights == "fixed":
            index = part.indices(0)  # ω is the gate's only column
            lo[index] = hi[index] = theta[index]
    return Box(lo, hi, box.description)
