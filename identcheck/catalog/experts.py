"""The expert catalog: the DeepSeekMoE conditions (arXiv 2505.10860) for common experts.

``identcheck catalog --experts --model-level --markdown --out docs/conditions/deepseekmoe_catalog.md``
writes the table committed in docs/; a test regenerates rows of it. With ``--model-level`` each cell
also holds the model-level verdict of the DeepSeekMoE declaration holding the expert
(:mod:`identcheck.catalog.expert_models`). Each cell holds the verdict, the witness
(probe — family: exact relation, or the labels of a numerical one) and the reach of the failure:
*template only* when every relation found is shared by every expert of the template, else the
probes with relations specific to the expert. No floating-point number is in the table.
"""

from __future__ import annotations

from typing import Any

from ..check import check
from ..declaration.deepseek_expert import PART_FOR
from ..errors import IdentcheckError
from ..families.reach import REACH_EXPERT, REACH_TEMPLATE
from ..util.bites import witness_words
from ..util.pool import WorkerPool
from .expert_models import PARTS, SECONDS, check_model_seconds, model_level_cell, model_level_words

__all__ = ["EXPERT_CATALOG", "EXPERT_CONDITIONS", "beyond_cell", "expert_catalog_rows", "expert_catalog_markdown"]

MAX_JOBS = 64
EXPERT_CONDITIONS = ("deepseek-shared", "deepseek-routed", "deepseek-weak")
MODEL_LEVEL = "model-level"  # a task's tag: the model-level check of one part

#: (expert, note): the paper's examples, then experts a practitioner would try.
EXPERT_CATALOG = [
    ("dot(e1, x) + e0", "paper: linear expert (fails Definition 1; satisfies Definition 2, says the paper)"),
    ("e2*gelu(dot(e1, x))", "paper: two-layer FFN with GELU (strongly identifiable, says the paper)"),
    ("e2*sigmoid(dot(e1, x) + e0)", "paper: the FFN with sigmoid"),
    ("e2*tanh(dot(e1, x) + e0)", "paper: the FFN with tanh"),
    ("e0 + e1", "paper: input-free expert (fails Definition 2)"),
    ("e2*(dot(e1, x) + e0)**3", "homogeneous: the smooth analogue of ReLU's positive homogeneity"),
    ("softplus(dot(e1, x) + e0)", "no output scale"),
    ("e2*softplus(dot(e1, x) + e0)", ""),
    ("e2*silu(dot(e1, x))", "SiLU / swish"),
    ("e2*erf(dot(e1, x) + e0)", ""),
    ("exp(dot(e1, x))", "exponential ridge"),
    ("e2*exp(-dot(e1, x)**2)", "Gaussian ridge"),
    ("e2*exp(-(x1 - e1)**2 - (x2 - e0)**2)", "Gaussian bump with a centre (d = 2)"),
    ("e2*sin(dot(e1, x) + e0)", "periodic"),
    ("e2*tanh(dot(e1, x)) + e0", "output bias"),
    ("dot(e1, x) + e2*dot(e1, x)**2", "quadratic ridge"),
    # ten a practitioner would try (docs/conditions/deepseekmoe.md: expected by hand, then run)
    ("e2*silu(dot(e1, x) + e0)", "SiLU / swish with a bias"),
    ("e2*gelu(dot(e1, x) + e0)", "GELU with a bias"),
    ("c1*tanh(dot(w1, x) + b1) + c2*tanh(dot(w2, x) + b2)", "two-unit tanh MLP"),
    ("q1*x1**2 + q2*x1*x2 + q3*x2**2 + dot(w, x) + b", "quadratic, linear in its parameters (d = 2)"),
    ("c*exp(-s*((x1 - m1)**2 + (x2 - m2)**2))", "Gaussian RBF with a learned width (d = 2)"),
    ("exp(dot(e1, x) + e0)", "log-linear"),
    ("sigmoid(dot(g, x) + g0)*(dot(w, x) + b)", "sigmoid-gated linear unit"),
    ("e2*(dot(e1, x) + e0)**2", "squared ridge: ReLU²'s smooth part"),
    ("softplus(s*(dot(w, x) + b))/s", "softplus with a learned β"),
    ("dot(w, x) + c*tanh(dot(v, x) + b)", "linear + a tanh unit (skip connection)"),
]


