"""The model-level column of the expert catalog (``identcheck catalog --experts --model-level``).

DeepSeekMoE's literal conditions (deepseek-shared, -routed, -weak) ask more than the model needs:
scale and bias-shift relations among an expert's derivatives make them fail for most experts. The
model's own answer is the model-level check (:func:`~identcheck.model.check_declaration`,
docs/model.md) of the declaration :mod:`identcheck.declaration.deepseek_expert` builds: the shipped
``deepseek-tanh`` at d = 1 with the expert in the routed part (the model of deepseek-routed and
deepseek-weak: one check, one record) or in the shared part (deepseek-shared), the generic truth of
seed :data:`SEED`, order ≤ :data:`ORDER`, cells of ≤ :data:`CELLS` atoms, ``seconds`` per check.

A record (:func:`model_level_cell`) holds the part, the model's verdict and evidence, where a failure
bites, the summary, each true atom of the expert's part (:func:`~identcheck.catalog.models.atom_record`
with r̄, the proof of r̄ and the exponents per cell size), the steps the budget cut (``unfinished``:
then the verdict is inconclusive unless an atom's failure was proved), the time, or ``refused`` with
the reason (an expert in x2 needs d = 2; an expert the check does not take).
"""

from __future__ import annotations

import math
import time

from ..declaration.deepseek_expert import PART_FOR, expert_declaration, generic_atoms, parse_base_expert
from ..errors import IdentcheckError
from ..model import check_declaration
from .models import atom_record, verdict_words

__all__ = [
    "CELLS",
    "ORDER",
    "PARTS",
    "SECONDS",
    "SEED",
    "check_model_seconds",
    "model_level_cell",
    "model_level_words",
]

ORDER = 4
CELLS = 2
SEED = 0
SECONDS = 120.0
MAX_SECONDS = 3600.0
#: the parts checked, in the order the catalog runs them; condition → part is PART_FOR
PARTS = ("shared", "routed")
_STEPS = {  # the model-wide steps' messages (identcheck.model.declared) → their names
    "the joint independence of the true atoms' bases": "the joint independence step",
    "the search for atoms re-pairing": "the recombination search",
}


def check_model_seconds(seconds) -> float:
    """``seconds`` per model-level check, a finite number in (0, :data:`MAX_SECONDS`]; else refused."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise IdentcheckError(param="model_seconds", value=seconds, reason="not a number")
    if not (math.isfinite(seconds) and 0 < seconds <= MAX_SECONDS):
        reason = f"must be a finite number of seconds, above 0 and at most {MAX_SECONDS:g}"
        raise IdentcheckError(param="model_seconds", value=seconds, shown=f"{seconds:g}", reason=reason)
    return float(seconds)


def _conditions(part: str) -> list[str]:
    return [condition for condition, p in PART_FOR.items() if p == part]


def _refused(expert: str, part: str, reason: str) -> dict:
    return {
        "part": part,
        "conditions": _conditions(part),
        "verdict": None,
        "evidence": None,
        "bites": None,
        "summary": None,
        "atoms": [],
        "unfinished": [],
        "refused": reason,
        "budget": None,
        "seconds": 0.0,
    }


def _sizes(verdict) -> list[dict]:
    """r̄, its proof and the exponents of each cell size of one atom."""
    return [
        {
            "m": c.m,
            "rbar": c.rbar,
            "proved": c.proved,
            "exponents": None if c.exponents is None else {k: str(v) for k, v in c.exponents.items()},
        }
        for c in verdict.cells
    ]


def model_level_cell(expert: str, part: str, seconds: float = SECONDS) -> dict:
    """The model-level record of ``expert`` in ``part`` (module docstring): never raises for an expert
    the declaration or the check refuses (the record says ``refused`` and why)."""
    condition = _conditions(part)[0]
    try:
        parsed = parse_base_expert(expert)
        declaration = expert_declaration(condition, expert, generic_atoms(parsed, SEED))
    except IdentcheckError as exc:
        return _refused(expert, part, exc.reason)
    start = time.monotonic()
    try:
        result = check_declaration(declaration, max_order=ORDER, max_cell=CELLS, seconds=seconds)
    except IdentcheckError as exc:
        return _refused(expert, part, str(exc))
    atoms = [
        atom_record(v) | {"evidence": str(v.evidence), "cells": _sizes(v), "unfinished": list(v.unfinished)}
        for p, v in result.results
        if p == part
    ]
    return {
        "part": part,
        "conditions": _conditions(part),
        "verdict": str(result.verdict),
        "evidence": str(result.evidence),
        "bites": None if result.bites is None else result.bites.to_dict(),
        "summary": result.summary,
        "atoms": atoms,
        "unfinished": list(result.cut),
        "refused": None,
        "budget": seconds,
        "seconds": round(time.monotonic() - start, 1),
    }


def _step(text: str) -> str:
    for prefix, name in _STEPS.items():
        if text.startswith(prefix):
            return name
    return text


def model_level_words(record: dict | None) -> str:
    """The record in a table cell: the verdict in the model catalog's words and r̄(m) of the expert's
    atoms (``identifiable (proof; r̄(1) = 1, r̄(2) = 4)``), or the step the budget cut, or the refusal."""
    if record is None:
        return "—"
    if record["refused"] is not None:
        return "refused: " + record["refused"]
    if record["verdict"] == "inconclusive" and record["unfinished"]:
        steps = list(dict.fromkeys(_step(u) for u in record["unfinished"]))
        more = f" and {len(steps) - 1} more" if len(steps) > 1 else ""
        return verdict_words(record, f"cut by the budget: {steps[0]}{more}")
    rbars: dict[int, set] = {}
    for atom in record["atoms"]:
        for cell in atom["cells"]:
            rbars.setdefault(cell["m"], set()).add(cell["rbar"])
    if all(values == {None} for values in rbars.values()):  # a failure in exact-fitted cells: no r̄ to show
        return verdict_words(record)
    shown = ", ".join(
        f"r̄({m}) = " + "/".join("—" if r is None else str(r) for r in sorted(values, key=lambda r: (r is None, r)))
        for m, values in sorted(rbars.items())
    )
    return verdict_words(record, shown)
