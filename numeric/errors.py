"""The numeric half's one exception type for bad input (a module that imports nothing: the
command line raises it while reading flags, before numpy is loaded)."""

__all__ = ["NumericError"]


class NumericError(ValueError):
    """Bad input for the numeric half: the message names the input and why."""