def _witness(result) -> str:
    probe = result.witness_probe
    if probe is None:
        return ""
    relation = probe.relation
    if relation is None:
        return probe.name
    text = (
        str(relation)
        if relation.exact is not None
        else "relation among " + ", ".join(label for label, _ in relation.terms[:6])
    )
    return f"{probe.name} — {relation.family or 'unrecognised'}: {text}" + witness_words(result, relation)


def _reach(result) -> str:
    dependent = [p for p in result.probes if p.counts_for_verdict and p.dependent]
    relations = [r for p in dependent for r in p.relations]
    if not relations:
        return ""
    if all(getattr(r, "reach", None) == REACH_TEMPLATE for r in relations):
        return "template only"
    specific = [p.name for p in dependent if any(getattr(r, "reach", None) == REACH_EXPERT for r in p.relations)]
    unknown = sum(getattr(r, "reach", None) is None for r in relations)
    template = any(getattr(r, "reach", None) == REACH_TEMPLATE for r in relations)
    parts = ["specific on " + ", ".join(specific)] if specific else ["template"] if template else []
    return "; ".join(parts + ([f"{unknown} of unknown reach"] if unknown else []))


def beyond_cell(beyond) -> str:
    """The *beyond its template* cell from a result's ``details["beyond_template"]``: how many relations are
    specific to the expert, by family, and the first; "none" when every relation read is the template's."""
    if not beyond:
        return ""
    unknown = f"; {beyond['unknown']} of unknown reach" if beyond["unknown"] else ""
    if beyond["specific"] == 0:
        return ("none found" if unknown else "none") + unknown
    families = ", ".join(f"{n} × {family}" for family, n in beyond["families"])
    return f"{beyond['specific']}: {families}; first: {beyond['first']['relation']}{unknown}"


def _cell(task) -> dict:
    if task[0] == MODEL_LEVEL:  # the model-level check of the expert's part (identcheck.catalog.expert_models)
        _, expert, part, seconds = task
        return model_level_cell(expert, part, seconds)
    expert, condition = task
    result = check(expert, condition=condition)
    return {
        "verdict": str(result.verdict),
        "evidence": str(result.evidence),
        "witness": _witness(result),
        "reach": _reach(result),
        "beyond_template": beyond_cell(result.details.get("beyond_template")),
    }


