"""The command line's flags: one argparse parser for ``identcheck``'s commands (:func:`build_parser`).

The commands themselves are in :mod:`identcheck.cli.main` (``COMMANDS``, dispatched by the
subcommand's name); this module imports nothing heavy, so ``identcheck --help`` and a mistyped
flag answer at once (tests/identcheck/cli/test_startup.py). Every parse error is one line, exit 2,
and an unknown flag or command gets its close match (:class:`~identcheck.cli.common.SuggestingParser`).
"""

from __future__ import annotations

import argparse

from ..errors import IdentcheckError
from ..util.limits import MAX_COUNT, MAX_DIM
from .common import SuggestingParser
from .model_command import add_model_parser

__all__ = ["PROGRESS_HELP", "build_parser"]

# A flag's ``dest`` is the API's parameter it sets (``--gates`` → ``n_gates``, ``--param`` → ``params``), so
# that an error naming the parameter is spelled as the flag, one way for every flag: ``--flag VALUE: reason``
# (:func:`~identcheck.cli.common.render_error`; ``--jobs 0: must be …``, ``--condition 'typ1': unknown …``).


class _Parser(SuggestingParser):  # every error one line, exit 2; an unknown flag or command gets its close match
    error_type = IdentcheckError


PROGRESS_HELP = "show the status line even with --json or on a pipe (there: plain lines, at most one a second)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="identcheck",
        description="Is a gate activation phi strongly identifiable (gated attention as a hierarchical MoE)?",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    c = sub.add_parser("check", help="check activations", description="Check activations phi(z).")
    c.add_argument(
        "phi",
        nargs="*",
        help="activations in z, e.g. 'sigmoid(z + 1)' (default: the paper's examples z and sigmoid(z + 1))",
    )
    c.add_argument(
        "--condition",
        default="type1",
        help="type1 (Setting I), type2 (Setting II), both (not a condition: this command's name for type1 and "
        "type2 in one run; a flag applies to the condition that takes it: "
        "--include-zero to type1, --gates/--channels/--mixed-products to type2), mha (no gate: the linear expert; "
        "takes no PHI but z, the expert itself), type1-full (Theorem 2's full decomposition), deepseek-shared/-routed/"
        "-weak (an expert: --expert), or a plug-in's (an installed package's entry point in the group "
        "identcheck.conditions). Default type1",
    )
    c.add_argument(
        "--expert",
        action="append",
        default=[],
        metavar="EXPR",
        help="for a condition on experts (deepseek-shared/-routed/-weak, or a plug-in's whose subject is 'expert'): "
        "an expert h in x (x1..xd) and parameters, dot(p, x) for a vector p, e.g. 'e2*gelu(dot(e1, x))' "
        "(repeatable; --param fixes a scalar parameter)",
    )
    c.add_argument("--dim", type=_int("--dim"), default=2, help=f"input dimension d, 1..{MAX_DIM} (default 2)")
    c.add_argument(
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="value of a named constant in phi (repeatable)",
    )
    c.add_argument("--seed", type=_int("--seed"), default=0, help="seed for probes and sample points (default 0)")
    c.add_argument(
        "--points-per-term", type=_int("--points-per-term"), default=4, help="sample points per column (default 4)"
    )
    c.add_argument(
        "--include-zero",
        action="store_true",
        default=argparse.SUPPRESS,  # the options: only those given reach the library (cli._options)
        help="also probe a = 0 (a relation there holds for every phi; reported, not counted)",
    )
    c.add_argument(
        "--include-inadmissible",
        action="store_true",
        help="also count the probes that violate one of the paper's assumptions (A.1)-(A.5) (default: reported apart)",
    )
    c.add_argument(
        "--gates",
        dest="n_gates",
        metavar="GATES",
        type=_int("--gates"),
        default=argparse.SUPPRESS,
        help="type2: gating matrices N per head, the last fixed at 0 (default 2)",
    )
    c.add_argument(
        "--channels",
        dest="n_channels",
        metavar="CHANNELS",
        type=_int("--channels"),
        default=argparse.SUPPRESS,
        help="type2: channels K per head (default 2)",
    )
    c.add_argument(
        "--mixed-products",
        action="store_true",
        default=argparse.SUPPRESS,
        help="type2: add the mixed u·v second-order products (an extension beyond the paper's set)",
    )
    c.add_argument(
        "--certify",
        action="store_true",
        help="certify each probe: independence by interval arithmetic, dependence by exact relations proved exactly",
    )
    c.add_argument(
        "--ratios",
        metavar="LO:HI[:COUNT]",
        default=None,
        help="type1: scan every ratio c in [LO, HI] of parallel experts (shared M, a2 = c·a1); "
        "the range must not contain 0 or ±1",
    )
    c.add_argument(
        "--search",
        metavar="N",
        type=_int("--search"),
        default=None,
        help="type1, mha: also search each independent probe's stratum for its smallest margin from N starts "
        "(time-bounded; a dependence it finds counts only when proved)",
    )
    c.add_argument("--json", action="store_true", help="print one JSON array, one object per (phi, condition)")
    c.add_argument(
        "--brief",
        action="store_true",
        help="one line per (phi, condition): verdict, evidence, witness family (what verdicts mean: once, at the end)",
    )
    c.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    pos = sub.add_parser(
        "positions",
        help="the five gate positions G1-G5: expert form, whether the PDE survives, what decides",
        description="For each gate position: the expert form, whether the linear-expert PDE survives "
        "(derived, and checked numerically), and the check that decides it.",
    )
    pos.add_argument("phi", help="the activation, e.g. 'sigmoid(z + 1)'")
    pos.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=VALUE")
    pos.add_argument("--seed", type=_int("--seed"), default=0)
    pos.add_argument("--check", action="store_true", help="also run the deciding check (type2 for G1, type1 for G2)")
    pos.add_argument("--json", action="store_true")
    pde = sub.add_parser(
        "prove-pde",
        help="prove the relation families phi satisfies, for general x, M, a (exact arithmetic)",
        description="For each known family (Euler/homogeneity = the paper's PDE (5), heat, Gaussian, zero phi'', "
        "symmetry): whether phi satisfies its hypothesis and, if so, the exact proof of the identity "
        "for all parameters.",
    )
    pde.add_argument("phi", help="the activation, e.g. z")
    pde.add_argument("--dim", type=_int("--dim"), default=2, help=f"input dimension d, 1..{MAX_DIM} (default 2)")
    pde.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=VALUE")
    pde.add_argument("--json", action="store_true")
    sc = sub.add_parser(
        "scan",
        help="identifiability map over one or two parameters of phi (margins, exceptional set)",
        description="Scan phi over a grid of one or two of its named constants: verdict and margin per value "
        "and probe, verdict changes bracketed by bisection, simple numbers inside a bracket checked exactly.",
    )
    sc.add_argument(
        "phi",
        nargs="?",
        help="the activation with named constants, e.g. 'sigmoid(z + b)', for a condition on phi",
    )
    sc.add_argument(
        "--expert",
        metavar="EXPR",
        help="for a condition on experts (deepseek-shared/-routed/-weak, or a plug-in's whose subject is 'expert'): "
        "the expert with named constants, e.g. 'tanh(dot(e1, x) + b)'",
    )
    sc.add_argument(
        "--param",
        dest="params",
        action="append",
        default=[],
        metavar="NAME=LO:HI:COUNT|NAME=VALUE",
        help=f"a scanned parameter (one or two; COUNT 2..{MAX_COUNT}) or a fixed value (repeatable)",
    )
    sc.add_argument(
        "--condition",
        default="type1",
        help="any condition of check --condition that reads an expression: a phi (PHI) or an expert (--expert); "
        "not mha, which takes none. Default type1",
    )
    sc.add_argument("--dim", type=_int("--dim"), default=2, help="input dimension d (default 2)")
    sc.add_argument("--seed", type=_int("--seed"), default=0, help="seed for probes and sample points (default 0)")
    sc.add_argument(
        "--points-per-term", type=_int("--points-per-term"), default=4, help="sample points per column (default 4)"
    )
    sc.add_argument(
        "--width", help="bisection stops at this bracket width (default (HI-LO)/10^4); a number like 1e-3 or 1/64"
    )
    sc.add_argument("--jobs", type=_int("--jobs"), default=2, help="worker processes (default 2)")
    sc.add_argument(
        "--certify", action="store_true", help="certify the exact checks at simple numbers (proofs / interval bounds)"
    )
    sc.add_argument(
        "--plot", metavar="FILE.png", help="margin against the parameter (heat map for two), written when complete"
    )
    sc.add_argument("--json", action="store_true", help="print the result as JSON (the API's ScanResult.to_dict())")
    sc.add_argument("--brief", action="store_true", help="print the scan's head and its one-line summary only")
    sc.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    cat = sub.add_parser(
        "catalog", help="type-1 and type-2 verdicts for common activations (about 2 minutes on 2 cores)"
    )
    cat.add_argument(
        "--condition",
        dest="conditions",
        action="append",
        metavar="NAME",
        help="a registered condition on phi to run over the activations (repeatable; default type1 and type2)",
    )
    cat.add_argument("--json", action="store_true", help="print the rows as JSON")
    cat.add_argument("--progress", action="store_true", help=PROGRESS_HELP)
    cat.add_argument("--markdown", action="store_true", help="print the markdown table (docs/catalog.md)")
    cat.add_argument(
        "--experts",
        action="store_true",
        help="the DeepSeekMoE expert conditions for common experts instead (docs/conditions/deepseekmoe_catalog.md)",
    )
    cat.add_argument(
        "--models",
        action="store_true",
        help="the shipped declarations' model-level verdicts instead (identcheck model; text, --markdown, --json)",
    )
    cat.add_argument(
        "--model-level",
        action="store_true",
        help="with --experts: beside each literal verdict, the model-level check (identcheck model) of the "
        "DeepSeekMoE declaration holding the expert at d = 1 (routed and weak share the routed part's check)",
    )
    cat.add_argument(
        "--model-seconds",
        metavar="S",
        type=_float("--model-seconds"),
        default=None,
        help="with --model-level: the time budget of each model-level check in seconds (default 120); "
        "what does not finish is inconclusive and names the step cut",
    )
    cat.add_argument(
        "--ratios",
        metavar="LO:HI[:COUNT]",
        default=None,
        help="type1 cells: also scan every ratio c in [LO, HI] of parallel experts (shared M, a2 = c·a1; JSON)",
    )
    cat.add_argument(
        "--search",
        metavar="N",
        type=_int("--search"),
        default=None,
        help="type1 cells: also search each independent probe's stratum from N starts (JSON: the cell's search)",
    )
    cat.add_argument("--out", help="write the output to this file instead of stdout (written only when complete)")
    cat.add_argument("--jobs", type=_int("--jobs"), default=2, help="worker processes (default 2)")
    rp = sub.add_parser(
        "replay",
        help="re-run the interval certificates of a saved check --certify --json",
        description="Re-run a probe's interval certificate from a saved `identcheck check --certify --json` "
        "(the recorded minor, points and precision): exit 0 when every replay proves its minor nonsingular, "
        "1 when one does not, 2 for bad input.",
    )
    rp.add_argument("file", metavar="CHECK.json", help="the saved output of check --certify --json")
    rp.add_argument("probe", nargs="?", metavar="PROBE", help="the probe's name, e.g. 'random pair'")
    rp.add_argument("--all", action="store_true", help="replay every probe with an interval certificate")
    rp.add_argument("--json", action="store_true", help="print the replays as JSON")
    add_model_parser(sub)
    return parser


def _typed(kind, word):
    """``for_flag(flag)``: an argparse type reading ``kind``, whose error names the flag (``not {word}``)."""

    def for_flag(flag):
        def convert(text):
            try:
                return kind(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"{flag} {text!r}: not {word}") from None

        return convert

    return for_flag


_float = _typed(float, "a number")
_int = _typed(int, "an integer")
