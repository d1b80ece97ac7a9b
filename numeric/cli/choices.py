"""The names the command line offers, in a module that imports nothing: ``numeric --help`` lists
them without loading numpy, scipy or sympy. The modules that implement them import them from here
(:mod:`~numeric.model.attention`, :mod:`~numeric.fitting.optimizers`)."""

__all__ = ["GD_OBJECTIVES", "MODELS", "OPTIMIZERS"]

#: The models: plain multi-head attention (the paper's model (2)), the gate after the value
#: projection (Setting I, model (9)) and after the attention output (Setting II, model (12)).
MODELS = ("mha", "gated1", "gated2")  # (2), (9), (12)
#: The optimisers: the paper's projected gradient descent, projected Levenberg–Marquardt, and
#: scipy's trust-region reflective least squares.
OPTIMIZERS = ("gd", "lm", "trf")
GD_OBJECTIVES = ("mean", "sum")
