"""Command line: ``numeric fit ...`` — a thin shell over :func:`numeric.fit`.

Each subcommand is a function ``_name(args)`` (``COMMANDS``; the flags are in
:mod:`numeric.cli.parser`). Library errors name the API's parameters;
:func:`identcheck.cli.common.render_error` spells them as the command's flags (:func:`_message`).

Exit codes: 0 ran, 2 bad input (one line on stderr, nothing on stdout), 1 internal error,
130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM (workers killed at once, :mod:`identcheck.util.pool`),
141 stdout closed early (``| head``: nothing printed, as a filter ended by SIGPIPE).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

from identcheck.cli.common import closed_stdout_quiet, command_parser, guarded, render_error
from identcheck.errors import InputError
from identcheck.util.environment import environment
from identcheck.util.interrupts import Interrupted, ignore_interrupts, signal_of
from identcheck.util.outputs import check_output_path

from ..confirm import cli as confirm_cli
from ..errors import NoFitStore, NumericError
from ..shipped import shipped_model
from .parser import (
    PRESET_OWNS,
    REPRODUCE_OUT,
    build_parser,
    progress_wanted,
    shard_of,
    truth_from_args,
)

# Each command imports what it needs when it runs, in its function: numpy, scipy, sympy and matplotlib
# load only for the command that uses them; `numeric --help` and a bad flag load none (tests/numeric/test_startup.py).


def program() -> int:
    """The program (``numeric``, ``python -m numeric``): :func:`main` on the process's own arguments;
    once it has answered, a late Ctrl-C is ignored (seen: a SIGINT during the exit of a finished
    ``reproduce`` ended the process by the signal, exit −2, instead of its own code). A stdout closed
    early (``| head``) ends it quietly, exit 141 (:func:`identcheck.cli.common.closed_stdout_quiet`)."""
    code = closed_stdout_quiet(main)
    ignore_interrupts()
    return code


def main(argv=None) -> int:
    return guarded("numeric", NumericError, _run, argv)


def _run(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = COMMANDS.get(args.command)
    if command is None:
        parser.print_help()
        return 0
    import scipy.linalg  # noqa: F401  (numpy's and scipy's BLAS, loaded before the limit: it applies to the libraries loaded)

    try:
        with threadpool_limits(limits=1):  # one fit, one thread: see docs/numeric.md
            return command(args)
    except InputError as exc:  # the library names its parameters; the user typed flags
        raise NumericError(_message(exc, command_parser(parser, args.command))) from None
    except KeyboardInterrupt as exc:
        ignore_interrupts()  # the workers are gone; reading the store for the message is quick
        raise Interrupted(signal_of(exc), _kept(args)) from None


def _message(error: InputError, parser) -> str:
    """``error`` for the command line: its parameters as ``parser``'s flags; a folder without a
    store says how to make one."""
    if isinstance(error, NoFitStore):
        return f"folder {error.folder!r}: no fit store here (run `numeric reproduce --out {error.folder}` first)"
    return render_error(error, parser)


def _kept(args) -> str:
    """What an interrupted command leaves: the fits its store holds and how to continue, or nothing."""
    from ..experiments.declared.store import count_declared
    from ..experiments.store import kept_fits

    if args.command not in ("reproduce", "confirm"):
        return (
            "nothing written: the result is printed only when complete"
            if args.command in ("fit", "ratio", "rates")
            else ""
        )
    subject = args.phi or getattr(args, "expert", None)  # confirm's PHI, or an expert condition's --expert
    folder = args.out or confirm_cli._default_out(subject, args.condition)  # confirm's default, if not given
    declared = getattr(args, "model_file", None) is not None
    stores, fits = count_declared(folder) if declared else kept_fits(folder)
    if args.command == "confirm" and getattr(args, "expert", None) is not None:  # one declared store per truth
        counts = [count_declared(p.parent) for p in Path(folder).rglob("declared.sqlite")]
        stores, fits = len(counts), sum(c[1] for c in counts)
    where = (
        os.path.join(folder, "declared.sqlite" if declared else "fits.sqlite")
        if args.command == "reproduce"
        else f"the stores under {os.path.join(folder, 'rates')}"
    )
    return (
        (
            f"{fits} finished fit(s) kept in {where} (each is committed when it ends; those in flight are lost); "
            "run the same command to continue where it stopped"
        )
        if stores
        else "interrupted before the first fit: nothing saved"
    )


#: The schema of ``numeric fit --json`` (docs/changelog.md); 1 was the unversioned record.
FIT_SCHEMA = "numeric.fit/2"


def _fit(args) -> int:
    if args.model is None or args.model_file is not None:  # a declared model
        from ..fitting.command import declared_fit

        return declared_fit(args, build_parser().parse_args(["fit", "--model-file", "-"]))
    from identcheck.util.progress import StatusLine

    from ..fitting.attention_fit import fit

    truth = truth_from_args(args)
    with StatusLine.for_command(asked=args.progress, json=args.json) as status:
        result = fit(
            args.model,
            args.K,
            args.n,
            seed=args.seed,
            optimizer=args.optimizer,
            truth=truth,
            box_factor=args.box,
            init=args.init,
            init_scale=args.init_scale,
            gd_objective=args.gd_objective,
            progress=status.show,
            notice=lambda text: print(f"numeric: {text}", file=sys.stderr, flush=True),
        )
    from ..fitting.phi_check import phi_check

    # identcheck's check of the fitted phi: after the fit (its start-up as it was), cached per phi
    checked = phi_check(result.model, truth.phi, truth.phi_params, truth.params.dim)
    data = {"schema": FIT_SCHEMA, **result.to_dict()}
    data["phi_check"] = None if checked is None else checked.to_dict()
    data["truth"] = truth.source
    data["environment"] = environment()
    if result.underdetermined:  # said on stderr whatever the format; the JSON has "underdetermined"
        print(
            f"numeric: warning: --n {result.n} is below the {result.n_params} parameters of "
            f"{result.model} K={result.K}: "
            "the fit is underdetermined (it can interpolate the data; its losses say nothing about rates)",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(data, indent=2))
    else:
        print(
            f"{result.model} K={result.K} n={result.n} seed={result.seed} optimizer={result.optimizer}"
            + (f" ({result.gd_objective} of squares)" if result.optimizer == "gd" else "")
            + "\n"
            f"  training MSE {result.mse:.6g}  (start {result.start_mse:.6g}; "
            f"truth on the same data {result.truth_mse:.6g})\n"
            f"  Voronoi loss {result.loss_kind} {result.voronoi_loss:.6g} "
            f"({result.voronoi_loss / result.start_voronoi_loss:.2g} x the start's {result.start_voronoi_loss:.4g}; "
            "0 at the truth); "
            f"||f_fit - f*||_L2 {result.regression_l2:.4g} +/- {result.regression_se:.1g}\n"
            f"  iterations {result.iterations}, converged {result.converged}, {result.seconds:.2f} s\n"
            f"  box: {result.box}; parameters on a bound: {result.active_bounds}\n"
            f"  init: {result.init}; truth: {truth.name} ({truth.source}); phi: {result.phi}"
            + ("" if checked is None else f"\n  {checked.line()}")
        )
    return 0


def _reproduce(args) -> int:
    from ..experiments.sweep import DEFAULT_SIZES, QUICK, Grid, run_grid, run_preset

    check_output_path(args.out, "--out", folder=True, default=args.out == REPRODUCE_OUT, error=NumericError)
    if args.model_file is not None:
        from ..experiments.declared.command import declared_reproduce

        defaults = build_parser().parse_args(["reproduce"])
        return declared_reproduce(args, defaults, args.sizes or DEFAULT_SIZES, shard_of(args.shard))
    if args.method is not None or args.start != "paper" or args.restarts or args.init_scale is not None:
        raise NumericError("--method, --start, --restarts and --init-scale need --model-file (a declared model)")
    if os.path.exists(os.path.join(args.out, "declared.sqlite")):
        raise NumericError(f"--out {args.out!r} holds a declared model's store: choose another folder")
    if args.preset is not None:
        defaults = build_parser().parse_args(["reproduce"])
        for dest, flag in PRESET_OWNS.items():
            if getattr(args, dest) != getattr(defaults, dest):
                raise NumericError(f"--preset {args.preset} runs its own grid: {flag} cannot be combined with it")
        legs = run_preset(
            args.preset, args.out, jobs=args.jobs, quick=args.quick, progress=progress_wanted(args), seed=args.seed
        )
        if args.json:
            print(json.dumps({"legs": legs, "out": args.out, "environment": environment()}))
        else:
            for c in legs:
                print(f"{c['truth']}: {c['ran']} fits run, {c['skipped']} already done, {c['total']} in the grid")
            print(f"store: {args.out}/fits.sqlite")
        return 0
    truth = truth_from_args(args)
    sizes = tuple(args.sizes) if args.sizes else DEFAULT_SIZES
    Ks, reps = tuple(args.Ks), args.reps
    if args.quick:
        sizes, reps, Ks = QUICK["sizes"], QUICK["reps"], QUICK["Ks"]
    grid = Grid(
        tuple(args.models), Ks, sizes, reps, args.optimizer, args.init, args.box, args.seed, args.gd_objective
    ).validate()
    shard = shard_of(args.shard)
    counts = run_grid(
        grid,
        args.out,
        jobs=args.jobs,
        truth=truth,
        progress=progress_wanted(args),
        shard=shard,
        allow_weak_truth=args.allow_weak_truth,
    )
    if args.json:
        print(json.dumps(counts | {"out": args.out, "environment": environment()}))
    else:
        print(
            f"{counts['ran']} fits run, {counts['skipped']} already done, {counts['total']} in the grid; "
            f"store: {args.out}/fits.sqlite (settings {counts['settings']})"
        )
    return 0


def _merge(args) -> int:
    from ..experiments.store import merge_stores

    check_output_path(args.out, "OUT", folder=True, error=NumericError)
    if any(os.path.exists(os.path.join(folder, "declared.sqlite")) for folder in args.sources):
        from ..experiments.declared.command import declared_merge

        return declared_merge(args)
    counts = merge_stores(args.out, args.sources)
    if args.json:
        print(json.dumps(counts | {"out": args.out, "environment": environment()}))
    else:
        print(
            f"{counts['added']} records added, {counts['already_present']} already present, "
            f"{counts['conflicts']} conflicting (kept the record met first); store: {args.out}/fits.sqlite"
        )
    return 0


def _ratio(args) -> int:
    return confirm_cli.ratio(args, truth_from_args(args))


def _rates(args) -> int:
    from ..experiments.plots import plot_rates
    from ..experiments.rates import rates_from_records
    from ..experiments.rates_text import RATES_FOOTER, rates_text
    from ..experiments.store import read_records, read_settings
    from ..losses.attention_cells import QUANTITIES, assignments_differ
    from ..model.attention_truth import truth_from_dict

    if os.path.exists(os.path.join(args.folder, "declared.sqlite")):
        from ..experiments.declared.command import declared_rates_command

        return declared_rates_command(args)
    records = read_records(args.folder)
    if not records:
        raise NumericError(f"{args.folder!r}: the fit store is empty")
    settings = read_settings(args.folder)
    if args.command == "plot":
        by_quantity = [
            (quantity, rates_from_records(records, settings, (quantity,))) for quantity in args.quantity
        ]  # all before a file is written
        for quantity, rates in by_quantity:
            name = f"rates_{quantity}"  # one pattern for every quantity (rates_voronoi.png)
            for path in plot_rates(rates, args.folder, name, QUANTITIES[quantity]):
                print(path)
        return 0
    quantities = ["voronoi", "voronoi_measure", "mha_identified"]  # gated: both losses; mha: L1,r, its identified
    if args.regression:
        quantities.append("regression")
    if args.by_cell:
        quantities += ["exact_weight", "exact_param", "over_weight", "over_param", "voronoi_function_cells"]
    rates = rates_from_records(records, settings, quantities)
    differ = None
    if args.by_cell:
        from ..losses.measure import recombined

        truths = {sid: truth_from_dict(s.truth, sid) for sid, s in settings.items()}
        differ = sum(
            assignments_differ(truths[r.settings_id].model(r.model), r.fitted(), truths[r.settings_id].params)
            for r in records
        )
        gated = [r for r in records if shipped_model(r.model).has_phi]
        mixed = sum(recombined(r.fitted(), truths[r.settings_id].params) for r in gated)
    if args.json:
        out = [r.to_dict() | {"environment": environment()} for r in rates]  # where the slopes were computed
        print(
            json.dumps(
                out
                if differ is None
                else {
                    "rates": out,
                    "cells_differ": {"fits": differ, "of": len(records)},
                    "recombined": {"fits": mixed, "of": len(gated)},
                },
                indent=2,
            )
        )
        return 0
    print(rates_text(rates))
    if differ is not None:
        print(
            f"cells by parameter distance and by expert-function distance differ in {differ} of {len(records)} fits"
            " (voronoi_function_cells: the loss with the function cells)"
        )
        print(
            "recombined (a channel with an atom outside the cells of the true channel L2 puts it with): "
            f"{mixed} of {len(gated)} gated fits"
            " (voronoi_measure: the loss that forgives it)"
        )
    print(RATES_FOOTER)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


#: subcommand → its function (the parser, numeric.cli.parser, names the subcommands)
COMMANDS = {
    "fit": _fit,
    "reproduce": _reproduce,
    "merge": _merge,
    "rates": _rates,
    "plot": _rates,
    "ratio": _ratio,
    "confirm": confirm_cli.run,
}
