"""``identcheck model MODEL``: the model-level check of a declared model (docs/model.md).

MODEL is a declaration file (``*.toml``, docs/declaration.md) or the name of a shipped example
(``deepseek-d2``; :data:`~identcheck.declaration.EXAMPLES`). The command is a thin shell over
:func:`~identcheck.model.check_declaration`: ``--order`` (r ≤ 8), ``--cells`` (m ≤ 4) and
``--seconds`` (the whole check's budget, shared among the atoms) are its parameters,
``--function NAME=TEXT`` replaces a declared function (``--function 'phi=exp(z)'``). Output: the
text report, ``--markdown`` (a row per atom) or ``--json``:
:meth:`~identcheck.model.DeclaredCheck.to_dict` with ``"schema": "identcheck.model/4"``.

Bad input — a declaration that does not parse, r or m out of range, a gate or expert the check
refuses (with its one-line reason) — is one line on stderr, exit 2, nothing on stdout: every
atom is built before any is checked, and nothing is printed before the last check ends.

Imports nothing heavy at import time (``identcheck --help`` stays light).
"""

from __future__ import annotations

import argparse
import json
import os
import re

from ..errors import IdentcheckError

__all__ = ["ORDER", "CELLS", "SECONDS", "add_model_parser", "run_model"]

ORDER = 4
CELLS = 2
SECONDS = 240.0
SHOWN = 80  # characters, at most, of a value an error message echoes
ARGUMENT_NAMES = ("model_file", "model")  # the library's names for the MODEL argument
QUOTED = re.compile(r"'[^'\n]{%d,}'" % (SHOWN + 1))  # a quoted value too long to echo whole


def add_model_parser(sub) -> argparse.ArgumentParser:
    """Register ``model`` and its flags on the subcommands ``sub``."""
    parser = sub.add_parser(
        "model",
        help="the model-level check of a declared model: Taylor terms, coefficient systems, r̄(m), exponents",
        description="Check a declared mixture of experts at the model level (docs/model.md): each true atom's "
        "Taylor terms reduced to a basis with proved relations, the exact-fitted test, the coefficient "
        "systems of Voronoi cells of up to --cells atoms to order --order, r̄(m) and the per-parameter exponents.",
    )
    parser.add_argument("model", metavar="MODEL", help="a declaration (FILE.toml) or a shipped example's name")
    parser.add_argument(
        "--order",
        dest="max_order",
        type=_number(int, "--order"),
        default=ORDER,
        help=f"highest Taylor order r, 1..8 (default {ORDER})",
    )
    parser.add_argument(
        "--cells",
        dest="max_cell",
        type=_number(int, "--cells"),
        default=CELLS,
        help=f"largest cell size m, 1..4 (default {CELLS})",
    )
    parser.add_argument(
        "--seconds",
        type=_number(float, "--seconds"),
        default=SECONDS,
        help=(
            f"the whole model check's time budget in seconds, shared among its atoms (default {SECONDS:g});"
            " what does not finish is inconclusive"
        ),
    )
    parser.add_argument(
        "--function",
        dest="functions",
        action="append",
        default=[],
        metavar="NAME=TEXT",
        help="replace a declared function, e.g. 'phi=exp(z)' (repeatable)",
    )
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the result as JSON (schema identcheck.model/4)")
    output.add_argument("--markdown", action="store_true", help="print a markdown table, a row per atom")
    return parser


def _number(kind, flag):
    def convert(text):
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag} {text!r}: not {'an integer' if kind is int else 'a number'}")

    return convert


def read_model(model: str, functions: dict | None = None):
    """The declaration MODEL names: a file when it exists or ends in ``.toml``, else a shipped example.
    An error about the file or the name names the argument as the command line does, ``MODEL '…'``."""
    from ..declaration import read_declaration, read_example

    try:
        if model.endswith(".toml") or os.path.exists(model):
            return read_declaration(model, functions)
        return read_example(model, functions)
    except IdentcheckError as exc:
        if exc.param not in ARGUMENT_NAMES or exc.subject is None:
            raise
        raise IdentcheckError(f"MODEL {_cut(exc.subject.text)}: {exc.reason}") from None


def _cut(text: str, width: int | None = None) -> str:
    """``text`` on one line, at most ``width`` (:data:`SHOWN`) characters: the middle cut with an
    ellipsis, a quoted value keeping its closing quote."""
    width = SHOWN if width is None else width
    text = " ".join(text.split())
    if len(text) <= width:
        return text
    quote = text[-1] if text[-1] in "'\"" and text[0] == text[-1] else ""
    return text[: width - 1 - len(quote)] + "…" + quote


def _quoted(match: re.Match) -> str:
    return _cut(match.group(0))


def one_line(exc: IdentcheckError) -> IdentcheckError:
    """``exc`` with every value it echoes on one line and at most :data:`SHOWN` characters (a long
    expert or function text cut with an ellipsis); the reason's own words are kept."""
    parts = [" ".join(p.split()) if isinstance(p, str) else p for p in exc.parts]
    if exc.subject is None:
        if not all(isinstance(p, str) for p in parts):
            return exc
        return IdentcheckError(QUOTED.sub(_quoted, "".join(parts)))
    s = exc.subject
    reason = tuple(QUOTED.sub(_quoted, p) if isinstance(p, str) else p for p in parts)
    return IdentcheckError(param=s.name, key=s.key, index=s.index, shown=_cut(s.text), reason=reason, value=s.value)


def _functions(texts: list[str]) -> dict | None:
    out = {}
    for text in texts:
        name, equals, value = text.partition("=")
        if not equals or not name.strip() or not value.strip():
            raise IdentcheckError(f"--function {text!r}: expects NAME=TEXT, e.g. 'phi=exp(z)'")
        out[name.strip()] = value.strip()
    return out or None


def run_model(args) -> int:
    """The ``model`` command: check, then print the report."""
    from ..model import check_declaration
    from ..model.text import SCHEMA, declared_markdown, declared_text

    if not args.seconds > 0:
        raise IdentcheckError(f"--seconds {args.seconds:g}: must be positive")
    try:
        declaration = read_model(args.model, _functions(args.functions))
        result = check_declaration(declaration, max_order=args.max_order, max_cell=args.max_cell, seconds=args.seconds)
    except IdentcheckError as exc:
        raise one_line(exc) from None
    if args.json:
        print(json.dumps({"schema": SCHEMA} | result.to_dict(), indent=2, ensure_ascii=False))
    elif args.markdown:
        print(declared_markdown(result))
    else:
        print(declared_text(result))
    return 0
