"""The activation catalog: type-1 and type-2 verdicts for common activations, with witnesses.

``identcheck catalog --markdown --out docs/catalog.md`` writes the table committed in docs/; a
test regenerates it and fails when the committed one is stale. The table holds no floating-point
numbers (exact relations, or the labels of a numerical one), so it is the same on every machine.

Any registered condition that judges an activation φ runs over the same activations
(``identcheck catalog --condition NAME``, repeatable; ``catalog_rows(conditions=…)``): a row holds
one cell per condition, under its name, and the table one verdict and one witness column per
condition. A condition whose :attr:`~identcheck.conditions.base.Condition.subject` is not φ — one on
experts, or one that takes no input (mha) — reads no activation: it is refused (the expert conditions
have ``catalog --experts``, :mod:`identcheck.catalog.experts`).
"""

from __future__ import annotations

from ..check import check
from ..conditions import CONDITIONS as REGISTRY
from ..conditions import unknown_condition
from ..errors import IdentcheckError
from ..families import ODE
from ..scan.ratio import check_every_ratio, parse_ratios
from ..scan.search_check import check_searching, parse_search
from ..util.bites import witness_words
from ..util.pool import WorkerPool

__all__ = ["CATALOG", "CONDITIONS", "catalog_conditions", "catalog_rows", "to_markdown"]

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
    return f"{probe.name} — {family}: {text}" + witness_words(result, relation)


#: The conditions of the committed table (docs/catalog.md), the default.
CONDITIONS = ("type1", "type2")
#: The names the table gives them (any other condition is shown by its registry name).
SHOWN = {"type1": "type-1", "type2": "type-2"}
#: A row's own fields: no condition's cell may take their place.
ROW_FIELDS = ("phi", "note")


def catalog_conditions(conditions=None) -> tuple[str, ...]:
    """``conditions`` checked (default :data:`CONDITIONS`): registered, each once, and judging φ."""
    if conditions is None:
        return CONDITIONS
    if isinstance(conditions, str) or not conditions:
        raise IdentcheckError(
            param="conditions", value=conditions, reason="must be a non-empty list of condition names"
        )
    for name in conditions:
        if not isinstance(name, str) or name not in REGISTRY:
            raise unknown_condition(name, param="conditions")
        if name in ROW_FIELDS or list(conditions).count(name) > 1:
            raise IdentcheckError(param="conditions", value=name, reason="given twice, or a row's field name")
        subject = REGISTRY[name].subject  # what the condition reads (Condition.subject); the rows are φ's
        if subject != "phi":
            why = "it judges an expert: catalog --experts" if subject == "expert" else "it takes no input"
            raise IdentcheckError(param="conditions", value=name, reason=f"does not judge an activation φ ({why})")
    return tuple(conditions)


def _cell(phi: str, condition: str, ratios=None, search=None) -> dict:
    every = ratios if condition == "type1" else None  # the ratio scan of parallel experts: type-1 only
    starts = search if condition == "type1" else None  # the search of the strata: type-1 only
    # one BLAS thread: check.run holds the limit
    if starts is not None:
        result = check_searching(phi, starts, condition=condition, ratios=every)
    elif every is not None:
        result = check_every_ratio(phi, every, condition=condition)
    else:
        result = check(phi, condition=condition)
    cell = {"verdict": str(result.verdict), "evidence": str(result.evidence), "witness": _witness(result)}
    if every is not None:  # docs/scan.md, "Every ratio of parallel experts"
        cell["ratios"] = result.details["ratios"].to_dict()
    if starts is not None:  # docs/scan.md, "Search where no probe looks"
        cell["search"] = result.details["search"].to_dict()
    if "literal_verdict" in result.details:  # type-2: the set as the paper states it
        cell["literal_verdict"] = str(result.details["literal_verdict"])
    return cell


def _refuse_without_type1(conditions, **asked) -> None:
    """A ``ratios`` or ``search`` given (not None) for a table without type1, whose cells alone run it:
    an IdentcheckError naming it (no silent no-op)."""
    for name, value in asked.items():
        if value is not None and "type1" not in conditions:
            shown = ", ".join(conditions)
            raise IdentcheckError(
                param=name,
                value=value,
                reason=f"applies to the table's type1 cells only, and there are none (conditions: {shown}; "
                "add --condition type1)",
            )


def _cell_task(task) -> dict:
    """A worker's task: ``(phi, condition, ratios, search)`` → :func:`_cell`."""
    return _cell(*task)


def _row(entry, cells: dict, conditions) -> dict:
    """One table row: the entry and its cells, in condition order."""
    phi, note = entry
    return {"phi": phi, "note": note, **{condition: cells[condition] for condition in conditions}}