def expert_catalog_rows(
    progress=None, jobs: int = 1, entries=None, model_level: bool = False, model_seconds: float = SECONDS
) -> list[dict]:
    """Check every entry (default :data:`EXPERT_CATALOG`) for the three conditions, in ``jobs``
    processes (order kept); ``progress(done, total, expert)`` as rows complete. With ``model_level``
    each condition's cell gains ``model_level``, the model-level record of the expert's part
    (:func:`~identcheck.catalog.expert_models.model_level_cell`, ``model_seconds`` per check; routed
    and weak share the routed part's record); without it, ``model_level`` is None."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise IdentcheckError(param="jobs", value=jobs, reason=f"must be an integer from 1 to {MAX_JOBS}")
    if model_level:
        model_seconds = check_model_seconds(model_seconds)
    entries = list(EXPERT_CATALOG if entries is None else entries)
    tasks: list[tuple[int, Any]] = [(i, condition) for i in range(len(entries)) for condition in EXPERT_CONDITIONS]
    items: list[tuple] = [(entries[i][0], condition) for i, condition in tasks]
    if model_level:  # the slow checks first: the pool's last minutes are not spent on one of them alone
        model_tasks = [(i, (MODEL_LEVEL, part)) for i in range(len(entries)) for part in PARTS]
        items = [(MODEL_LEVEL, entries[i][0], part, model_seconds) for i, (_, part) in model_tasks] + items
        tasks = model_tasks + tasks
    per_row = len(tasks) // max(len(entries), 1)
    cells: list[dict] = [{} for _ in entries]
    done = 0

    def store(k, cell):
        nonlocal done
        i, key = tasks[k]
        cells[i][key] = cell
        if len(cells[i]) == per_row:
            done += 1
            if progress is not None:
                progress(done, len(entries), entries[i][0])

    if jobs == 1:
        for k, item in enumerate(items):
            store(k, _cell(item))
    else:
        with WorkerPool(jobs) as pool:  # an interrupt kills the workers at once (identcheck.util.pool)
            for k, cell in pool.imap_unordered(_cell, items):
                store(k, cell)
    rows = []
    for i, (expert, note) in enumerate(entries):
        row = {"expert": expert, "note": note}
        for condition in EXPERT_CONDITIONS:
            record = cells[i].get((MODEL_LEVEL, PART_FOR[condition])) if model_level else None
            row[condition] = cells[i][condition] | {"model_level": record}
        rows.append(row)
    return rows


def expert_catalog_markdown(rows) -> str:
    """The rows as the page docs/conditions/deepseekmoe_catalog.md; with the model-level records
    (``--model-level``) a *model level* column beside each literal verdict."""
    model_level = any(row[c].get("model_level") is not None for row in rows for c in EXPERT_CONDITIONS)
    flag = " --model-level" if model_level else ""
    records = [row[c].get("model_level") for row in rows for c in EXPERT_CONDITIONS]
    budgets = sorted({r["budget"] for r in records if r is not None} - {None})
    budget_words = " or ".join(f"{b:g} s" for b in budgets) or "the seconds given"
    lines = [
        "# Expert catalog: DeepSeekMoE's conditions (arXiv 2505.10860)",
        "",
        f"Generated by `identcheck catalog --experts{flag} --markdown --out docs/conditions/deepseekmoe_catalog.md`",
        "(d = 2, seed 0). *shared*: Definition 1's S1 and S2; *routed*: its S3; *weak*: Definition 2",
        "(docs/conditions/deepseekmoe.md). *identifiable* means independent on every probe — numerical",
        "evidence at the probed atoms, not a proof. *not identifiable* comes with a witness: the probe,",
        "the relation's family and the first relation found there (`[k]` is the atom), and in brackets",
        "the order at which it bites — order ≤ 1 in exact-fitted cells, order ≥ 2 only in over-fitted",
        "ones — with the verdict's earliest when another probe bites sooner (docs/method.md §9). *reach*:",
        "*template only* when every relation found holds for every expert of the template (function",
        "calls made arbitrary), else the probes where some relation is specific to this expert, and how",
        "many relations were not read exactly or not decided for the template (*of unknown reach*).",
        "*beyond its template*: how many relations are specific to this expert, by family, and the first;",
        "*none* when every relation read holds for every expert of the template. Neither column is an",
        "identifiability verdict: a template's relation can be harmless under one likelihood and harmful",
        "under another, which the model-level check decides (docs/model.md).",
    ]
    if model_level:
        lines += [
            "",
            "*model level*: the model's own answer, which the literal conditions only suffice for: `identcheck",
            "model` (docs/model.md) on the DeepSeekMoE declaration `deepseek-tanh` at d = 1 with the expert in",
            "the shared part (*shared*) or the routed part (*routed* and *weak*: one model, one check), two true",
            f"atoms drawn from seed 0, order ≤ 4, cells of ≤ 2 atoms, {budget_words} per check (`--model-seconds`;",
            "identcheck/catalog/expert_models.py). *proof* is exact; r̄(2) is the smallest Taylor order",
            "whose coefficient system of a cell of two atoms has only the trivial solution. *cut by the",
            "budget* names the step that did not finish (then *inconclusive*, unless an atom's failure was",
            "proved); *refused* gives the reason (an expert in x2 needs d = 2).",
        ]
    head = (
        ["expert", "condition", "verdict"]
        + (["model level"] if model_level else [])
        + [
            "witness",
            "reach",
            "beyond its template",
        ]
    )
    lines += ["", "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for row in rows:
        name = f"`{row['expert']}`" + (f" ({row['note']})" if row["note"] else "")
        for condition in EXPERT_CONDITIONS:
            cell = row[condition]
            witness = cell["witness"].replace("|", "\\|") or "—"
            beyond = cell["beyond_template"].replace("|", "\\|") or "—"
            model = [model_level_words(cell.get("model_level")).replace("|", "\\|")] if model_level else []
            values = [name, condition.removeprefix("deepseek-"), f"{cell['verdict']} ({cell['evidence']})"]
            values += model + [witness, cell["reach"] or "—", beyond]
            lines.append("| " + " | ".join(values) + " |")
            name = ""
    return "\n".join(lines) + "\n"
