"""Results rendered for Jupyter: the markdown behind ``_repr_markdown_``.

The same facts as the text report (:func:`identcheck.report.check_text`), laid out for a notebook:
verdict and evidence, the summary, the witness relations, the term count, and the probes as a
markdown table (one row per probe). The renderers read the result objects' own fields and their
data formatting (``Relation.tag``, ``CheckResult.terms_text``, ``inputs_text``); the text pieces
the two reports share (a literal verdict's text, the probe table's result column) are handed in by
:mod:`identcheck.report`, whose ``markdown_text`` the result types call. This module imports
nothing from the package (:mod:`pde` and the scan's report use its table helpers).
"""

from __future__ import annotations

__all__ = ["check_markdown", "code", "cell", "proof_markdown", "table"]

RELATIONS_SHOWN = 4


def cell(text) -> str:
    """Text safe inside a markdown table cell (``|`` escaped, no line breaks)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def code(text) -> str:
    """Text as an inline code span (formulas keep their ``*`` and ``_``); not for table cells."""
    return "`" + str(text).replace("\n", " ") + "`"


def table(header, rows, align=None) -> str:
    """A markdown table; ``align`` is one of ``'l'``/``'r'`` per column (default left)."""
    align = align or "l" * len(header)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def check_markdown(result, literal, probe_text, beyond=None, bites=(None, None), notes=()) -> str:
    """Markdown for a :class:`~identcheck.results.CheckResult`; ``literal`` is the literal verdict's
    text when the condition gave one (:func:`identcheck.report.literal_text`), ``probe_text(probe,
    certified)`` the probe table's result column (:func:`identcheck.report.probe_result_text`),
    ``beyond`` an expert's (relations beyond its template, caveat) (:func:`identcheck.report.beyond_template_text`),
    ``bites`` (the result's order text, ``tag(result, relation)``) (:func:`identcheck.report.bites_text`,
    :func:`identcheck.report.relation_tag`), ``notes`` further statements (the every-ratio scan's, the
    search's)."""
    parts = [
        f"**{result.object_name} = {code(result.phi_shown)}** · {result.condition}, d = {result.dim}",
        f"**Verdict{'' if literal is None else ' (reduced set)'}: {str(result.verdict).upper()}** "
        f"({result.evidence} evidence) — {result.summary}",
    ]
    if literal is not None:
        parts.append(f"**Verdict (literal set, as the paper states it): {literal}**")
    if beyond is not None:
        parts.append(f"*Beyond its template:* {beyond[0]} ({beyond[1]})")
    if bites[0] is not None:
        parts.append(bites[0][0].upper() + bites[0][1:])
    parts += [str(note) for note in notes]
    if result.scope is not None:
        parts.append(f"*What this means ({result.scope.theorem}):* {result.scope.implies}")
    witness = result.witness_probe
    if witness is not None and witness.relations:
        lines = [f"Witness relations on probe *{witness.name}*:"]
        tag = bites[1] or (lambda result, r: result.shown(r.tag))
        lines += [f"- {code(r)} — {code(tag(result, r))}" for r in witness.relations[:RELATIONS_SHOWN]]
        if len(witness.relations) > RELATIONS_SHOWN:
            lines.append(f"- … and {len(witness.relations) - RELATIONS_SHOWN} more relation(s) on this probe")
        parts.append("\n".join(lines))
    parts.append(f"Terms: {result.terms_text}.")
    rows = [
        (p.name, p.n_terms, f"{p.smallest_singular_value:.2e}", p.precision_digits, probe_text(p, result.certified))
        for p in result.probes
    ]
    parts.append(
        f"Probes (seed {result.seed}, {result.points_per_term} points per term, {result.inputs_text}; "
        f"{result.seconds:.2f} s):\n\n" + table(("probe", "terms", "margin", "digits", "result"), rows, "lrrrl")
    )
    return "\n\n".join(parts) + "\n"


def proof_markdown(proof) -> str:
    """Markdown for a :class:`~pde.FamilyProof`."""
    if not proof.holds:
        return f"**{proof.family}**: {code(proof.hypothesis)} not shown for this φ ({proof.note})\n"
    lines = [
        f"**{proof.family}**: {code(proof.hypothesis_shown)}",
        "",
        f"identity: {code(proof.shown(proof.identity))}",
        "",
    ]
    for what, shown, ok in proof.steps:
        lines.append(f"- {what}: {code(proof.shown(shown))} → {'exact 0' if ok else 'not reduced to 0'}")
    lines += [
        "",
        "**PROVED** for all x, symmetric M, a" if proof.proved else f"not proved: {proof.note or 'a step failed'}",
    ]
    return "\n".join(lines) + "\n"
