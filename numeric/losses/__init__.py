"""The declared losses of a fit (:mod:`identcheck.declaration.loss`): Voronoi cells by the nearest
target atom up to the declared symmetries, the Voronoi loss with its cell weights and exponents,
and per-parameter errors."""

from .cells import assign, reanchor, shift_invariant_names
from .parameter_errors import ParameterErrors, parameter_errors
from .voronoi import PartLossValue, VoronoiLoss, target_atoms, voronoi_loss

__all__ = [
    "ParameterErrors",
    "PartLossValue",
    "VoronoiLoss",
    "assign",
    "parameter_errors",
    "reanchor",
    "shift_invariant_names",
    "target_atoms",
    "voronoi_loss",
]
