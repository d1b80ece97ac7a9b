"""The type1-full findings for the catalog: does a φ pass type-1 but fail Theorem 2's union?

``python3 -m identcheck.catalog.type1_full --out docs/catalog_type1_full.md`` writes the section
committed in docs/ (a test regenerates it and fails when it is stale). For every catalog
activation (:data:`~identcheck.catalog.activations.CATALOG`) it runs ``type1`` and ``type1-full``
(:mod:`~identcheck.conditions.type1_full`) at d = 2, seed 0, and reports both verdicts and the
finding, with the witness. The v̄-terms (the terms the union adds to T1) *add* a dependence on
a probe when the union's nullity exceeds its T1 block's (decided on the same points); the
witness is then that probe and its first relation with a v̄-term, else the verdict's witness.
Like the catalog table, it holds no floating-point numbers, so it is the same on every machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..check import check, make_condition
from ..conditions.type1_full import head_terms
from ..families import ODE
from ..rank.reduce import sub_gram
from ..rank.rule import decide_rank
from ..util.interrupts import Interrupted, answer_interrupt, interrupts, signal_of
from ..util.pool import WorkerPool
from .activations import CATALOG

__all__ = ["finding", "findings", "findings_markdown", "main"]

SHOWN = 6


def _is_v(key) -> bool:
    """Whether a type1-full column key is a v̄-term's (:mod:`~identcheck.conditions.type1_full`)."""
    return key[0] == "v"


def _relation_text(probe, relation) -> str:
    if relation.exact is not None:
        text = str(relation)
    else:  # numerical coefficients: the labels only, v̄-terms first
        labels = [
            label for (label, _), key in sorted(zip(relation.terms, relation.keys), key=lambda term: not _is_v(term[1]))
        ]
        text = "relation among " + ", ".join(labels[:SHOWN]) + (", …" if len(labels) > SHOWN else "")
    family = relation.family or "unrecognised"
    if relation.family == ODE:  # the family is the equation: name it
        family += f" ({relation.hypothesis})"
    return f"{probe.name} — {family}: {text}"


def _t1_nullities(phi, result) -> dict:
    """Per dependent counted probe: the nullity of the union's T1 block (its first columns),
    decided the same way (float64, then the precision ladder on the same points)."""
    condition = make_condition(phi, "type1-full")
    nullities = {}
    for index, probe in enumerate(condition.probes()):
        outcome = result.probes[index]
        if not (outcome.counts_for_verdict and outcome.dependent):
            continue
        head = probe.components[0]
        n_t1 = head_terms(condition.dim, len(head.M) - 1, len(head.a[0])).n_t1
        matrix = condition.matrix(probe, index)
        block = decide_rank(
            matrix.float64()[:, :n_t1], ladder=condition.ladder, gram=sub_gram(matrix.gram, range(n_t1))
        )
        nullities[probe.name] = block.nullity if block.independent is not None else None
    return nullities


def _v_witness(probe) -> str:
    """The probe and its first relation with a v̄-term (labels only when numerical)."""
    relation = next((r for r in probe.relations if any(_is_v(key) for key in r.keys)), probe.relation)
    return probe.name if relation is None else _relation_text(probe, relation)


