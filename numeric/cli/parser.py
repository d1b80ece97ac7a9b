"""numeric's command-line flags: one argparse parser for its commands (:func:`build_parser`).

The commands themselves are in :mod:`numeric.cli.main` (``COMMANDS``, dispatched by the subcommand's
name; ``confirm``'s flags are in :mod:`numeric.confirm.cli`). This module imports nothing heavy,
so ``numeric --help`` and a mistyped flag answer at once (tests/numeric/test_startup.py). Every parse error is one
line, exit 2, with a close match for an unknown flag or command; the flag converters
(:mod:`numeric.cli.flags`) refuse a bad value before any library code runs.
"""

from __future__ import annotations

import argparse

from identcheck.cli.common import SuggestingParser

from ..confirm import cli as confirm_cli
from ..errors import NumericError
from ..shipped import SHIPPED
from .choices import MODELS, OPTIMIZERS
from .flags import add_param_flag
from .flags import non_negative_int as _non_negative_int
from .flags import positive_float as _positive_float
from .flags import positive_int as _positive_int

__all__ = [
    "PRESET_OWNS",
    "PROGRESS_HELP",
    "REPRODUCE_OUT",
    "build_parser",
    "progress_wanted",
    "shard_of",
    "truth_from_args",
]

# Every flag's errors read ``--flag VALUE: reason`` (errors name the API's parameters, spelled as the flag
# whose ``dest`` or name they are: :func:`identcheck.cli.common.render_error`; the converters, numeric.cli.flags).


class _Parser(SuggestingParser):  # every error one line, exit 2; an unknown flag or command gets its close match
    error_type = NumericError


def _phi_args(p) -> None:
    p.add_argument(
        "--phi",
        default=None,
        metavar="PHI",
        help="gate activation in z (default: the truth's, sigmoid(z)); parsed by identcheck's parser",
    )
    add_param_flag(p)


REPRODUCE_OUT = "out/reproduce"  # the default store: its parents are created (cli_common's policy)


