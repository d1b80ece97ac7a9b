"""``numeric confirm PHI``: the command-line shell over :func:`numeric.confirm.confirm`.

Also ``numeric ratio``'s tables (:func:`ratio`, given the truth the shared flags name).
Wired into ``numeric/cli/main.py`` with ``confirm_cli.add_parser(sub).set_defaults(func=confirm_cli.run)``.
Exit codes: 0 ran (whatever the verdict), 2 bad input (identcheck's or numeric's one-line message on
stderr, nothing written), 1 internal error.
"""

from __future__ import annotations

import argparse
import json
import sys

from identcheck import IdentcheckError
from identcheck.cli.common import render_error
from identcheck.util.environment import environment
from identcheck.util.outputs import check_output_path

from ..cli.flags import add_param_flag, non_negative_int, positive_float, positive_int
from ..errors import NumericError
from ..shipped import shipped_model

#: The conditions on experts whose model has a declaration (numeric.confirm.expert_model.PART_FOR).
EXPERT_CONDITIONS = ("deepseek-routed", "deepseek-shared", "deepseek-weak")

__all__ = ["add_parser", "run"]


def add_parser(subparsers):
    """Add the ``confirm`` subcommand to an argparse ``subparsers`` object; returns its parser."""
    p = subparsers.add_parser(
        "confirm",
        help="identcheck's verdict for PHI and its numeric consequence",
        description="Check PHI symbolically, then measure ||g_t - g*|| / L2 along witness, probe and random "
        "parameter paths, and convergence rates at the witness configuration and a generic truth.",
    )
    p.add_argument("phi", nargs="?", default=None, help="gate activation in z, e.g. 'sigmoid(z + 1)' (phi conditions)")
    p.add_argument(
        "--condition",
        choices=("type1", "type2", *EXPERT_CONDITIONS),
        default="type1",
        help="type1: Setting I (model gated1, default); type2: Setting II (model gated2); "
        "deepseek-routed / deepseek-weak / deepseek-shared: an expert condition, checked in the DeepSeekMoE "
        "declaration with --expert in its routed or shared part",
    )
    p.add_argument(
        "--expert",
        default=None,
        metavar="EXPR",
        help="the expert h(x; theta) of an expert condition, e.g. 'eta2*tanh(dot(eta1, x) + eta0)'",
    )
    p.add_argument(
        "--model-seconds",
        type=positive_float("--model-seconds"),
        default=None,
        metavar="SECONDS",
        help="expert conditions: the model-level check's time budget (default 60 with --quick, 180 without)",
    )
    p.add_argument(
        "--quick", action="store_true", help="20k Monte Carlo points, rates on 4 sizes x 3 repetitions (about a minute)"
    )
    p.add_argument(
        "--jobs", type=positive_int("--jobs"), default=1, help="parallel fit processes for the rates (default 1)"
    )
    p.add_argument("--out", default=None, help="output folder (default confirm-out/<phi>-<condition>)")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.add_argument("--progress", action="store_true", help="show the status line even with --json or on a pipe")
    p.add_argument("--seed", type=non_negative_int("--seed"), default=0)
    p.add_argument(
        "--mc",
        type=positive_int("--mc"),
        default=None,
        help="Monte Carlo points for the L2(mu) norm (default 100000; 20000 with --quick)",
    )
    p.add_argument("--no-rates", action="store_true", help="skip the rate grid (sequences and verdict only)")
    p.add_argument(
        "--budget",
        type=positive_float("--budget"),
        default=None,
        metavar="SECONDS",
        help="time budget of the whole command; the rate grid grows within it until its intervals separate "
        "(default 150 with --quick, 900 without)",
    )
    add_param_flag(p)
    p.add_argument(
        "--K",
        type=positive_int("--K"),
        default=None,
        metavar="K",
        help="channels per head of the fitted model: the over-specified rate fits "
        "(K - 2 spare channels at each truth) and "
        "the channel recombination at the generic truth (default 3 = K* + 1; the local recombination needs K >= 4)",
    )
    return p


def _default_out(phi: str | None, condition: str) -> str:
    slug = "".join(ch if ch.isalnum() else "_" for ch in phi or "").strip("_") or "phi"
    return f"confirm-out/{slug[:40]}-{condition}"


