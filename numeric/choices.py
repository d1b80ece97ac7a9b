"""The names the command line offers, in a module that imports nothing: ``numeric --help`` lists
them without loading numpy, scipy or sympy. The modules that implement them import them from here
(:mod:`~numeric.models`, :mod:`~numeric.optimizers`)."""

__all__ = ["GD_OBJECTIVES", "MODELS", "OPTIMIZERS"]

MODELS = ("mha", "gated1", "gated2")  # (2), (9), (12)
OPTIMIZERS = ("gd", "lm", "trf")
GD_OBJECTIVES = ("mean", "sum")
