"""Command line: ``numeric fit ...`` — a thin shell over :func:`numeric.fit`.

Exit codes: 0 ran, 2 bad input (one line on stderr, nothing on stdout), 1 internal error,
130 interrupted.
"""

from __future__ import annotations

import argparse
import json
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
    r = sub.add_parser("reproduce", help="the paper's grid of fits, resumable", description="Run the grid; finished fits are stored and skipped on rerun.")
    r.add_argument("--models", nargs="+", default=list(MODELS), metavar="MODEL")
    r.add_argument("--K", nargs="+", type=_positive_int("--K"), default=[3, 4], dest="Ks", metavar="K")
    r.add_argument("--sizes", nargs="+", type=_positive_int("--sizes"), default=None, metavar="N", help="default: 10 sizes from 1e4 to 1e5")
    r.add_argument("--reps", type=_positive_int("--reps"), default=10)
    r.add_argument("--optimizer", choices=OPTIMIZERS, default="lm")
    r.add_argument("--init", choices=("paper", "fixed"), default="paper")
    r.add_argument("--box", type=_positive_float("--box"), default=2.0)
    r.add_argument("--seed", type=_positive_int("--seed"), default=0)
    r.add_argument("--jobs", type=_positive_int("--jobs"), default=2)
    r.add_argument("--truth", default=None)
    r.add_argument("--out", default="out/reproduce", help="folder of the fit store (default out/reproduce)")
    r.add_argument("--quick", action="store_true", help="a small preset: K = 3, sizes 2000-16000, 3 repetitions")
    r.add_argument("--shard", default="0/1", metavar="I/M", help="run only fits I, I+M, I+2M, ... of the grid (one shard per machine; join the stores with `numeric merge`)")
    r.add_argument("--json", action="store_true", help="print the counts as JSON")
    mg = sub.add_parser("merge", help="join fit stores (e.g. one per machine) into one", description="Copy the records of SOURCE stores into the store in OUT.")
    mg.add_argument("out", help="folder of the target store (created if needed)")
    mg.add_argument("sources", nargs="+", metavar="SOURCE", help="folders of the stores to copy")
    mg.add_argument("--json", action="store_true")
    rt = sub.add_parser("rates", help="slopes of log(mean loss) vs log(n) with bootstrap CIs")
    rt.add_argument("folder")
    rt.add_argument("--json", action="store_true")
    pl = sub.add_parser("plot", help="Figure-1-style panel (PNG and PDF) from a fit store")
    pl.add_argument("folder")
    ra = sub.add_parser("ratio", help="Theorem 1's sequence: ||f_Gn - f_G*|| / L(G_n, G*) against n")
    ra.add_argument("--model", required=True, choices=MODELS)
    ra.add_argument("--ns", nargs="+", type=_positive_float("--ns"), default=[10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0])
    ra.add_argument("--r", type=_positive_float("--r"), default=1.0, help="the r of L1,r (MHA) and of the weight offset n^-(r+1)")
    ra.add_argument("--mc", type=_positive_int("--mc"), default=200_000, help="Monte Carlo points for the L2 norm")
    ra.add_argument("--truth", default=None)
    ra.add_argument("--json", action="store_true")
    return parser


def main(argv=None) -> int:
    from threadpoolctl import threadpool_limits

    try:
        with threadpool_limits(limits=1):  # one fit, one thread: see docs/numeric.md
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
    if args.command == "reproduce":
        return _reproduce(args)
    if args.command == "merge":
        return _merge(args)
    if args.command in ("rates", "plot"):
        return _rates(args)
    if args.command == "ratio":
        return _ratio(args)
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


def _reproduce(args) -> int:
    from .sweep import DEFAULT_SIZES, QUICK, Grid, run_grid
    from .truth import load_truth

    if args.truth is not None:
        load_truth(args.truth)  # validate before running anything
    sizes = tuple(args.sizes) if args.sizes else DEFAULT_SIZES
    Ks, reps = tuple(args.Ks), args.reps
    if args.quick:
        sizes, reps, Ks = QUICK["sizes"], QUICK["reps"], QUICK["Ks"]
    grid = Grid(tuple(args.models), Ks, sizes, reps, args.optimizer, args.init, args.box, args.seed).validate()
    shard = _shard(args.shard)
    counts = run_grid(grid, args.out, jobs=args.jobs, truth_path=args.truth, progress=sys.stderr.isatty(), shard=shard)
    if args.json:
        print(json.dumps(counts | {"out": args.out}))
    else:
        print(f"{counts['ran']} fits run, {counts['skipped']} already done, {counts['total']} in the grid; store: {args.out}/fits.sqlite")
    return 0


def _shard(text: str) -> tuple:
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise NumericError(f"--shard {text!r}: expected I/M, e.g. 0/4") from None
    if not (count >= 1 and 0 <= index < count):
        raise NumericError(f"--shard {text}: need 0 <= I < M")
    return index, count


def _merge(args) -> int:
    from .sweep import merge_stores

    counts = merge_stores(args.out, args.sources)
    if args.json:
        print(json.dumps(counts | {"out": args.out}))
    else:
        print(f"{counts['added']} records added, {counts['already_present']} already present, "
              f"{counts['conflicts']} conflicting (kept the target's); store: {args.out}/fits.sqlite")
    return 0


def _ratio(args) -> int:
    from .ratio import ratio_table
    from .truth import load_truth

    rows = ratio_table(args.model, load_truth(args.truth), args.ns, r=args.r, mc=args.mc)
    if args.json:
        print(json.dumps([row.to_dict() for row in rows], indent=2))
        return 0
    kind = "L1,r" if args.model == "mha" else "L2"
    print(f"{args.model}: ||f_Gn - f*||_L2 / {kind}(G_n, G*), r = {args.r:g}, Monte Carlo {args.mc} points")
    print(f"{'n':>9}  {'L2 norm':>11}  {'+/- s.e.':>9}  {'loss':>11}  {'ratio':>11}")
    for row in rows:
        print(f"{row.n:>9g}  {row.l2:>11.4e}  {row.l2_se:>9.1e}  {row.loss:>11.4e}  {row.ratio:>11.4e}")
    return 0


def _rates(args) -> int:
    from .rates import rates_from_records
    from .sweep import load_records

    records = load_records(args.folder)
    if not records:
        raise NumericError(f"{args.folder!r}: the fit store is empty")
    rates = rates_from_records(records)
    if args.command == "plot":
        from .plots import plot_rates

        for path in plot_rates(records, rates, args.folder):
            print(path)
        return 0
    if args.json:
        print(json.dumps([r.to_dict() for r in rates], indent=2))
        return 0
    print(f"{'model':<8}{'K':>3}  {'slope':>7}  {'95% CI':<18}{'paper':>7}  reps  sizes")
    for r in rates:
        paper = f"{r.paper:.2f}" if r.paper is not None else "-"
        print(f"{r.model:<8}{r.K:>3}  {r.slope:>7.3f}  [{r.ci_low:6.3f}, {r.ci_high:6.3f}]  {paper:>7}  {r.n_reps:>4}  {min(r.sizes)}..{max(r.sizes)} ({len(r.sizes)})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
