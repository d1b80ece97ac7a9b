"""The names the command line offers, in a module that imports only the registry of shipped models
(:mod:`numeric.shipped`, which imports only the error types): ``numeric --help`` lists them without loading numpy,
scipy or sympy. The modules that implement them import them from here
(:mod:`~numeric.model.attention`, :mod:`~numeric.fitting.optimizers`)."""

from ..shipped import SHIPPED

__all__ = ["GD_OBJECTIVES", "MODELS", "OPTIMIZERS"]

#: The models: plain multi-head attention (the paper's model (2)), the gate after the value
#: projection (Setting I, model (9)) and after the attention output (Setting II, model (12)).
MODELS = tuple(SHIPPED)  # (2), (9), (12)
#: The optimisers: the paper's projected gradient descent, projected Levenberg–Marquardt, and
#: scipy's trust-region reflective least squares.
OPTIMIZERS = ("gd", "lm", "trf")
GD_OBJECTIVES = ("mean", "sum")
