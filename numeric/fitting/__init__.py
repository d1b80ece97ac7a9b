"""Fits of a declared model (:mod:`numeric.model`): EM and direct maximisation of the
likelihood, least squares, the box, the starts, and a fit's record (:func:`fit_declared`).

>>> from identcheck.declaration import read_example
>>> from numeric.fitting import fit_declared
>>> fit = fit_declared(read_example("softmax-gaussian-moe"), 2000, seed=0)
>>> fit.method, fit.objective >= fit.truth_objective, fit.worse_than_truth
('em', True, False)
"""

from .box import declared_box, fix_parameters
from .direct import DirectResult, maximise
from .em import EM_TOLERANCE, EMResult, em
from .fit import METHODS, DeclaredFit, fit_declared
from .gate_step import gate_step
from .least_squares import LeastSquaresResult, least_squares
from .starts import START_KINDS, broad_start, paper_start

__all__ = [
    "EM_TOLERANCE",
    "METHODS",
    "START_KINDS",
    "DeclaredFit",
    "DirectResult",
    "EMResult",
    "LeastSquaresResult",
    "broad_start",
    "declared_box",
    "em",
    "fit_declared",
    "fix_parameters",
    "gate_step",
    "least_squares",
    "maximise",
    "paper_start",
]
