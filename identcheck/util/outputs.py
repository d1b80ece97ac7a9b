"""Where output may go: the one policy for every path a command or a figure writer is given.

Every flag that names where to write (``identcheck scan --plot``,
``identcheck catalog --out``, ``numeric reproduce --out``, ``numeric merge OUT``, ``numeric confirm
--out``), checked before any work:

- a file: its folder must exist and be writable; the path itself must not be a folder;
- a folder: an existing folder is accepted (empty, or holding what the command wrote there
  before); a new one is created only as a leaf under an existing, writable parent; a file in its
  place is refused.

A missing parent is a one-line error (exit 2): a typo in a path never creates a tree of folders.
A command's own *default* folder (``out/reproduce``, ``confirm-out/<phi>-<condition>``) is not a
path the user typed, and its parents are created (``default=True``).

Shared by both command lines (they import it from here) and the figure writers
(:mod:`identcheck.scan.plot`); it imports nothing but the error type, so it sits below all of them.
"""

from __future__ import annotations

import os

from ..errors import IdentcheckError

__all__ = ["check_output_path"]


def check_output_path(
    path,
    flag: str,
    *,
    folder: bool = False,
    suffix: str | None = None,
    default: bool = False,
    error: type[ValueError] = IdentcheckError,
) -> None:
    """Refuse an output path that this module's policy does not accept (``error``, one line naming ``flag``).

    Parameters
    ----------
    path : str or os.PathLike
        Where the command will write.
    flag : str
        How the user gave it (``'--plot'``, ``'OUT'``), for the message.
    folder : bool
        The path is a folder the command writes into (else a file).
    suffix : str, optional
        A file's required extension (``'.png'``).
    default : bool
        The path is the command's default, not typed by the user: its parents may be created.
    error : exception type
        The command line's exception for bad input (``IdentcheckError``, ``NumericError``).
    """
    text = os.fspath(path)
    shown = f"{flag} {text!r}"
    if not text:
        raise error(f"{flag}: empty path")
    if suffix is not None and not text.lower().endswith(suffix):
        raise error(f"{shown}: give a {suffix} file name")
    parent = os.path.dirname(os.path.abspath(text))
    if folder:
        if os.path.isdir(text):
            if not os.access(text, os.W_OK | os.X_OK):
                raise error(f"{shown}: folder is not writable")
            return
        if os.path.exists(text):
            raise error(f"{shown} is a file, not a folder")
        if default:
            return
        if not os.path.isdir(parent):
            raise error(
                f"{shown}: folder {parent!r} does not exist (a new output folder is made only inside an existing one)"
            )
        if not os.access(parent, os.W_OK | os.X_OK):
            raise error(f"{shown}: folder {parent!r} is not writable")
        return
    if os.path.isdir(text):
        raise error(f"{shown} is a folder; give a file name")
    if not os.path.isdir(parent):
        raise error(f"{shown}: folder {parent!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise error(f"{shown}: folder {parent!r} is not writable")
