"""The command lines of a declared model's experiment: ``numeric reproduce --model-file``, and what
``numeric merge``, ``rates`` and ``plot`` do with a folder holding a declared store.

``reproduce --model-file F.toml`` reads the declaration (a bad one: one line naming the key, exit 2,
nothing written), runs the grid (:func:`numeric.experiments.declared.run_declared`) and prints the counts; the
hand-written models' flags (``--models``, ``--K``, ``--optimizer``, ``--truth``, ``--phi``, ``--param``,
``--gd-objective``, ``--init``, ``--allow-weak-truth``, ``--preset``) are refused with it, not
silently ignored. ``rates`` prints :func:`~numeric.experiments.declared.rates.declared_rates_text` (``--json``: a
:class:`~numeric.experiments.declared.rates.DeclaredRate` row each, schema ``numeric.declared_rates/2``, with the
declaration's notes); ``plot`` writes ``rates_declared.png`` and ``.pdf``. The notes (a truth
normalised, a gate constant in x) are ``warning:`` lines in the text of ``reproduce`` and ``rates``
and a ``notes`` list in their JSON.
"""

from __future__ import annotations

import json
from pathlib import Path

from identcheck.declaration import read_declaration
from identcheck.util.environment import environment

from ...errors import NumericError, Param
from .plot import plot_declared
from .rates import declared_rates, declared_rates_text
from .store import DECLARED_FILE, merge_declared, read_declared
from .sweep import DeclaredGrid, run_declared

__all__ = ["QUICK_DECLARED", "declared_merge", "declared_rates_command", "declared_reproduce", "has_declared"]

#: --quick with --model-file: four small sizes, three repetitions
QUICK_DECLARED = {"sizes": (500, 1000, 2000, 4000), "reps": 3}

#: reproduce's parameters of the hand-written models, refused with a declaration
NOT_DECLARED = (
    "preset",
    "models",
    "Ks",
    "optimizer",
    "gd_objective",
    "init",
    "truth",
    "phi",
    "params",
    "allow_weak_truth",
)


def has_declared(folder) -> bool:
    return (Path(folder) / DECLARED_FILE).exists()


def declared_reproduce(args, defaults, sizes, shard) -> int:
    """``numeric reproduce --model-file``: ``defaults`` are the flags' defaults, ``sizes`` the grid's
    (or None: --quick or the default), ``shard`` (I, M)."""
    for dest in NOT_DECLARED:
        if getattr(args, dest) != getattr(defaults, dest):
            why = ("does not apply to ", Param("model_file"), " (the declaration states its model)")
            raise NumericError(param=dest, value=getattr(args, dest), reason=why)
    declaration = read_declaration(args.model_file)
    reps = args.reps
    if args.quick:
        sizes, reps = QUICK_DECLARED["sizes"], QUICK_DECLARED["reps"]
    scale = 1.0 if args.init_scale is None else float(args.init_scale)
    grid = DeclaredGrid(tuple(sizes), reps, args.method, args.start, args.restarts, args.box, args.seed, scale)
    progress = "always" if args.progress else not args.json
    counts = run_declared(declaration, grid, args.out, jobs=args.jobs, progress=progress, shard=shard)
    notes = [{"key": n.key, "text": n.text} for n in declaration.notes]
    if args.json:
        print(json.dumps(counts | {"out": args.out, "notes": notes, "environment": environment()}))
    else:
        print(
            f"{declaration.name}: {counts['ran']} fits run ({counts['worse_than_truth']} worse than the truth), "
            f"{counts['skipped']} already done, {counts['total']} in the grid; "
            f"store: {args.out}/{DECLARED_FILE} (digest {counts['digest'][:12]}, settings {counts['settings']})"
        )
        for line in warning_lines(notes):
            print(line)
    return 0


def declared_merge(args) -> int:
    counts = merge_declared(args.out, args.sources)
    if args.json:
        print(json.dumps(counts | {"out": args.out, "environment": environment()}))
    else:
        print(
            f"{counts['model']}: {counts['added']} records added, {counts['already_present']} already present, "
            f"{counts['conflicts']} conflicting (kept the record met first); store: {args.out}/{DECLARED_FILE}"
        )
    return 0


def declared_quantity(asked: str, rates) -> str:
    """The declared rate quantity ``asked`` names: ``loss`` (or ``voronoi``), ``part.param`` or
    ``error part.param``; another name: one line listing the store's quantities."""
    known = list(dict.fromkeys(r.quantity for r in rates))
    wanted = "loss" if asked in ("loss", "voronoi") else asked if asked.startswith("error ") else f"error {asked}"
    if wanted not in known:
        names = ", ".join(q.removeprefix("error ") for q in known)
        raise NumericError(
            param="quantity", value=asked, reason=f"not a quantity of this declared store; it has {names}"
        )
    return wanted


def declared_rates_command(args) -> int:
    """``numeric rates`` / ``numeric plot`` on a folder with a declared store."""
    store, records = read_declared(args.folder)
    if not records:
        raise NumericError(f"{args.folder!r}: the declared fit store is empty")
    rates = declared_rates(store, records)
    if args.command == "plot":
        asked = list(getattr(args, "quantity", None) or [])
        if not asked or asked == ["voronoi"]:  # the parser's default: every panel in one figure
            for path in plot_declared(rates, args.folder):
                print(path)
            return 0
        chosen = [(q, declared_quantity(q, rates)) for q in asked]  # all checked before a file is written
        for _, quantity in chosen:
            slug = "".join(c if c.isalnum() else "_" for c in quantity)
            for path in plot_declared(
                [r for r in rates if r.quantity == quantity], args.folder, f"rates_declared_{slug}"
            ):
                print(path)
        return 0
    if args.json:
        rows = [r.to_dict() | {"canonical": store.canonical, "environment": environment()} for r in rates]
        print(json.dumps(rows, indent=2))
    else:
        print(declared_rates_text(rates))
        for line in warning_lines(store.declaration.get("notes", ())):
            print(line)
    return 0


def warning_lines(notes) -> list[str]:
    """One ``warning:`` line per note of the declaration (a truth normalised, a gate constant in x)."""
    return [f"warning: {note['key']}: {note['text']}" for note in notes]
