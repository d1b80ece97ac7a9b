"""Results rendered for Jupyter: the markdown behind ``_repr_markdown_``.

The same facts as the text report (:meth:`report.CheckResult.to_text`), laid out for a notebook:
verdict and evidence, the summary, the witness relations, the term count, and the probes as a
markdown table (one row per probe). The renderers read the result objects' own fields and their
text helpers (``Relation.tag``, ``ProbeResult.result_text``, ``CheckResult.terms_text``); this
module imports nothing from the package, so the result modules can import it.
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


def check_markdown(result) -> str:
    """Markdown for a :class:`~report.CheckResult`."""
    parts = [
        f"**φ(z) = {code(result.phi_shown)}** · {result.condition}, d = {result.dim}",
        f"**Verdict{'' if result.literal_verdict is None else ' (reduced set)'}: {str(result.verdict).upper()}** "
        f"({result.evidence} evidence) — {result.summary}",
    ]
    if result.literal_verdict is not None:
        parts.append(f"**Verdict (literal set, as the paper states it): {result.literal_text}**")
    if result.scope is not None:
        parts.append(f"*What this means ({result.scope.theorem}):* {result.scope.implies}")
    witness = result.witness_probe
    if witness is not None and witness.relations:
        lines = [f"Witness relations on probe *{witness.name}*:"]
        lines += [f"- {code(r)} — {code(result.shown(r.tag))}" for r in witness.relations[:RELATIONS_SHOWN]]
        if len(witness.relations) > RELATIONS_SHOWN:
            lines.append(f"- … and {len(witness.relations) - RELATIONS_SHOWN} more relation(s) on this probe")
        parts.append("\n".join(lines))
    parts.append(f"Terms: {result.terms_text}.")
    rows = [
        (p.name, p.n_terms, f"{p.smallest_singular_value:.2e}", p.precision_digits, p.result_text(result.certified))
        for p in result.probes
    ]
    parts.append(
        f"Probes (seed {result.seed}, {result.points_per_term} points per term, x uniform in [-1, 1]^{result.dim}, "
        f"z = aᵀx in [-{result.domain_bound:g}, {result.domain_bound:g}]; {result.seconds:.2f} s):\n\n"
        + table(("probe", "terms", "margin", "digits", "result"), rows, "lrrrl")
    )
    return "\n\n".join(parts) + "\n"


def proof_markdown(proof) -> str:
    """Markdown for a :class:`~pde.FamilyProof`."""
    if not proof.holds:
        return f"**{proof.family}**: {code(proof.hypothesis)} not shown for this φ ({proof.note})\n"
    lines = [
        f"**{proof.family}**: {code(proof.shown(proof.hypothesis))}",
        "",
        f"identity: {code(proof.shown(proof.identity))}",
        "",
    ]
    for what, shown, ok in proof.steps:
        lines.append(f"- {what}: {code(proof.shown(shown))} → {'exact 0 (sympy)' if ok else 'not reduced to 0'}")
    lines += [
        "",
        "**PROVED** for all x, symmetric M, a" if proof.proved else f"not proved: {proof.note or 'a step failed'}",
    ]
    return "\n".join(lines) + "\n"