PROGRESS_HELP = "show the status line even with --json or on a pipe (there: plain lines, at most one a second)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="numeric", description="Convergence-rate experiments for gated attention as an HMoE.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    f = sub.add_parser("fit", help="one fit", description="Generate data from the truth, fit, evaluate.")
    f.add_argument("--model", default=None, choices=MODELS, help="a hand-written model (or --model-file)")
    f.add_argument("--model-file", default=None, metavar="TOML", help="a declared model (docs/declaration.md)")
    f.add_argument(
        "--method",
        choices=("em", "direct", "lm"),
        default=None,
        help="--model-file: em (default) or direct maximum likelihood for a density, lm for a regression",
    )
    f.add_argument(
        "--start", choices=("paper", "broad"), default="paper", help="--model-file: the start (default paper)"
    )
    f.add_argument("--restarts", type=_non_negative_int("--restarts"), default=0, help="--model-file: broad restarts")
    f.add_argument(
        "--K", type=_positive_int("--K"), default=3, help="channels per head of the fitted model (default 3)"
    )
    f.add_argument("--n", type=_positive_int("--n"), default=10_000, help="sample size (default 10000)")
    f.add_argument("--seed", type=_non_negative_int("--seed"), default=0)
    f.add_argument(
        "--optimizer",
        choices=OPTIMIZERS,
        default="lm",
        help="gd: the paper's protocol; lm: trust-region least squares (default)",
    )
    f.add_argument(
        "--gd-objective",
        choices=("mean", "sum"),
        default="mean",
        help="gd: backtracking on the mean (default) or the sum of squares (eq. 3)",
    )
    f.add_argument(
        "--truth", default=None, help="ground-truth JSON file or shipped name (default: truths/default.json)"
    )
    _phi_args(f)
    f.add_argument(
        "--box", type=_positive_float("--box"), default=2.0, help="box size relative to the truth (default 2)"
    )
    f.add_argument(
        "--init",
        choices=("paper", "fixed"),
        default="paper",
        help="perturbation n^-0.083 (paper) or --init-scale (fixed)",
    )
    f.add_argument(
        "--init-scale",
        type=_positive_float("--init-scale"),
        default=0.1,
        help="--init fixed: the perturbation (default 0.1); --model-file: c of c n^-0.083 (default 1)",
    )
    f.add_argument("--json", action="store_true", help="print one JSON object")
    f.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    r = sub.add_parser(
        "reproduce",
        help="a grid of fits (the paper's, or a preset), resumable",
        description="Run the grid; finished fits are stored and skipped on rerun.",
    )
    r.add_argument(
        "--preset",
        default=None,
        metavar="NAME",
        help="a named experiment: 'local' (the theorems' regime, docs/theorems.md); with --quick, its small variant",
    )
    r.add_argument(
        "--model-file", default=None, metavar="TOML", help="a declared model's grid (docs/numeric.md, Declared models)"
    )
    r.add_argument("--method", choices=("em", "direct", "lm"), default=None, help="--model-file: as numeric fit's")
    r.add_argument("--start", choices=("paper", "broad"), default="paper", help="--model-file: the start")
    r.add_argument("--restarts", type=_non_negative_int("--restarts"), default=0, help="--model-file: broad restarts")
    r.add_argument(
        "--init-scale",
        type=_positive_float("--init-scale"),
        default=None,
        help="--model-file: c of the start's perturbation c n^-0.083 (default 1)",
    )
    r.add_argument("--models", nargs="+", default=list(MODELS), metavar="MODEL")
    r.add_argument("--K", nargs="+", type=_positive_int("--K"), default=[3, 4], dest="Ks", metavar="K")
    r.add_argument(
        "--sizes",
        nargs="+",
        type=_positive_int("--sizes"),
        default=None,
        metavar="N",
        help="default: 10 sizes from 1e4 to 1e5",
    )
    r.add_argument("--reps", type=_positive_int("--reps"), default=10)
    r.add_argument("--optimizer", choices=OPTIMIZERS, default="lm")
    r.add_argument("--gd-objective", choices=("mean", "sum"), default="mean")
    r.add_argument("--init", choices=("paper", "fixed"), default="paper")
    r.add_argument("--box", type=_positive_float("--box"), default=2.0)
    r.add_argument("--seed", type=_non_negative_int("--seed"), default=0)
    r.add_argument("--jobs", type=_positive_int("--jobs"), default=2)
    r.add_argument("--truth", default=None)
    _phi_args(r)
    r.add_argument(
        "--allow-weak-truth",
        action="store_true",
        help="run even if Var f*(X)/nu^2 < 10 (the fits then measure mostly noise)",
    )
    r.add_argument(
        "--out",
        default=REPRODUCE_OUT,
        help=f"folder of the fit store (default {REPRODUCE_OUT}; a new folder only inside an existing one)",
    )
    r.add_argument(
        "--quick",
        action="store_true",
        help="a small preset: K = 3, sizes 2000-16000, 3 repetitions (with --preset: the preset's small variant)",
    )
    r.add_argument(
        "--shard",
        default="0/1",
        metavar="I/M",
        help="run only fits I, I+M, I+2M, ... of the grid "
        "(one shard per machine; join the stores with `numeric merge`)",
    )
    r.add_argument("--json", action="store_true", help="print the counts as JSON")
    r.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    mg = sub.add_parser(
        "merge",
        help="join fit stores (e.g. one per machine) into one",
        description="Copy the records of SOURCE stores into the store in OUT.",
    )
    mg.add_argument("out", help="folder of the target store (created if needed, inside an existing folder)")
    mg.add_argument("sources", nargs="+", metavar="SOURCE", help="folders of the stores to copy")
    mg.add_argument("--json", action="store_true")
    rt = sub.add_parser(
        "rates",
        help="slopes of log(mean loss) vs log(n), with an interval where the data carry one",
        description="Slopes per experiment (settings, model, K); records of different settings are never pooled.",
    )
    rt.add_argument("folder")
    rt.add_argument(
        "--by-cell",
        action="store_true",
        help="per Voronoi cell: exact-fitted (|V| = 1) and over-fitted (|V| > 1) parameter errors (Table 1)",
    )
    rt.add_argument("--regression", action="store_true", help="||f_fit - f*||_L2(mu) against n (Proposition 1)")
    rt.add_argument("--json", action="store_true")
    pl = sub.add_parser("plot", help="Figure-1-style panel (PNG and PDF) from a fit store")
    pl.add_argument("folder")
    pl.add_argument(
        "--quantity",
        nargs="+",
        default=["voronoi"],
        metavar="Q",
        help="voronoi (default), voronoi_measure, regression, exact_param, over_param, ...: one figure each; "
        "a declared store: loss (or voronoi) and 'part.param' errors (default: every panel in one figure)",
    )
    ra = sub.add_parser(
        "ratio", help="Theorem 1's sequence: ||f_Gn - f_G*|| / L(G_n, G*) against n (or a channel recombination)"
    )
    ra.add_argument("--model", required=True, choices=MODELS)
    ra.add_argument(
        "--path",
        choices=("theorem1", "recombination"),
        default="theorem1",
        help="theorem1 (default): the sequence of Theorem 1's proof over --ns; recombination: channels re-paired "
        "with weight eps = 1e-1 ... 1e-4 at K channels per head, and the exact alternatives (docs/theorems.md)",
    )
    ra.add_argument(
        "--K", type=_positive_int("--K"), default=None, help="--path recombination: channels per head (default K* + 2)"
    )
    ra.add_argument(
        "--ns", nargs="+", type=_positive_float("--ns"), default=[10.0, 30.0, 100.0, 300.0, 1000.0, 3000.0, 10000.0]
    )
    ra.add_argument(
        "--r", type=_positive_float("--r"), default=1.0, help="the r of L1,r (MHA) and of the weight offset n^-(r+1)"
    )
    ra.add_argument("--mc", type=_positive_int("--mc"), default=200_000, help="Monte Carlo points for the L2 norm")
    ra.add_argument("--truth", default=None)
    _phi_args(ra)
    ra.add_argument("--json", action="store_true")
    confirm_cli.add_parser(sub)
    return parser


