"""The project's one exception type for bad input."""

__all__ = ["IdentcheckError"]


class IdentcheckError(ValueError):
    """Bad input: the message names the input, echoes its value and says why.

    The CLI turns it into a one-line error on stderr and exit code 2.
    """
