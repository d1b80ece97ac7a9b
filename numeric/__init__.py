"""numeric: the paper's convergence-rate experiments for (gated) attention as an HMoE.

Models (2), (9), (12) with analytic Jacobians, synthetic data from a ground truth, Voronoi
losses, and least-squares fits inside a compact box, one fit at a time.
"""

from .data import sample
from .fit import OPTIMIZERS, Box, FitResult, fit, initial_params
from .measure_loss import measure_loss
from .models import MODELS, Model, get_model
from .params import HMoEParams, NumericError
from .truth import DEFAULT_TRUTH, Truth, load_truth
from .voronoi import voronoi_cells, voronoi_loss

__all__ = [
    "Box",
    "DEFAULT_TRUTH",
    "FitResult",
    "HMoEParams",
    "MODELS",
    "Model",
    "NumericError",
    "OPTIMIZERS",
    "Truth",
    "fit",
    "get_model",
    "initial_params",
    "load_truth",
    "measure_loss",
    "sample",
    "voronoi_cells",
    "voronoi_loss",
]