def progress_wanted(args):
    """A long command's status: "always" with --progress; else on a terminal, quiet with --json."""
    return "always" if getattr(args, "progress", False) else not getattr(args, "json", False)


#: What a preset fixes itself; combined with --preset these are refused, not silently ignored.
PRESET_OWNS = {
    "models": "--models",
    "Ks": "--K",
    "sizes": "--sizes",
    "reps": "--reps",
    "optimizer": "--optimizer",
    "gd_objective": "--gd-objective",
    "init": "--init",
    "box": "--box",
    "truth": "--truth",
    "phi": "--phi",
    "params": "--param",
    "allow_weak_truth": "--allow-weak-truth",
    "shard": "--shard",
}


def shard_of(text: str) -> tuple:
    """--shard I/M as (I, M); run_grid checks 0 <= I < M."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise NumericError(f"--shard {text!r}: expected I/M, e.g. 0/4") from None
    return index, count


def truth_from_args(args):
    """The truth file (or shipped name) with --phi/--param applied; identcheck's one-line errors
    (``param='b=oops': …``, read as ``--param 'b=oops': …`` by the command line)."""
    from identcheck import parse_param

    from ..model.attention_truth import load_truth

    truth = load_truth(args.truth)
    model = getattr(args, "model", None)
    if args.phi is not None and model in SHIPPED and not SHIPPED[model].has_phi:
        gated = "/".join(name for name, spec in SHIPPED.items() if spec.has_phi)
        raise NumericError(
            f"--phi: the {model} model has no gate (its experts are linear); drop --phi or choose {gated}"
        )
    if args.params and args.phi is None:
        raise NumericError("--param needs --phi (the truth's own phi carries its constants)")
    if args.phi is not None:
        params = dict(parse_param(text) for text in args.params)
        truth = truth.with_phi(args.phi, {k: str(v) for k, v in params.items()})
    return truth
