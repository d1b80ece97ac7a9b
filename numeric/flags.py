"""How library errors spell a parameter → how the command line spells it.

Library errors name the API's parameters and echo the value (``jobs=0: must be from 1 to 64``);
the CLI rewrites them into the flags of the command that ran (``--jobs 0: must be from 1 to
64``), so that a command-line user reads the flag they typed. A command lists only the
parameters it exposes under another spelling; every other message passes unchanged (identcheck's
own messages, which name φ, in particular).
"""

from __future__ import annotations

import re

__all__ = ["FLAGS", "to_flags"]

_NO_STORE = (re.compile(r"^folder '(.*)': no fit store here \(run a grid into it first\)"), r"folder '\1': no fit store here (run `numeric reproduce --out \1` first)")

#: command → [(pattern, replacement)], applied in order (re.sub).
FLAGS = {
    "fit": [(re.compile(r"^n="), "--n=")],
    "reproduce": [(re.compile(r"^shard="), "--shard "), (re.compile(r"\ballow_weak_truth=True\b"), "--allow-weak-truth")],
    "ratio": [(re.compile(r"^r="), "--r "), (re.compile(r"^mc="), "--mc "), (re.compile(r"^ns\[\d+\]="), "--ns "), (re.compile(r"^K="), "--K ")],
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
