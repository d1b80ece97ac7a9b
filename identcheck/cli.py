"""Command line: ``identcheck check PHI [PHI ...]`` — a thin shell over :func:`identcheck.check`.

Exit codes: 0 the checks ran (whatever the verdicts), 2 bad input (one line on stderr, nothing
on stdout), 1 internal error, 130 interrupted.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys

from .activation import parse_activation, parse_param
from .check import CONDITIONS, check
from .errors import IdentcheckError
from .terms import MAX_DIM

PAPER_EXAMPLES = ["z", "sigmoid(z + 1)"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        raise IdentcheckError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="identcheck",
        description="Is a gate activation phi strongly identifiable (gated attention as a hierarchical MoE)?",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    c = sub.add_parser("check", help="check activations", description="Check activations phi(z).")
    c.add_argument("phi", nargs="*", help="activations in z, e.g. 'sigmoid(z + 1)' (default: the paper's examples z and sigmoid(z + 1))")
    c.add_argument(
        "--condition",
        default="type1",
        help="type1 (Setting I), type2 (Setting II), both, or mha (no gate: the linear expert; takes no PHI). Default type1",
    )
    c.add_argument("--dim", type=_int("--dim"), default=2, help=f"input dimension d, 1..{MAX_DIM} (default 2)")
    c.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="value of a named constant in phi (repeatable)")
    c.add_argument("--seed", type=_int("--seed"), default=0, help="seed for probes and sample points (default 0)")
    c.add_argument("--points-per-term", type=_int("--points-per-term"), default=4, help="sample points per column (default 4)")
    c.add_argument("--include-zero", action="store_true", help="also probe a = 0 (a relation there holds for every phi; reported, not counted)")
    c.add_argument("--gates", type=_int("--gates"), default=2, help="type2: gating matrices N per head, the last fixed at 0 (default 2)")
    c.add_argument("--channels", type=_int("--channels"), default=2, help="type2: channels K per head (default 2)")
    c.add_argument("--mixed-products", action="store_true", help="type2: add the mixed u·v second-order products (an extension beyond the paper's set)")
    c.add_argument("--json", action="store_true", help="print one JSON array, one object per (phi, condition)")
    return parser


def _int(flag):
    def convert(text):
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag}={text!r} is not an integer") from None

    return convert


def main(argv=None) -> int:
    try:
        return _run(argv)
    except IdentcheckError as exc:
        print(f"identcheck: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("identcheck: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so in one line, keep the exit code distinct
        print(f"identcheck: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def _run(argv) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "check":
        build_parser().print_help()
        return 2 if args.command is None and argv else 0
    choices = (*CONDITIONS, "both")
    if args.condition not in choices:
        close = difflib.get_close_matches(args.condition, choices, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise IdentcheckError(f"--condition={args.condition!r} is unknown{hint}; available: {', '.join(choices)}")
    conditions = ("type1", "type2") if args.condition == "both" else (args.condition,)
    params = dict(parse_param(p) for p in args.param)
    if args.condition == "mha" and args.phi:
        raise IdentcheckError("--condition mha takes no PHI: the expert is linear (that is the point of the contrast)")
    if args.condition != "mha" and args.condition != "type1" and args.include_zero:
        raise IdentcheckError("--include-zero applies to type1 and mha only")
    phis = ["z"] if args.condition == "mha" else (args.phi or PAPER_EXAMPLES)
    for phi in phis:  # validate every input before any output
        parse_activation(phi, params)
    unused = [name for name in params if not any(_mentions(phi, name) for phi in phis)]
    if unused:
        raise IdentcheckError(f"--param {unused[0]}: no phi uses {unused[0]!r}")
    if "type2" in conditions:
        from .type2 import type2_term_set

        type2_term_set(args.dim, args.gates, args.channels, args.mixed_products)  # validates the head shape
    show_progress = sys.stderr.isatty() and not args.json
    results = []
    jobs = [(phi, condition) for phi in phis for condition in conditions]
    for i, (phi, condition) in enumerate(jobs):
        progress = _progress(i, len(jobs), f"{phi} [{condition}]") if show_progress else None
        result = check(
            phi,
            condition=condition,
            dim=args.dim,
            params=params,
            seed=args.seed,
            include_zero=args.include_zero,
            points_per_term=args.points_per_term,
            progress=progress,
            n_gates=args.gates,
            n_channels=args.channels,
            mixed_products=args.mixed_products,
        )
        if show_progress:
            print("\r\033[K", end="", file=sys.stderr)
        results.append(result)
        if not args.json:
            print(result.to_text())
            if i + 1 < len(jobs):
                print()
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False))
    return 0


def _mentions(phi: str, name: str) -> bool:
    import re

    return re.search(rf"\b{re.escape(name)}\b", phi) is not None


def _progress(i, total, phi):
    def report(done, n_probes, name):
        print(f"\r\033[Kphi {i + 1}/{total} {phi!r}: probe {done}/{n_probes} ({name})", end="", file=sys.stderr, flush=True)

    return report


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
