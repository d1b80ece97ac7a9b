"""``numeric fit --model-file moe.toml``: one fit of a declared model, printed or as JSON.

The command reads the declaration (:func:`identcheck.declaration.read_declaration`: a bad one is
one line naming the key, exit 2, nothing written), fits it (:func:`numeric.fitting.fit_declared`)
and prints the record; ``--json`` prints :meth:`~numeric.fitting.DeclaredFit.to_dict` with the
environment. The flags of the hand-written models (``--K``, ``--optimizer``, ``--truth``, ``--phi``,
``--param``, ``--gd-objective``, ``--init``) are refused with it, not silently ignored.
"""

from __future__ import annotations

import json
import sys

from identcheck.declaration import read_declaration
from identcheck.util.environment import environment
from identcheck.util.progress import StatusLine

from ..errors import NumericError, Param
from .fit import fit_declared

__all__ = ["declared_fit", "render"]

#: the parameters of the hand-written models' fit, refused with a declaration (errors name them;
#: the command line spells them as its flags)
NOT_DECLARED = ("K", "optimizer", "truth", "phi", "params", "gd_objective", "init")


def declared_fit(args, defaults) -> int:
    """Run ``numeric fit --model-file`` with parsed ``args`` (``defaults``: the flags' defaults)."""
    if args.model_file is None:
        raise NumericError(
            param="model", reason=("give it (a hand-written model) or ", Param("model_file"), " (a declaration)")
        )
    if args.model is not None:
        raise NumericError(
            param="model_file", value=args.model_file, reason=("a declaration states its model: drop ", Param("model"))
        )
    for dest in NOT_DECLARED:
        if getattr(args, dest) != getattr(defaults, dest):
            why = ("does not apply to ", Param("model_file"), " (the declaration states its model)")
            raise NumericError(param=dest, value=getattr(args, dest), reason=why)
    declaration = read_declaration(args.model_file)
    with StatusLine.for_command(asked=args.progress, json=args.json) as status:
        result = fit_declared(
            declaration,
            args.n,
            seed=args.seed,
            method=args.method,
            start=args.start,
            restarts=args.restarts,
            box_factor=args.box,
            init_scale=args.init_scale if args.init_scale != defaults.init_scale else 1.0,
            report=lambda i, value: status.show(f"iteration {i}: objective {value:.6g}"),
        )
    for note in declaration.notes:
        print(f"numeric: note: {note.key}: {note.text}", file=sys.stderr)
    if args.json:
        print(json.dumps(result.to_dict() | {"model_file": args.model_file, "environment": environment()}, indent=2))
    else:
        print(render(result))
    return 0


def render(result) -> str:
    """A declared fit's record as the command prints it."""
    worse = "  WORSE THAN THE TRUTH" if result.worse_than_truth else ""
    loss = f"{result.loss['value']:.6g}" if result.loss else "-"
    errors = "; ".join(
        f"{part}: " + ", ".join(f"{name} {value:.3g}" for name, value in values.items())
        for part, values in result.errors["errors"].items()
    )
    return (
        f"{result.model} (digest {result.digest[:12]}) n={result.n} seed={result.seed} method={result.method} "
        f"start={result.start}\n"
        f"  {result.objective_kind} {result.objective:.8g} (start {result.start_objective:.8g}; "
        f"truth on the same data {result.truth_objective:.8g}){worse}\n"
        f"  declared loss {loss}; largest parameter errors: {errors}\n"
        f"  iterations {result.iterations}, converged {result.converged}, {result.seconds:.2f} s\n"
        f"  box: {result.box}; parameters on a bound: {list(result.active_bounds) or 'none'}"
    )
