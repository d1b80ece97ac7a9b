"""numeric: the paper's convergence-rate experiments for (gated) attention as an HMoE.

Models (2), (9), (12) with analytic Jacobians, synthetic data from a ground truth, Voronoi
losses, and least-squares fits inside a compact box, one fit at a time; and any declared mixture
of experts (:mod:`identcheck.declaration`): its array code (``numeric.model``), maximum-likelihood
and least-squares fits (``numeric.fitting``) and declared losses (``numeric.losses``).
"""

from typing import TYPE_CHECKING

from identcheck.util.lazy import lazy_package
from identcheck.util.version import project_version

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    __version__: str  # identcheck's: one distribution ships both packages (identcheck.util.version)
    from .cli.choices import MODELS, OPTIMIZERS
    from .errors import NumericError
    from .experiments.data import sample
    from .fitting import DeclaredFit, fit_declared
    from .fitting.attention_fit import Box, FitResult, fit, initial_params
    from .losses.attention_voronoi import voronoi_cells, voronoi_loss
    from .losses.measure import measure_loss
    from .model import compile_model, sample_declared
    from .model.attention import Model, get_model
    from .model.attention_params import HMoEParams
    from .model.attention_truth import DEFAULT_TRUTH, Truth, load_truth

#: Public name → the module that defines it. ``import numeric`` loads none of them (``numeric
#: --help`` starts without numpy, scipy or sympy); a name is imported the first time it is used,
#: and ``from numeric import fit`` works (the mechanism: identcheck.util.lazy).
_API = {
    **dict.fromkeys(("MODELS", "OPTIMIZERS"), ".cli.choices"),
    "sample": ".experiments.data",
    **dict.fromkeys(("Box", "FitResult", "fit", "initial_params"), ".fitting.attention_fit"),
    "measure_loss": ".losses.measure",
    **dict.fromkeys(("DeclaredFit", "fit_declared"), ".fitting"),
    **dict.fromkeys(("compile_model", "sample_declared"), ".model"),
    **dict.fromkeys(("Model", "get_model"), ".model.attention"),
    "NumericError": ".errors",
    "HMoEParams": ".model.attention_params",
    **dict.fromkeys(("DEFAULT_TRUTH", "Truth", "load_truth"), ".model.attention_truth"),
    **dict.fromkeys(("voronoi_cells", "voronoi_loss"), ".losses.attention_voronoi"),
}
lazy_package(__name__, _API, computed={"__version__": project_version})

__all__ = [
    "Box",
    "DeclaredFit",
    "DEFAULT_TRUTH",
    "FitResult",
    "HMoEParams",
    "MODELS",
    "Model",
    "NumericError",
    "OPTIMIZERS",
    "Truth",
    "compile_model",
    "fit",
    "fit_declared",
    "get_model",
    "initial_params",
    "load_truth",
    "measure_loss",
    "sample",
    "sample_declared",
    "voronoi_cells",
    "voronoi_loss",
]
