"""The numeric half's exception types for bad input (a module that imports only identcheck's
``errors``, which imports nothing: the command line raises them while reading flags, before numpy
is loaded)."""

from identcheck.errors import InputError, Param

__all__ = ["NoFitStore", "NumericError", "Param"]


class NumericError(InputError):
    """Bad input for the numeric half: the message names the input and why
    (``NumericError(param="jobs", value=0, reason="must be from 1 to 64")``; see
    :class:`identcheck.errors.InputError`)."""


class NoFitStore(NumericError):
    """A folder that holds no fit store (``read_records``, ``merge_stores``' sources); ``folder`` is
    the path as given. The command line adds how to make one (``numeric reproduce --out``)."""

    def __init__(self, folder: str):
        super().__init__(f"folder {folder!r}: no fit store here (run a grid into it first)")
        self.folder = folder

    def __reduce__(self):
        return (type(self), (self.folder,))
