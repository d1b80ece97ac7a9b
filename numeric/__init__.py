"""numeric: the paper's convergence-rate experiments for (gated) attention as an HMoE.

Models (2), (9), (12) with analytic Jacobians, synthetic data from a ground truth, Voronoi
losses, and least-squares fits inside a compact box, one fit at a time.
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    from .choices import MODELS, OPTIMIZERS
    from .data import sample
    from .errors import NumericError
    from .fit import Box, FitResult, fit, initial_params
    from .measure_loss import measure_loss
    from .models import Model, get_model
    from .params import HMoEParams
    from .truth import DEFAULT_TRUTH, Truth, load_truth
    from .voronoi import voronoi_cells, voronoi_loss

#: Public name → the module that defines it. ``import numeric`` loads none of them (``numeric
#: --help`` starts without numpy, scipy or sympy); a name is imported the first time it is used,
#: ``from numeric import fit`` as before (issue 23 §5; identcheck/__init__.py does the same).
_API = {
    **dict.fromkeys(("MODELS", "OPTIMIZERS"), ".choices"),
    "sample": ".data",
    **dict.fromkeys(("Box", "FitResult", "fit", "initial_params"), ".fit"),
    "measure_loss": ".measure_loss",
    **dict.fromkeys(("Model", "get_model"), ".models"),
    "NumericError": ".errors",
    "HMoEParams": ".params",
    **dict.fromkeys(("DEFAULT_TRUTH", "Truth", "load_truth"), ".truth"),
    **dict.fromkeys(("voronoi_cells", "voronoi_loss"), ".voronoi"),
}
#: Names that are also their module's name (``numeric.fit``): the function, not the submodule.
_SHADOWED = frozenset(name for name, module in _API.items() if module == "." + name)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name], __name__), name)
    globals()[name] = value  # imported once
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))


class _Package(types.ModuleType):
    """``numeric.fit`` and ``numeric.measure_loss`` are the functions, as they were when this module
    imported them eagerly: the import system binds a submodule to its package when it loads it,
    and here it does not, for the names in _SHADOWED."""

    def __setattr__(self, name, value):
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

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
