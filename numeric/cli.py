"""Command line: ``numeric fit ...`` — a thin shell over :func:`numeric.fit`.

Exit codes: 0 ran, 2 bad input (one line on stderr, nothing on stdout), 1 internal error,
130 interrupted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from .fit import OPTIMIZERS
from .models import MODELS
from .params import NumericError


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise NumericError(message)


def _positive_int(flag):
    def convert(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag}={text!r} is not an integer") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{flag}={text!r} must be >= 0")
        return value

    return convert


def _positive_float(flag):
    def convert(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag}={text!r} is not a number") from None
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"{flag}={text!r} must be a positive number")
        return value

    return convert


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="numeric", description="Convergence-rate experiments for gated attention as an HMoE.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    f = sub.add_parser("fit", help="one least-squares fit", description="Generate data from the truth, fit, evaluate.")
    f.add_argument("--model", required=True, choices=MODELS)
    f.add_argument("--K", type=_positive_int("--K"), default=3, help="channels per head of the fitted model (default 3)")
    f.add_argument("--n", type=_positive_int("--n"), default=10_000, help="sample size (default 10000)")
    f.add_argument("--seed", type=_positive_int("--seed"), default=0)
    f.add_argument("--optimizer", choices=OPTIMIZERS, default="lm", help="gd: the paper's protocol; lm: trust-region least squares (default)")
    f.add_argument("--truth", default=None, help="ground-truth JSON file (default: the shipped truths/default.json)")
    f.add_argument("--box", type=_positive_float("--box"), default=2.0, help="box size relative to the truth (default 2)")
    f.add_argument("--init", choices=("paper", "fixed"), default="paper", help="perturbation n^-0.083 (paper) or --init-scale (fixed)")
    f.add_argument("--init-scale", type=_positive_float("--init-scale"), default=0.1)
    f.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv=None) -> int:
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # one fit, one thread: see docs/numeric.md
    try:
        return _run(argv)
    except NumericError as exc:
        print(f"numeric: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("numeric: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        print(f"numeric: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


def _run(argv) -> int:
    args = build_parser().parse_args(argv)
    if args.command != "fit":
        build_parser().print_help()
        return 0
    from .fit import fit
    from .truth import load_truth

    if args.n < 1:
        raise NumericError(f"--n={args.n}: must be >= 1")
    truth = load_truth(args.truth)
    result = fit(
        args.model, args.K, args.n, seed=args.seed, optimizer=args.optimizer, truth=truth,
        box_factor=args.box, init=args.init, init_scale=args.init_scale,
    )
    data = result.to_dict()
    data["truth"] = truth.source
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(
            f"{result.model} K={result.K} n={result.n} seed={result.seed} optimizer={result.optimizer}\n"
            f"  training MSE {result.mse:.6g}  (truth on the same data {result.truth_mse:.6g})\n"
            f"  Voronoi loss {result.loss_kind} {result.voronoi_loss:.6g}\n"
            f"  iterations {result.iterations}, converged {result.converged}, {result.seconds:.2f} s\n"
            f"  box: {result.box}; parameters on a bound: {result.active_bounds}\n"
            f"  init: {result.init}; truth: {truth.name} ({truth.source})"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
