"""The text report of a check: functions that take a result (:mod:`identcheck.results`) and return text.

This is the face: it imports the result types, never the other way round. The types name its
two renderers, :func:`check_text` and :func:`markdown_text` (:mod:`identcheck.util.markdown`'s layout), in
:data:`identcheck.results.RENDERERS`, and import this module by that name the first time
``result.to_text()`` or Jupyter's ``_repr_markdown_`` runs — however the result was built.

What a condition adds to a result it says through the result itself, never through a branch on its
name here: its words for the object and the inputs (``object_name``, ``inputs_text``: φ(z) and
z = aᵀx for a gate, h(x; θ) for an expert), its term-set description, and ``details`` — when a
condition puts a ``literal_verdict`` there (type-2: the set as the paper states it), the report
prints the checker's verdict as the reduced set's and the literal one on a line of its own.

The result types are re-exported here for code written against the old layout
(``from identcheck.report import CheckResult``); builders import them from :mod:`identcheck.results`.
"""

from __future__ import annotations

from .evidence import Certificate
from .results import (
    CheckResult,
    ProbeResult,
    Relation,
    format_relation,
    hypothesis_text,
)
from .util.markdown import check_markdown

__all__ = [
    "CheckResult",
    "ProbeResult",
    "Relation",
    "check_text",
    "format_relation",
    "hypothesis_text",
    "literal_text",
    "markdown_text",
    "probe_result_text",
    "verdict_lines",
]

MERGES_SHOWN = 6
RELATIONS_SHOWN = 4


def _certificate_text(certificate: Certificate | None) -> str:
    """Short text of a probe certificate for the table."""
    return "[not certified]" if certificate is None else certificate.brief()


def probe_result_text(probe: ProbeResult, certified: bool = False) -> str:
    """The report's result column: outcome, relations, whether it counts, certificate."""
    result = probe.outcome
    if probe.rank_proof is not None and not certified:
        result += " (full rank proved)"
    if probe.dependent:
        result += f" ({probe.nullity}): {probe.pde}"
    if not probe.counts_for_verdict:
        result += "  [does not count: " + probe.note + "]"
    if certified:
        result += "  " + _certificate_text(probe.certificate)
    return result


def literal_text(result: CheckResult) -> str | None:
    """A literal verdict the condition put in ``details``, with its reason
    (``'NOT IDENTIFIABLE, because of 74 relation(s) …'``), or None when it put none."""
    literal = result.details.get("literal_verdict")
    if literal is None:
        return None
    reason = result.details.get("literal_reason")
    return str(literal).upper() + (f", {reason}" if reason else "")


def verdict_lines(result: CheckResult) -> list[tuple[str, str]]:
    """(what the verdict is of, the verdict's text): one pair, or two when ``details`` holds a
    literal verdict (the checker's is then the reduced set's)."""
    verdict = f"{result.verdict.upper()} ({result.evidence} evidence)"
    literal = literal_text(result)
    if literal is None:
        return [("", verdict)]
    return [(" (reduced set)", verdict), (" (literal set, as the paper states it)", literal)]


def check_text(result: CheckResult) -> str:
    """The human report of a :class:`~identcheck.results.CheckResult`."""
    lines = [f"{result.object_name} = {result.phi_shown}    [{result.condition}, d = {result.dim}]"]
    lines += [f"  verdict{what}: {text}" for what, text in verdict_lines(result)]
    lines.append(f"  {result.summary}")
    if result.scope is not None:
        lines.append(f"  means: {result.scope.implies}")
    witness = result.witness_probe
    if witness is not None:
        for r in witness.relations[:RELATIONS_SHOWN]:
            lines.append(f"    {r}    [{result.shown(r.tag)}]")
        if len(witness.relations) > RELATIONS_SHOWN:
            lines.append(f"    … and {len(witness.relations) - RELATIONS_SHOWN} more relation(s) on this probe")
    lines.append(f"  terms: {result.terms_text}")
    for m in result.merges[:MERGES_SHOWN]:
        lines.append(f"    {m}")
    if len(result.merges) > MERGES_SHOWN:
        lines.append(f"    … and {len(result.merges) - MERGES_SHOWN} more (--json lists all)")
    lines.append(f"  probes (seed {result.seed}, {result.points_per_term} points per term, {result.inputs_text}):")
    width = max(len(p.name) for p in result.probes) if result.probes else 10
    lines.append(f"    {'name':<{width}}  terms  margin     digits  result")
    for p in result.probes:
        lines.append(
            f"    {p.name:<{width}}  {p.n_terms:>5}  "
            f"{p.smallest_singular_value:<9.2e}  {p.precision_digits:>6}  {probe_result_text(p, result.certified)}"
        )
    lines.append(f"  time: {result.seconds:.2f} s")
    return "\n".join(lines)


def markdown_text(result: CheckResult) -> str:
    """The markdown behind Jupyter's ``_repr_markdown_`` (:func:`identcheck.util.markdown.check_markdown`)."""
    return check_markdown(result, literal_text(result), probe_result_text)
