"""How library errors spell a parameter → how the command line spells it.

Library errors name the API's parameters and echo the value (``jobs=0: must be from 1 to 64``);
the CLI rewrites them into the flags of the command that ran (``--jobs 0: must be from 1 to
64``), so that a command-line user reads the flag they typed. A command lists only the
parameters it exposes under another spelling; every other message passes unchanged (identcheck's
own messages, which name φ, in particular).

The other way round, the converters of numeric flags (:func:`positive_int` for counts, where 0 is
refused; :func:`non_negative_int` for ``--seed``; :func:`positive_float`) reject a bad value
before any library code runs, naming the flag and the value as typed.
"""

from __future__ import annotations

import argparse
import re

__all__ = ["FLAGS", "non_negative_int", "positive_float", "positive_int", "to_flags"]

_NO_STORE = (
    re.compile(r"^folder '(.*)': no fit store here \(run a grid into it first\)"),
    r"folder '\1': no fit store here (run `numeric reproduce --out \1` first)",
)

#: command → [(pattern, replacement)], applied in order (re.sub).
FLAGS = {
    "fit": [(re.compile(r"^n="), "--n=")],
    "reproduce": [
        (re.compile(r"^shard="), "--shard "),
        (re.compile(r"\ballow_weak_truth=True\b"), "--allow-weak-truth"),
    ],
    "ratio": [
        (re.compile(r"^r="), "--r "),
        (re.compile(r"^mc="), "--mc "),
        (re.compile(r"^ns\[\d+\]="), "--ns "),
        (re.compile(r"^K="), "--K "),
    ],
    "rates": [(re.compile(r"^quantity="), "--quantity "), _NO_STORE],
    "plot": [(re.compile(r"^quantity="), "--quantity "), _NO_STORE],
    "merge": [_NO_STORE],
    "confirm": [(re.compile(rf"^{name}="), f"--{name} ") for name in ("condition", "jobs", "mc", "out", "seed", "K")],
}


def to_flags(message: str, command: str | None) -> str:
    """``message`` with the parameters of ``command`` spelled as its flags."""
    for pattern, flag in FLAGS.get(command, ()):
        message = pattern.sub(flag, message)
    return message


def _int_from(flag, least: int):
    """The converter of an integer flag that must be >= ``least``."""

    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag}={text!r} is not an integer") from None
        if value < least:
            raise argparse.ArgumentTypeError(
                f"{flag}={value} must be " + ("a positive integer" if least == 1 else f">= {least}")
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
            raise argparse.ArgumentTypeError(f"{flag}={text!r} is not a number") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{flag}={text!r} must be a positive number")
        return value

    return convert
