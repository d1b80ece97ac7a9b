"""What both command lines (``identcheck``, ``numeric``) share: where output may go, and a parser
that suggests the flag or command the user meant.

**Output paths — one policy for every flag that names where to write** (``identcheck scan --plot``,
``identcheck catalog --out``, ``numeric reproduce --out``, ``numeric merge OUT``, ``numeric confirm
--out``), checked before any work:

- a file: its folder must exist and be writable; the path itself must not be a folder;
- a folder: an existing folder is accepted (empty, or holding what the command wrote there
  before); a new one is created only as a leaf under an existing, writable parent; a file in its
  place is refused.

A missing parent is a one-line error (exit 2): a typo in a path never creates a tree of folders.
A command's own *default* folder (``out/reproduce``, ``confirm-out/<phi>-<condition>``) is not a
path the user typed, and its parents are created (``default=True``).

**Flags**: :class:`SuggestingParser` raises the command line's one exception type on every argparse
error, and refuses an unknown flag or command with the closest known one (``difflib``), as every
other error of both command lines does: ``unknown flag --condtion (did you mean --condition?)``.
Imports nothing heavy: ``--help`` and a mistyped flag answer at once.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys

from .errors import IdentcheckError

__all__ = ["SuggestingParser", "check_output_path"]


def check_output_path(
    path,
    flag: str,
    *,
    folder: bool = False,
    suffix: str | None = None,
    default: bool = False,
    error: type[ValueError] = IdentcheckError,
) -> None:
    """Refuse an output path that the policy above does not accept (``error``, one line naming ``flag``).

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


class SuggestingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that raises :attr:`error_type` (one line, exit 2 in the CLI) and suggests.

    Before argparse reads the arguments, a parser with subcommands checks the command name, and a
    command's parser checks each ``--flag`` against its own flags (argparse's unambiguous prefixes
    stay accepted); an unknown one is refused with the closest match.
    """

    error_type: type[ValueError] = IdentcheckError

    def error(self, message):
        raise self.error_type(message)

    def parse_known_args(self, args=None, namespace=None):
        arguments = list(sys.argv[1:] if args is None else args)
        self._suggest(arguments)
        return super().parse_known_args(arguments, namespace)

    def _suggest(self, arguments) -> None:
        commands = next((a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)
        known = sorted({o for a in self._actions for o in a.option_strings if o.startswith("--")})
        if commands is not None:  # the command's own parser checks the flags after the command
            position = next((i for i, a in enumerate(arguments) if not a.startswith("-")), len(arguments))
            self._check_flags(arguments[:position], known)
            if position < len(arguments) and arguments[position] not in commands:
                command = arguments[position]
                close = difflib.get_close_matches(command, list(commands), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise self.error_type(f"{command!r} is not a command{hint}; commands: {', '.join(commands)}")
            return
        self._check_flags(arguments, known)

    def _check_flags(self, arguments, known) -> None:
        for token in arguments:
            if token == "--":
                break
            if not token.startswith("--"):
                continue
            name = token.partition("=")[0]
            if name in known or any(o.startswith(name) for o in known):
                continue
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise self.error_type(f"unknown flag {name}{hint}; see {self.prog} --help")
