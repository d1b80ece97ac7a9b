"""The activation catalog: type-1 and type-2 verdicts for common activations, with witnesses.

``identcheck catalog --markdown --out docs/catalog.md`` writes the table committed in docs/; a
test regenerates it and fails when the committed one is stale. The table holds no floating-point
numbers (exact relations, or the labels of a numerical one), so it is the same on every machine.
"""

from __future__ import annotations

from .check import check
from .errors import IdentcheckError
from .families import ODE
from .pool import WorkerPool

__all__ = ["CATALOG", "catalog_rows", "to_markdown"]

MAX_JOBS = 64

#: (activation, note) — common gates with and without a bias.
CATALOG = [
    ("z", "identity: the MHA expert"),
    ("z + 1", "affine"),
    ("z**2", "polynomial"),
    ("z**3", "polynomial"),
    ("exp(z)", ""),
    ("sin(z)", ""),
    ("cos(z)", ""),
    ("cosh(z)", ""),
    ("erf(z)", ""),
    ("erf(z + 1)", "with bias"),
    ("tanh(z)", ""),
    ("tanh(z + 1)", "with bias"),
    ("tanh(z) + 0.1*z", ""),
    ("sigmoid(z)", ""),
    ("sigmoid(z + 1)", "the paper's example"),
    ("sigmoid(z - 1)", "with bias"),
    ("softplus(z)", ""),
    ("softplus(z + 1)", "with bias"),
    ("gelu(z)", ""),
    ("gelu(z + 1)", "with bias"),
    ("silu(z)", "SiLU / swish"),
    ("silu(z + 1)", "with bias"),
    ("atan(z)", ""),
    ("atan(z + 1)", "with bias"),
    ("log(1 + z**2)", ""),
    ("exp(-z**2)", "Gaussian"),
    ("z*exp(z)", ""),
]


def _witness(result) -> str:
    if result.witness is None:
        return ""
    probe = next(p for p in result.probes if p.name == result.witness)
    relation = probe.relations[0] if probe.relations else None
    if relation is None:
        return f"{probe.name}"
    if relation.exact is not None:
        text = str(relation)
    else:  # a numerical relation: its terms, without the float coefficients
        text = "relation among " + ", ".join(label for label, _ in relation.terms[:6])
        if len(relation.terms) > 6:
            text += ", …"
    family = relation.family or "unrecognised"
    if relation.family == ODE:  # the family is the equation: name it
        family += f" ({relation.hypothesis})"
    return f"{probe.name} — {family}: {text}"


CONDITIONS = ("type1", "type2")


def _cell(phi: str, condition: str) -> dict:
    result = check(phi, condition=condition)  # one BLAS thread: check.run holds the limit
    cell = {"verdict": str(result.verdict), "evidence": str(result.evidence), "witness": _witness(result)}
    if "literal_verdict" in result.details:  # type-2: the set as the paper states it
        cell["literal_verdict"] = str(result.details["literal_verdict"])
    return cell


def _cell_task(task) -> dict:
    """A worker's task: ``(phi, condition)`` → :func:`_cell`."""
    return _cell(*task)


def _row(entry, cells: dict) -> dict:
    """One table row: the entry and its cells, in condition order."""
    phi, note = entry
    return {"phi": phi, "note": note, **{condition: cells[condition] for condition in CONDITIONS}}


def catalog_rows(progress=None, jobs: int = 1, entries=None) -> list[dict]:
    """Check every catalog entry (or those of ``entries``, default :data:`CATALOG`) for type-1
    and type-2, in ``jobs`` processes (order kept).

    Within a process, the φ-free work (compiled terms, sample points, type-2 reductions and the
    φ-free parts of the arb evaluations) is shared by all the activations it checks. With
    several processes, each (φ, condition) is one task and the type-2 tasks (3–5 times longer)
    are handed out first, so the processes finish together (longest first); ``progress`` is
    called as rows complete, in completion order."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise IdentcheckError(param="jobs", value=jobs, reason=f"must be an integer from 1 to {MAX_JOBS}")
    entries = list(CATALOG if entries is None else entries)
    if jobs == 1:
        rows = []
        for i, entry in enumerate(entries):
            rows.append(_row(entry, {condition: _cell(entry[0], condition) for condition in CONDITIONS}))
            if progress is not None:
                progress(i + 1, len(entries), entry[0])
        return rows
    cells: list[dict] = [{} for _ in entries]
    tasks = [(i, condition) for condition in reversed(CONDITIONS) for i in range(len(entries))]
    with WorkerPool(jobs) as pool:  # an interrupt kills the workers at once (identcheck.pool)
        done = 0
        for k, cell in pool.imap_unordered(_cell_task, [(entries[i][0], condition) for i, condition in tasks]):
            i, condition = tasks[k]
            cells[i][condition] = cell
            if len(cells[i]) == len(CONDITIONS):
                done += 1
                if progress is not None:
                    progress(done, len(entries), entries[i][0])
    return [_row(entry, cell) for entry, cell in zip(entries, cells)]


def to_markdown(rows) -> str:
    lines = [
        "# Activation catalog",
        "",
        "Generated by `identcheck catalog --markdown --out docs/catalog.md` (d = 2, seed 0, default",
        "probes; type-2 with N = 2 gating matrices and K = 2 channels). *identifiable* means",
        "independent on every probe — numerical evidence, not a proof. *not identifiable* comes with",
        "a witness: the probe and the first relation found there (exact coefficients where a known",
        "family explains it; `[k]` is the component). The type-2 verdict is the reduced one; the",
        "literal type-2 set is dependent for every φ (docs/type2.md).",
        "",
        'What a verdict implies for the model (`scope` in the JSON; README, "What a verdict means"):',
        "*identifiable* — the sufficient condition of Theorem 2 (type-1, Setting I) or, by this project's",
        "reading of the reduced set, Theorem 3 (type-2, Setting II) holds at the probed parameters; in",
        "Setting I with K > K* (or two equal weights) channels can be recombined without changing the",
        "function, so the rates are for the measure-level loss — measured, not proved (docs/theorems.md).",
        "*not identifiable* — the sufficient condition fails; the model may still be locally identifiable",
        "(exp(z), docs/confirm.md).",
        "",
        "| φ | type-1 | type-2 | type-1 witness | type-2 witness |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        t1, t2 = row["type1"], row["type2"]
        name = f"`{row['phi']}`" + (f" ({row['note']})" if row["note"] else "")
        cells = [
            name,
            f"{t1['verdict']} ({t1['evidence']})",
            f"{t2['verdict']} ({t2['evidence']})",
            t1["witness"].replace("|", "\\|") or "—",
            t2["witness"].replace("|", "\\|") or "—",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