def finding(entry, t1=None, full=None) -> dict:
    """type1 and type1-full for one catalog entry, and what the v̄-terms add.

    The v̄-terms *add* a relation on a probe when the union's nullity exceeds that of its T1
    block (the rank of the T1 columns decided on the same points): only then is the dependence
    theirs, whatever the null-space basis happens to mix. ``t1`` and ``full``: the entry's
    default ``check`` results for ``type1`` and ``type1-full``, when the caller has them already.
    """
    phi, note = entry
    t1 = check(phi, condition="type1") if t1 is None else t1
    full = check(phi, condition="type1-full") if full is None else full
    blocks = _t1_nullities(phi, full)
    added = [p for p in full.probes if p.name in blocks and blocks[p.name] is not None and p.nullity > blocks[p.name]]
    if full.verdict == "inconclusive" or t1.verdict == "inconclusive" or None in blocks.values():
        outcome = "inconclusive"
    elif t1.verdict == "not identifiable":
        outcome = "fails type-1 already" + ("; the v̄-terms add relations too" if added else "")
    elif added:
        outcome = "PASSES type-1, FAILS the union (the v̄-terms add relations)"
    elif full.verdict == "not identifiable":
        outcome = "passes type-1; the union's heads fail on their T1 block (fixed-gate experts added)"
    else:
        outcome = "passes both"
    if added:
        probe = added[0]
        witness = (
            _v_witness(probe)
            + f" ({probe.nullity - blocks[probe.name]} of {probe.nullity} relation(s) from the v̄-terms)"
        )
    elif full.witness_probe is not None:
        probe = full.witness_probe
        witness = _relation_text(probe, probe.relation) if probe.relation is not None else probe.name
    else:
        witness = ""
    return {
        "phi": phi,
        "note": note,
        "type1": f"{t1.verdict} ({t1.evidence})",
        "type1_full": f"{full.verdict} ({full.evidence})",
        "finding": outcome,
        "witness": witness,
        "apart": [p.name for p in full.probes if not p.admissible],
    }


def findings(jobs: int = 1) -> list[dict]:
    """One row per catalog activation (order kept), in ``jobs`` processes."""
    if jobs == 1:
        return [finding(entry) for entry in CATALOG]
    with WorkerPool(jobs) as pool:  # an interrupt kills the workers at once (identcheck.util.pool)
        return list(pool.imap(finding, CATALOG))


def findings_markdown(rows) -> str:
    """The committed section: header, method, one table row per activation."""
    apart = sorted({name for row in rows for name in row["apart"]})
    passes_t1_fails_union = [row["phi"] for row in rows if row["finding"].startswith("PASSES")]
    adds = [row["phi"] for row in rows if "v̄-terms add" in row["finding"]]
    lines = [
        "# Activation catalog: Theorem 2's full decomposition (`--condition type1-full`)",
        "",
        "Generated by `python3 -m identcheck.catalog.type1_full --out docs/catalog_type1_full.md` (d = 2,",
        "seed 0). `type1-full` is T1 ∪ the softmax-denominator terms ∂^r v̄^k/∂M^r(x; M_i) of the",
        "decomposition in the proof of Theorem 2 (Appendix B.2; our reading of the garbled formula is",
        "in `identcheck/conditions/type1_full.py` and docs/method.md). Each type-1 probe is read as",
        "one head with its fixed gate M_N = 0; the union contains T1, so a φ that fails type-1 fails",
        "the union too. The question is whether a φ passes type-1 but fails the union. Probes",
        "reported apart (they violate (A.4) as heads, not counted): " + (", ".join(apart) or "none") + ".",
        "",
        "Passes type-1 but fails the union: " + (", ".join(f"`{p}`" for p in passes_t1_fails_union) or "none") + ".",
        "The v̄-terms add relations (union nullity above its T1 block's on some counted probe) for: "
        + (", ".join(f"`{p}`" for p in adds) or "none")
        + ".",
        "",
        (
            "| φ | type-1 | type1-full | finding | "
            "witness (where the v̄-terms add relations: the first with a v̄-term; else the verdict's) |"
        ),
        "| --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        name = f"`{row['phi']}`" + (f" ({row['note']})" if row["note"] else "")
        cells = [name, row["type1"], row["type1_full"], row["finding"], row["witness"].replace("|", "\\|") or "—"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python3 -m identcheck.catalog.type1_full", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--out", type=Path, help="write the markdown here (default: print it)")
    parser.add_argument(
        "--jobs", type=int, default=1, choices=range(1, 9), metavar="1..8", help="processes (default 1)"
    )
    args = parser.parse_args(argv)
    with interrupts():
        try:
            text = findings_markdown(findings(args.jobs))
        except KeyboardInterrupt as exc:  # SIGINT or SIGTERM: the workers are gone already (identcheck.util.pool)
            return answer_interrupt(
                Interrupted(signal_of(exc), "nothing written (--out is written only when complete)"), parser.prog
            )
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
