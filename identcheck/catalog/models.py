"""The shipped declarations' model-level verdicts in one table (``identcheck catalog --models``).

Each shipped example (:data:`~identcheck.declaration.EXAMPLES`) is checked by
:func:`~identcheck.model.check_declaration` at the command's defaults (order ≤ 4, cells of ≤ 2
atoms, 60 s per atom; an atom identifiable at order 2 with every r̄ found stops there), or
refused with the check's one-line reason (a relu expert, a gate the check does not take). The
nested declarations (mha, setting1, setting2) are the slow rows: seven parameters per atom at
d = 2, the whole table takes about a quarter of an hour on 2 shared cores. One row per example:
the model's verdict and evidence, per part the exponents of its cells of two atoms, the time, or
the refusal.

:func:`model_catalog_rows` gives the rows as plain data (``--json``), :func:`model_catalog_markdown`
and :func:`model_catalog_text` the table.
"""

from __future__ import annotations

import time
from typing import Callable

from ..declaration import EXAMPLES, read_example
from ..errors import IdentcheckError
from ..model import check_declaration
from ..util.bites import Bites

__all__ = ["atom_record", "model_catalog_markdown", "model_catalog_rows", "model_catalog_text", "verdict_words"]

ORDER = 4
CELLS = 2
SECONDS = 60.0


def atom_record(verdict, size: int = CELLS) -> dict:
    """One true atom's record (a :class:`~identcheck.model.ModelVerdict`): its name, verdict, and r̄ and
    the exponents of its cells of ``size`` atoms (None when that size was not checked or has none)."""
    cells = [c for c in verdict.cells if c.m == size]
    exponents = cells[0].exponents if cells and cells[0].exponents is not None else None
    return {
        "atom": verdict.atom.name,
        "verdict": str(verdict.verdict),
        "rbar": cells[0].rbar if cells else None,
        "exponents": None if exponents is None else {k: str(v) for k, v in exponents.items()},
    }


def model_catalog_rows(progress: Callable | None = None, jobs: int = 1, names=None) -> list[dict]:
    """One row per shipped example (or per name of ``names``): verdict, exponents per part, time, or the refusal.
    ``jobs`` is accepted for the catalog's signature; the checks run one after the other."""
    names = tuple(EXAMPLES if names is None else names)
    rows = []
    for done, name in enumerate(names):
        if progress is not None:
            progress(done, len(names), name)
        declaration = read_example(name)
        start = time.monotonic()
        try:
            result = check_declaration(declaration, max_order=ORDER, max_cell=CELLS, seconds=SECONDS)
        except IdentcheckError as exc:
            rows.append({"model": name, "verdict": None, "refused": str(exc), "seconds": 0.0})
            continue
        parts: dict[str, list] = {}
        for part, verdict in result.results:
            parts.setdefault(part, []).append(atom_record(verdict))
        rows.append(
            {
                "model": name,
                "verdict": str(result.verdict),
                "evidence": str(result.evidence),
                "summary": result.summary,
                "joint_independent": result.joint,
                "bites": None if result.bites is None else result.bites.to_dict(),
                "parts": parts,
                "refused": None,
                "seconds": round(time.monotonic() - start, 1),
            }
        )
    return rows


def _cells(row: dict) -> str:
    if row["refused"] is not None:
        return "refused: " + row["refused"]
    shown = []
    for part, atoms in row["parts"].items():
        kinds = {(a["rbar"], tuple(sorted((a["exponents"] or {}).items()))) for a in atoms}
        for rbar, exponents in sorted(kinds, key=str):
            values = ", ".join(f"{k} {v}" for k, v in exponents)
            shown.append(f"{part}: r̄(2) = {'—' if rbar is None else rbar}" + (f" ({values})" if values else ""))
    return "; ".join(shown)


def verdict_words(row: dict, extra: str = "") -> str:
    """A model-level record's verdict (``verdict``, ``evidence``, ``bites``; ``verdict`` None: refused) in words:
    ``'not identifiable (proof; order 1: bites in exact-fitted cells)'``, ``'identifiable (proof)'``, …;
    ``extra`` is added inside the brackets."""
    if row["verdict"] is None:
        return "refused"
    bites = row.get("bites")
    inside = [row["evidence"]] + ([] if bites is None else [Bites.from_dict(bites).text]) + ([extra] if extra else [])
    return f"{row['verdict']} ({'; '.join(inside)})"


def model_catalog_markdown(rows: list[dict]) -> str:
    """The rows as a markdown table."""
    lines = [
        f"Model-level verdicts of the shipped declarations (`identcheck model NAME`: order ≤ {ORDER}, cells of ≤ "
        f"{CELLS} atoms, {SECONDS:g} s per atom).",
        "",
        "| model | verdict | cells of two atoms: r̄ and exponents | s |",
        "|---|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| {row['model']} | {verdict_words(row)} | {_cells(row).replace('|', '/')} | {row['seconds']} |")
    return "\n".join(lines) + "\n"


def model_catalog_text(rows: list[dict]) -> str:
    """The rows as plain text, one model a line (its cells on the next)."""
    width = max(len(r["model"]) for r in rows)
    out = []
    for row in rows:
        out.append(f"{row['model']:<{width}}  {verdict_words(row)}  [{row['seconds']} s]")
        out.append(f"{'':<{width}}  {_cells(row)}")
    return "\n".join(out) + "\n"
