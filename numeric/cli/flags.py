"""The converters of numeric's flags: :func:`positive_int` for counts, where 0 is refused;
:func:`non_negative_int` for ``--seed``; :func:`positive_float`. They reject a bad value before
any library code runs, naming the flag and the value as typed, as every error reads: ``--n 0: must be a
positive integer`` (argparse's ``argument --n:`` prefix is dropped, :class:`identcheck.cli.common.SuggestingParser`).

(The other way round — a library error naming an API parameter, ``jobs=0: must be from 1 to 64``,
read as the flag the user typed, ``--jobs 0: ...`` — is :func:`identcheck.cli.common.render_error`,
which finds the flag in the command's parser.)
"""

from __future__ import annotations

import argparse

__all__ = ["add_param_flag", "non_negative_int", "positive_float", "positive_int"]


def _int_from(flag, least: int):
    """The converter of an integer flag that must be >= ``least``."""

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not an integer") from None
        if value < least:
            raise argparse.ArgumentTypeError(
                f"{flag} {value}: must be " + ("a positive integer" if least == 1 else f">= {least}")
            )
        return value

    return convert


def positive_int(flag):
    """A count (--n, --K, --reps, --jobs, ...): 0 is refused."""
    return _int_from(flag, 1)


def non_negative_int(flag):
    """--seed: 0 is valid (the default)."""
    return _int_from(flag, 0)


def positive_float(flag):
    def convert(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not a number") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: must be a positive number")
        return value

    return convert


def add_param_flag(parser) -> None:
    """``--param NAME=VALUE`` (repeatable, into ``params``): a named constant of PHI, as every numeric
    command that takes PHI spells it."""
    parser.add_argument(
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of a named constant in PHI (repeatable)",
    )
