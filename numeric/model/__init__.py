"""The array code of a declared mixture of experts (:mod:`identcheck.declaration`): gates, experts
compiled from their sympy expressions with exact derivatives, the Gaussian mixture's
log-likelihood and the regression's Jacobian, and data from the truth.

>>> from identcheck.declaration import read_example
>>> from numeric.model import compile_model, sample_declared, log_likelihood
>>> model = compile_model(read_example("deepseek-d2"))
>>> X, Y = sample_declared(model, 1000, seed=0)
>>> round(log_likelihood(model.layout(False), model.truth(), X, Y) / 1000, 3)  # ℓ/n of the truth
-1.748
"""

from .density import CHUNK, log_likelihood, log_likelihood_and_gradient, posteriors
from .experts import ExpertCode, compile_expert
from .gates import GateCode, GateValues, contract, per_row
from .layout import DeclaredModel, Layout, ModelParams, PartLayout, compile_model, part_values
from .regression import jacobian, normal_equations, regression_function
from .simulate import MAX_N, sample_declared

__all__ = [
    "CHUNK",
    "MAX_N",
    "DeclaredModel",
    "ExpertCode",
    "GateCode",
    "GateValues",
    "Layout",
    "ModelParams",
    "PartLayout",
    "compile_expert",
    "compile_model",
    "contract",
    "jacobian",
    "log_likelihood",
    "log_likelihood_and_gradient",
    "normal_equations",
    "part_values",
    "per_row",
    "posteriors",
    "regression_function",
    "sample_declared",
]