def catalog_rows(progress=None, jobs: int = 1, entries=None, conditions=None, ratios=None, search=None) -> list[dict]:
    """Check every catalog entry (or those of ``entries``, default :data:`CATALOG`) for each of
    ``conditions`` (default type-1 and type-2, :data:`CONDITIONS`), in ``jobs`` processes (order kept).

    Within a process, the φ-free work (compiled terms, sample points, type-2 reductions and the
    φ-free parts of the arb evaluations) is shared by all the activations it checks. With
    several processes, each (φ, condition) is one task and the last condition's tasks (type-2's:
    3–5 times longer) are handed out first, so the processes finish together (longest first); ``progress`` is
    called as rows complete, in completion order. ``ratios`` (``"LO:HI[:COUNT]"``): type-1's cells also
    scan every ratio of parallel experts (:func:`~identcheck.scan.ratio.check_every_ratio`), the outcome
    in the cell's ``ratios``. ``search`` (N starts): type-1's cells also search the strata of their
    independent probes (:func:`~identcheck.scan.search_check.check_searching`), the outcome in the cell's
    ``search``. Either asked of a table without type1 (``conditions=["type2"]``) would run nothing: it is
    refused, as is any condition that is not φ's (mha takes no φ: :func:`catalog_conditions`)."""
    if ratios is not None:
        parse_ratios(ratios)  # refused before any cell runs
    if search is not None:
        parse_search(search)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise IdentcheckError(param="jobs", value=jobs, reason=f"must be an integer from 1 to {MAX_JOBS}")
    conditions = catalog_conditions(conditions)
    _refuse_without_type1(conditions, ratios=ratios, search=search)
    entries = list(CATALOG if entries is None else entries)
    if jobs == 1:
        rows = []
        for i, entry in enumerate(entries):
            row_cells = {condition: _cell(entry[0], condition, ratios, search) for condition in conditions}
            rows.append(_row(entry, row_cells, conditions))
            if progress is not None:
                progress(i + 1, len(entries), entry[0])
        return rows
    cells: list[dict] = [{} for _ in entries]
    tasks = [(i, condition) for condition in reversed(conditions) for i in range(len(entries))]
    with WorkerPool(jobs) as pool:  # an interrupt kills the workers at once (identcheck.util.pool)
        done = 0
        for k, cell in pool.imap_unordered(
            _cell_task, [(entries[i][0], condition, ratios, search) for i, condition in tasks]
        ):
            i, condition = tasks[k]
            cells[i][condition] = cell
            if len(cells[i]) == len(conditions):
                done += 1
                if progress is not None:
                    progress(done, len(entries), entries[i][0])
    return [_row(entry, cell, conditions) for entry, cell in zip(entries, cells)]


def to_markdown(rows, conditions=None) -> str:
    """The table of ``rows`` (:func:`catalog_rows`) for ``conditions`` (default: the rows' own, in order);
    for type-1 and type-2, the committed docs/catalog.md."""
    if conditions is None:
        conditions = tuple(name for name in (rows[0] if rows else CONDITIONS) if name not in ROW_FIELDS)
    conditions = tuple(conditions)
    lines = _head() if conditions == CONDITIONS else _generic_head(conditions)
    shown = [SHOWN.get(c, c) for c in conditions]
    lines += [
        "| φ | " + " | ".join([*shown, *(f"{name} witness" for name in shown)]) + " |",
        "| --- |" + " --- |" * (2 * len(conditions)),
    ]
    for row in rows:
        name = f"`{row['phi']}`" + (f" ({row['note']})" if row["note"] else "")
        verdicts = [f"{row[c]['verdict']} ({row[c]['evidence']})" for c in conditions]
        witnesses = [row[c]["witness"].replace("|", "\\|") or "—" for c in conditions]
        lines.append("| " + " | ".join([name, *verdicts, *witnesses]) + " |")
    return "\n".join(lines) + "\n"


def _generic_head(conditions) -> list[str]:
    """The head of a table for other conditions: how it was made, each condition's scope."""
    flags = " ".join(f"--condition {c}" for c in conditions)
    lines = [
        f"# Activation catalog: {', '.join(conditions)}",
        "",
        f"Generated by `identcheck catalog {flags} --markdown` (d = 2, seed 0, default probes).",
        "*identifiable* means independent on every probe — numerical evidence, not a proof. *not identifiable*",
        "comes with a witness: the probe and the first relation found there.",
        "",
    ]
    for c in conditions:
        scope = REGISTRY[c].scope
        lines += [
            f"`{c}` — {scope.model}; {scope.theorem}. *identifiable*: {scope.identifiable} "
            f"*not identifiable*: {scope.not_identifiable}",
            "",
        ]
    return lines


def _head() -> list[str]:
    return [
        "# Activation catalog",
        "",
        "Generated by `identcheck catalog --markdown --out docs/catalog.md` (d = 2, seed 0, default",
        "probes; type-2 with N = 2 gating matrices and K = 2 channels). *identifiable* means",
        "independent on every probe — numerical evidence, not a proof. *not identifiable* comes with",
        "a witness: the probe and the first relation found there (exact coefficients where a known",
        "family explains it; `[k]` is the component). The type-2 verdict is the reduced one; the",
        "literal type-2 set is dependent for every φ (docs/type2.md). In brackets: the order at which",
        "the witness relation bites — order ≤ 1 in exact-fitted cells, order ≥ 2 only in over-fitted",
        "ones — and the verdict's earliest when another probe bites sooner (docs/method.md §9).",
        "",
        'What a verdict implies for the model (`scope` in the JSON; README, "What a verdict means"):',
        "*identifiable* — the sufficient condition of Theorem 2 (type-1, Setting I) or, by this project's",
        "reading of the reduced set, Theorem 3 (type-2, Setting II) holds at the probed parameters; in",
        "Setting I with K > K* (or two equal weights) channels can be recombined without changing the",
        "function, so the rates are for the measure-level loss — measured, not proved (docs/theorems.md).",
        "*not identifiable* — the sufficient condition fails; the model may still be locally identifiable",
        "(exp(z), docs/confirm.md).",
        "",
        "Other tables of the same command: `--experts` (DeepSeekMoE's expert conditions; with",
        "`--model-level [--model-seconds S]`, the model-level verdict beside each literal one:",
        "docs/conditions/deepseekmoe_catalog.md) and `--models` (the shipped declarations' model-level",
        "verdicts, docs/model.md).",
        "",
    ]