def run(args) -> int:
    """Run ``confirm`` for parsed ``args``; print the report (or JSON); return the exit code."""
    from identcheck import (
        parse_param,
    )  # here, not at the top: `numeric --help` loads neither sympy nor the confirm modules

    from .run import confirm

    expert_condition = args.condition in EXPERT_CONDITIONS
    try:
        if expert_condition and args.expert is None:
            raise NumericError(f"--condition {args.condition}: needs --expert EXPR, e.g. 'eta2*tanh(dot(eta1, x))'")
        if expert_condition and args.phi is not None:
            raise NumericError(f"--condition {args.condition}: takes --expert, not PHI ({args.phi!r})")
        if not expert_condition and args.expert is not None:
            raise NumericError(f"--expert: only with an expert condition ({', '.join(EXPERT_CONDITIONS)})")
        if expert_condition:  # flags of the φ confirmation that an expert run has no use for
            for flag, value in (("--budget", args.budget), ("--mc", args.mc), ("--K", args.K)):
                if value is not None:
                    raise NumericError(
                        f"{flag}: not used with --condition {args.condition} (its paths use quadrature and "
                        "its rate grid is fixed; see --model-seconds and --quick)"
                    )
            if args.params:
                raise NumericError(f"--param: not used with --condition {args.condition} (write the value into EXPR)")
        if not expert_condition and args.phi is None:
            raise NumericError(f"--condition {args.condition}: needs PHI, e.g. 'sigmoid(z + 1)'")
        if expert_condition:
            return _run_expert(args)
        # the policy every output path follows (identcheck.util.outputs); the default is created
        if args.out is not None:
            check_output_path(args.out, "--out", folder=True, error=NumericError)
        params = {name: str(value) for name, value in (parse_param(text) for text in args.params)}
        result = confirm(
            args.phi,
            condition=args.condition,
            quick=args.quick,
            jobs=args.jobs,
            out=args.out or _default_out(args.phi, args.condition),
            seed=args.seed,
            mc=args.mc,
            rates=not args.no_rates,
            progress="always" if args.progress else not args.json,
            params=params,
            K=args.K,
            budget=args.budget,
        )
    except (IdentcheckError, NumericError) as exc:  # the library names its parameters: confirm's flags here
        print(
            f"numeric: error: {render_error(exc, add_parser(argparse.ArgumentParser().add_subparsers()))}",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
        return 0
    print(format_result(result))
    return 0


def _run_expert(args) -> int:
    """An expert condition (:func:`numeric.confirm.expert_run.confirm_expert`); errors go to :func:`run`."""
    from .expert_run import confirm_expert

    if args.out is not None:
        check_output_path(args.out, "--out", folder=True, error=NumericError)
    result = confirm_expert(
        args.expert,
        condition=args.condition,
        quick=args.quick,
        seed=args.seed,
        out=args.out or _default_out(args.expert, args.condition),
        model_seconds=args.model_seconds,
        rates=not args.no_rates,
        jobs=args.jobs,
        progress="always" if args.progress else not args.json,
    )
    if args.json:
        print(json.dumps(result.to_dict(), indent=1))
    else:
        print(format_expert_result(result))
    return 0


def format_expert_result(result) -> str:
    """The text report of an expert confirmation."""
    from .expert_run import RATES_NOTE

    s = result.symbolic
    lines = [
        f"expert = {result.expert}  ({result.condition}, part '{result.part}' of the declaration {result.model})",
        f"identcheck: {s.verdict} ({s.evidence}); {s.summary}",
    ]
    if s.witness_path_relation:
        lines.append(f"witness path from probe '{s.witness_path_probe}': {s.witness_path_relation}")
    if result.sequences:
        q0 = result.sequences[0]
        window = q0.t[: q0.window or len(q0.t)]
        lines.append(
            f"ratio ||f_t - f*|| / D for t = {window[0]:g} ... {window[-1]:g} (L2 over x and y, quadrature), "
            "smaller t where a path needs them to reach its plateau:"
        )
    lines += [_sequence_line(q) for q in result.sequences]
    for r in result.rates:
        lines.append(
            f"  rate {r.truth}: slope {r.estimate.text(signed=True)} in n, n = {r.sizes[0]}..{r.sizes[-1]} x "
            f"{r.repetitions} ({r.converged}/{r.fits} converged)"
        )
    lines.append(f"  {RATES_NOTE}")
    for name, why in result.skipped:
        lines.append(f"  skipped probe '{name}': {why}")
    if result.model_check is not None:
        m = result.model_check
        for atom, verdict, summary in m.atoms:
            lines.append(f"  model-level {atom}: {verdict}: {summary}")
    lines.append(result.verdict)
    lines.append(result.comparison)
    lines.append(f"({result.seconds:.1f} s, sequences {result.sequence_seconds:.1f} s; output in {result.out})")
    if result.figure is not None:
        lines.append(f"figure: {result.figure}")
    return "\n".join(lines)


def _sequence_line(q) -> str:
    """One path's line: its kind, slope (or exact invariance), ratio range, t → 0 limit, status, name."""
    shape = (
        "exact invariance (ratio 0)"
        if q.exact_invariance
        else ("slope   —  " if q.slope is None else f"slope {q.slope:5.2f}")
    )
    limit = "" if q.limit is None or q.exact_invariance else f" (t->0: {q.limit:.1e})"
    return (
        f"  {q.kind:8s} {shape:28s} ratio {q.ratio[0]:.2e} -> {q.ratio[-1]:.2e} at t = {q.t[-1]:<8.2g}{limit:18s} "
        f"{q.status:12s} {q.name}"
    )


def format_result(result) -> str:
    s = result.symbolic
    lines = [
        f"phi = {result.phi}  ({result.condition}, model {result.model})",
        f"identcheck: {s.verdict} ({s.evidence}); {s.summary}",
    ]
    if s.relation:
        lines.append(f"witness relation ({s.family or 'unrecognised'}): {s.relation}")
    if s.witness_path_relation and s.witness_path_relation != s.relation:
        lines.append(f"lifted for the witness path: probe '{s.witness_path_probe}', {s.witness_path_relation}")
    window: tuple[float, ...] = (
        result.sequences[0].t[: result.sequences[0].window or len(result.sequences[0].t)] if result.sequences else ()
    )
    lines.append(
        f"ratio ||g_t - g*|| / L2 for t = {window[0]:g} ... {window[-1]:g}, slope over this window, smaller t where a "
        f"path needs them to reach its plateau ({result.mc_points} Monte Carlo points):"
        if result.sequences
        else "no paths"
    )
    lines += [_sequence_line(q) for q in result.sequences]
    for r in result.rates:
        measure = "" if r.measure_estimate is None else f"; measure-level loss {r.measure_estimate.text(signed=True)}"
        lines.append(
            f"  rate {r.truth:13s} K = {r.K} (K* = {r.K_star}): slope {r.estimate.text(signed=True)}"
            f"{measure}  Var g*/nu^2 = {r.signal_to_noise:.1f}"
        )
    if any(r.estimate.interval == "standard error" for r in result.rates):
        lines.append("  (se): fewer than 5 repetitions, the interval is the regression's standard error (Student's t)")
    if result.separation is not None:
        sep = result.separation
        lines.append(
            f"  rates {'separate' if sep.separated else 'do not separate'} "
            f"({sep.expected} expected; {sep.rounds} grid round(s), "
            f"last n = {sep.sizes[0]}..{sep.sizes[-1]} x {sep.repetitions}): {sep.reason}"
        )
    if result.recombination_line:
        lines.append(f"  {result.recombination_line}")
    for name, why in result.skipped:
        lines.append(f"  skipped probe '{name}': {why}")
    lines.append(result.verdict)
    lines.append(f"({result.seconds:.1f} s, sequences {result.sequence_seconds:.1f} s; output in {result.out})")
    return "\n".join(lines)


def ratio(args, truth) -> int:
    """``numeric ratio`` at ``truth``: the ratio table along a path (``--path recombination``: the re-pairing)."""
    from .ratio import ratio_table

    if args.path == "recombination":
        return _recombination(args, truth)
    rows = ratio_table(args.model, truth, args.ns, r=args.r, mc=args.mc)
    if args.json:
        print(json.dumps([row.to_dict() | {"environment": environment()} for row in rows], indent=2))
        return 0
    kind = shipped_model(args.model).loss_name("r")
    print(f"{args.model}: ||f_Gn - f*||_L2 / {kind}(G_n, G*), r = {args.r:g}, Monte Carlo {args.mc} points")
    print(f"{'n':>9}  {'L2 norm':>11}  {'+/- s.e.':>9}  {'loss':>11}  {'ratio':>11}")
    for row in rows:
        print(f"{row.n:>9g}  {row.l2:>11.4e}  {row.l2_se:>9.1e}  {row.loss:>11.4e}  {row.ratio:>11.4e}")
    return 0


def _recombination(args, truth) -> int:
    from .recombination import recombination_table

    rows, constructions = recombination_table(args.model, truth, args.K, mc=args.mc)
    K = constructions[0].K
    if args.json:
        print(
            json.dumps(
                {
                    "path": "recombination",
                    "model": args.model,
                    "K": K,
                    "K_star": truth.params.K,
                    "rows": [row.to_dict() for row in rows],
                    "constructions": [c.to_dict() for c in constructions],
                    "environment": environment(),
                },
                indent=2,
            )
        )
        return 0
    kind = shipped_model(args.model).loss_name("1")
    print(
        f"{args.model}: channels 1, 2 of every head re-paired with weight eps (K = {K}, K* = {truth.params.K}); "
        f"||g_eps - g*||_L2 / {kind}(G_eps, G*), Monte Carlo {args.mc} points"
    )
    print(
        f"{'eps':>9}  {'L2 norm':>11}  {'+/- s.e.':>9}  {kind + ' (channels)':>15}  {'measure loss':>12}  {'ratio':>11}"
    )
    for row in rows:
        print(
            f"{row.epsilon:>9.3g}  {row.l2:>11.4e}  {row.l2_se:>9.1e}  {row.loss:>15.4e}  "
            f"{row.measure_loss:>12.1e}  {row.ratio:>11.4e}"
        )
    for c in constructions:
        if not c.applies:
            print(f"  {c.construction}: not built ({c.reason})")
            continue
        moved = "exact: g unchanged" if c.exact else "not exact"
        print(
            f"  {c.construction}: ||g' - g*||/||g*|| = {c.relative_change:.1e} ({moved}); L2 = {c.channel_loss:.4g}, "
            f"measure loss = {c.measure_loss:.1e}; {c.reason}"
        )
    return 0
