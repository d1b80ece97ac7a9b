"""Command line: ``identcheck check PHI [PHI ...]`` — a thin shell over :func:`identcheck.check`.

Each subcommand is a function ``_name(args)`` (``COMMANDS``; the flags are in :mod:`identcheck.cli.parser`).
Library errors name the API's parameters; :func:`~identcheck.cli.common.render_error` spells them as the
command's flags, one way: ``--flag VALUE: reason``. No command names a condition: what the user's text is to a
condition — PHI, ``--expert EXPR``, or nothing (mha) — is its class's ``subject``
(:attr:`~identcheck.conditions.base.Condition.subject`), so a plug-in on experts gets ``--expert``.
``check --condition both`` is the command line's name for type1 and type2 in one run (not a condition: the
registry reserves the name).

Exit codes: 0 the checks ran (whatever the verdicts), 2 bad input (one line on stderr, nothing on stdout),
1 internal error, 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM: the worker processes are killed at once
(:mod:`identcheck.util.pool`) and one line says what was written; 141 when stdout was closed early
(``identcheck check z --json | head -c 10``: quietly, as a filter ended by SIGPIPE,
:func:`~identcheck.cli.common.closed_stdout_quiet`).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import re
import sys
import tempfile
from typing import Callable

from ..errors import IdentcheckError
from ..util.interrupts import Interrupted, ignore_interrupts, signal_of
from ..util.outputs import check_output_path
from ..util.progress import StatusLine
from .common import closed_stdout_quiet, command_parser, guarded, render_error
from .model_command import run_model
from .parser import build_parser
from .pde_commands import run_positions, run_prove_pde

# Each command imports what it needs in its function: `identcheck --help` loads no sympy, numpy or matplotlib.

PAPER_EXAMPLES = ["z", "sigmoid(z + 1)"]
#: check's flags that set a condition's option (dest: the option's name); absent when not given
OPTION_FLAGS = ("include_zero", "n_gates", "n_channels", "mixed_products")

#: What an interrupted command leaves behind, for the interrupt's message.
KEPT = {
    "check": "only complete reports were printed (each activation's when its check ended); nothing else written",
    "scan": "nothing written: a scan prints its result and writes --plot only when it completes",
    "catalog": "nothing written: the catalog is printed, or written to --out, only when complete",
    "model": "nothing written: the report is printed only when every atom's check has ended",
}


def program() -> int:
    """The program (``identcheck``, ``python -m identcheck``): :func:`main` on the process's own arguments,
    then an exit without the interpreter's last garbage collection over everything loaded (sympy's objects:
    about 0.2 s of CPU per run, as much as the check of ``sigmoid(z + 1)`` itself; docs/performance.md).
    Nothing depends on it: the output is written and flushed by the interpreter's exit as before, the
    commands close their files, worker processes are joined. ``main`` itself, which tests call in one
    process, leaves the collector alone. A stdout closed early (``identcheck check z --json | head -c 10``)
    ends it quietly with exit 141, as a Unix filter ended by SIGPIPE (:func:`~.common.closed_stdout_quiet`)."""
    code = closed_stdout_quiet(main)
    ignore_interrupts()  # the command has answered: a late Ctrl-C must not turn its exit into a signal's
    gc.freeze()  # the objects alive now are never collected again: the process ends
    return code


def main(argv=None) -> int:
    return guarded("identcheck", IdentcheckError, _run, argv)


def _run(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    command = COMMANDS.get(args.command)
    if command is None:
        parser.print_help()
        return 2 if argv else 0
    try:
        return command(args)
    except IdentcheckError as exc:  # the library names its parameters; the user typed flags
        raise IdentcheckError(render_error(exc, command_parser(parser, args.command))) from None
    except KeyboardInterrupt as exc:
        ignore_interrupts()
        raise Interrupted(
            signal_of(exc), KEPT.get(args.command, "nothing written: the result is printed only when complete")
        ) from None


def _check(args) -> int:
    from ..check import check, make_condition
    from ..conditions import CONDITIONS, unknown_condition
    from ..parse.activation import parse_param
    from ..report import RunText

    if args.condition != "both" and args.condition not in CONDITIONS:  # a built-in name reads no plug-in
        raise unknown_condition(args.condition, extra=("both",))  # the list, with the installed plug-ins
    conditions = ("type1", "type2") if args.condition == "both" else (args.condition,)  # both: the two on φ
    subject = CONDITIONS[conditions[0]].subject  # what the user's text is to it (Condition.subject)
    # as written: check() reads them exactly, shows them so
    params = {parse_param(p)[0]: p.partition("=")[2].strip() for p in args.params}
    phis = _inputs(args, args.condition, subject)
    jobs = []
    for phi in phis:  # validate every input before any output: the library's checks, its errors
        for condition in conditions:
            # a condition that takes no text gets every --param, to refuse them in its own words
            used = {k: v for k, v in params.items() if subject is None or _mentions(phi, k)}
            arguments = {"condition": condition, "dim": args.dim, "params": used, "seed": args.seed}
            arguments |= {
                "points_per_term": args.points_per_term,
                **_options(args, condition, args.condition != "both"),
            }
            with _expert_hint(phi, subject, "checked"):
                make_condition(phi, **arguments)
            jobs.append((phi, arguments))
    unused = [name for name in params if not any(phi is not None and _mentions(phi, name) for phi in phis)]
    if unused:
        name = unused[0]
        raise IdentcheckError(
            param="params", key=name, shown=params[name], reason=f"no {subject or 'phi'} uses {name!r}"
        )
    checker = check
    if args.ratios is not None:  # refused before any job runs: nothing printed half-way
        from ..scan.ratio import check_every_ratio, refuse_bad_ratios

        refuse_bad_ratios(args.ratios, [a["condition"] for _, a in jobs])
        checker = functools.partial(check_every_ratio, ratios=args.ratios)
    if args.search is not None:  # refused before any job runs, as --ratios
        from ..scan.search_check import check_searching, refuse_bad_search

        refuse_bad_search(args.search, [a["condition"] for _, a in jobs])
        checker = functools.partial(check_searching, search=args.search, ratios=args.ratios)
    results, shown = [], RunText(brief=args.brief)  # a verdict's meaning once per run: a footnote
    with StatusLine.for_command(asked=args.progress, json=args.json) as status:
        for i, (phi, arguments) in enumerate(jobs):
            job = f"{phi or 'linear expert'} [{arguments['condition']}]"
            title = f"phi {i + 1}/{len(jobs)} {job!r}"

            def progress(done, n_probes, name, title=title):
                status.show(f"{title}: probe {done}/{n_probes} ({name})")

            result = checker(
                phi,
                progress=progress,
                certify=args.certify,
                include_inadmissible=args.include_inadmissible,
                **arguments,
            )
            status.clear()
            results.append(result)
            if not args.json:
                print(shown.add(result))
    print(json.dumps([r.to_dict() for r in results], indent=2, ensure_ascii=False) if args.json else shown.footnotes())
    return 0


def _scan(args) -> int:
    from ..conditions import CONDITIONS, unknown_condition
    from ..scan.params import parse_scan_param
    from ..scan.plot import check_plot_path, plot_scan
    from ..scan.run import scan

    params = {}
    for text in args.params:
        name, value = parse_scan_param(text)
        if name in params:
            raise IdentcheckError(f"--param {name}: given twice ({text!r}); scan it (LO:HI:COUNT) or fix it, once")
        params[name] = value
    if args.condition not in CONDITIONS:  # any registered condition scans (identcheck/scan/family.py)
        raise unknown_condition(args.condition)
    subject = CONDITIONS[args.condition].subject  # PHI or --expert, as check reads them (_inputs)
    text = _scanned(args, subject)
    width = None if args.width is None else _width(args.width)
    if args.plot is not None:
        check_plot_path(args.plot)
    with StatusLine.for_command(asked=args.progress, json=args.json) as status, _expert_hint(text, subject, "scanned"):
        result = scan(
            text,
            params,
            condition=args.condition,
            dim=args.dim,
            seed=args.seed,
            points_per_term=args.points_per_term,
            width=width,
            certify=args.certify,
            jobs=args.jobs,
            progress=lambda done, total, stage: status.show(f"scan {stage}: {done}/{total}"),
        )
    if args.plot is not None:
        plot_scan(result, args.plot)
    text = result.brief_text() if args.brief else result.to_text()
    print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) if args.json else text)
    return 0


def _scanned(args, subject):
    """The text scan reads, by the condition's subject as check's (_inputs): --expert (or PHI, as before) or PHI."""
    if subject == "expert" and (args.phi is None) == (args.expert is None):
        param, value = ("expert", args.expert) if args.phi else ("condition", args.condition)
        why = f"and PHI {args.phi!r}: give one expert" if args.phi else "give the expert to scan as --expert EXPR"
        raise IdentcheckError(param=param, value=value, reason=why + " (e.g. --expert 'tanh(dot(e1, x) + b)')")
    if subject != "expert" and args.expert is not None:
        raise _not_an_expert(args.condition, subject, args.expert)
    if subject == "phi" and args.phi is None:
        raise IdentcheckError("scan: give PHI, e.g. 'sigmoid(z + b)' (an expert: --condition NAME --expert EXPR)")
    return args.phi if args.expert is None else args.expert


def _not_an_expert(condition: str, subject, expert: str) -> IdentcheckError:
    from ..conditions import judging

    takes, experts = "PHI" if subject == "phi" else "no input", ", ".join(judging("expert"))
    why = f"condition {condition!r} takes {takes}, not an expert; --expert goes with a condition on experts"
    return IdentcheckError(param="expert", value=expert, reason=f"{why} ({experts})")


@contextlib.contextmanager
def _expert_hint(text, subject, verb: str):
    """An error about a PHI that reads as an expert (x, dot(…)) says how to give an expert."""
    try:
        yield
    except IdentcheckError as exc:
        expert_like = re.search(r"\bdot\s*\(|\bx\d*\b", text or "")
        if subject != "phi" or exc.param != "phi" or exc.subject is None or not expert_like:
            raise
        from ..conditions import judging

        s, names = exc.subject, ", ".join(judging("expert"))
        hint = f"; an expert in x is {verb} with --condition NAME --expert EXPR (NAME: {names})"
        raise IdentcheckError(
            param=s.name, value=s.value, key=s.key, index=s.index, shown=s.shown, reason=(*exc.parts, hint)
        ) from None


def _inputs(args, condition: str, subject) -> list:
    """What ``condition`` judges, from PHI or --expert as its ``subject`` says (:attr:`Condition.subject`):
    φ's (default: the paper's examples), the experts of --expert, or — a condition that takes no text — PHI
    as given (None when absent), for the condition to refuse in its own words."""
    if subject == "expert":
        if args.phi or not args.expert:
            raise IdentcheckError(
                param="condition",
                value=condition,
                reason="give the expert as --expert EXPR (e.g. --expert 'e2*gelu(dot(e1, x))'), not as PHI",
            )
        return args.expert
    if args.expert:
        raise _not_an_expert(condition, subject, args.expert[0])
    if subject is None:
        return args.phi or [None]
    return args.phi or PAPER_EXAMPLES


def _width(text: str):
    """--width as an exact number, refused in its own name (parse_param's are about a NAME=VALUE text)."""
    from ..parse.activation import parse_param

    try:
        return parse_param(f"width={text}")[1]
    except IdentcheckError as exc:
        raise IdentcheckError(param="width", value=text, reason=exc.reason) from None


def _options(args, condition: str, strict: bool) -> dict:
    """The conditions' options the user gave (a flag not given is absent: the condition's default, and no
    other condition is imported to read its default): all of them when ``strict`` (the library refuses one
    the condition does not take, unless at its default), else only the condition's own (``--condition both``:
    each flag applies where it means something)."""
    from ..conditions import CONDITIONS

    given = {name: getattr(args, name) for name in OPTION_FLAGS if hasattr(args, name)}
    return {name: value for name, value in given.items() if strict or name in CONDITIONS[condition].options}


def _catalog(args) -> int:

    from ..catalog.activations import catalog_conditions, catalog_rows, to_markdown

    if args.experts and args.conditions:
        raise IdentcheckError("--condition: not with --experts (its table is the three DeepSeekMoE conditions')")
    if args.ratios is not None and (args.models or args.experts):
        raise IdentcheckError("--ratios: not with --experts or --models (it scans type-1's parallel experts)")
    if args.search is not None and (args.models or args.experts):
        raise IdentcheckError("--search: not with --experts or --models (it searches type-1's strata)")
    if args.model_level and not args.experts:
        raise IdentcheckError("--model-level: only with --experts (the model-level column of the expert catalog)")
    if args.model_seconds is not None and not args.model_level:
        raise IdentcheckError("--model-seconds: only with --model-level (the time budget of each model-level check)")
    if args.model_level and args.model_seconds is not None:  # refused before any check runs: nothing written
        from ..catalog.expert_models import check_model_seconds

        check_model_seconds(args.model_seconds)
    if args.models and (args.experts or args.conditions):
        raise IdentcheckError("--models: not with --experts or --condition (its table is the shipped declarations')")
    if args.models:  # the shipped declarations' model-level verdicts (docs/model.md)
        from ..catalog import models

        make_rows: Callable[..., list[dict]] = models.model_catalog_rows
        render: Callable[[list[dict]], str] = models.model_catalog_markdown
    elif args.experts:  # the expert conditions' table (docs/conditions/deepseekmoe_catalog.md)
        from ..catalog.experts import expert_catalog_markdown, expert_catalog_rows

        make_rows = expert_catalog_rows
        if args.model_level:
            from ..catalog.expert_models import SECONDS

            seconds = SECONDS if args.model_seconds is None else args.model_seconds
            make_rows = functools.partial(expert_catalog_rows, model_level=True, model_seconds=seconds)
        render = expert_catalog_markdown
    else:  # any registered condition on φ, default type-1 and type-2 (docs/catalog.md)
        make_rows = functools.partial(
            catalog_rows, conditions=catalog_conditions(args.conditions), ratios=args.ratios, search=args.search
        )
        render = to_markdown
    if args.out is not None:
        check_output_path(args.out, "--out")  # the policy every output path follows (outputs.py)
        folder = os.path.dirname(os.path.abspath(args.out))
    with StatusLine.for_command(asked=args.progress, json=args.json) as status:
        rows = make_rows(lambda done, total, phi: status.show(f"catalog {done}/{total}: {phi}"), jobs=args.jobs)
    if args.models and not (args.json or args.markdown):
        text = models.model_catalog_text(rows)
    elif args.json or not args.markdown:
        text = json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    else:
        text = render(rows)
    if args.out is None:
        print(text, end="")
        return 0
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".catalog-")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, args.out)  # atomic: nothing half-written
    except OSError as exc:
        raise IdentcheckError(f"--out {args.out!r}: cannot write ({exc.strerror})") from None
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)  # on every failure: no temporary file left behind
    return 0


def _replay(args) -> int:
    if (args.probe is None) == (not args.all):
        raise IdentcheckError("replay: give one PROBE or --all (e.g. identcheck replay check.json 'random pair')")
    from ..replay import replay_file, replay_text

    replays = replay_file(args.file, None if args.all else args.probe)
    if args.json:
        print(json.dumps(replays, indent=2, ensure_ascii=False))
    else:
        print(replay_text(replays))
    return 0 if all(r["proved"] for r in replays) else 1


def _mentions(phi: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\b", phi) is not None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


#: subcommand → its function (the parser, identcheck.cli.parser, names the subcommands)
COMMANDS = {
    "check": _check,
    "positions": run_positions,
    "prove-pde": run_prove_pde,
    "scan": _scan,
    "catalog": _catalog,
    "replay": _replay,
    "model": run_model,
}
