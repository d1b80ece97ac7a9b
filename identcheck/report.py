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
from .rank.almost_everywhere import NOT_EVERY
from .rank.decision import BY_RELATIONS
from .results import (
    CheckResult,
    ProbeResult,
    Relation,
    format_relation,
    hypothesis_text,
)
from .util.bites import earliest, relation_bites
from .util.markdown import check_markdown

__all__ = [
    "CheckResult",
    "ProbeResult",
    "Relation",
    "almost_everywhere_lines",
    "beyond_template_text",
    "bites_text",
    "check_text",
    "format_relation",
    "hypothesis_text",
    "literal_text",
    "markdown_text",
    "RunText",
    "brief_text",
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
        proved = probe.settled_by in BY_RELATIONS and all(r.proved for r in probe.relations)
        result += f" ({probe.nullity}{', relations proved' if proved else ''}): {probe.pde}"
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


NOT_A_VERDICT = (
    "not an identifiability verdict: a relation every expert of the template shares can be harmless under one "
    "likelihood and harmful under another; the model-level check (identcheck.model, docs/model.md) decides"
)


def beyond_template_text(result: CheckResult) -> tuple[str, str] | None:
    """(what the relations show beyond the expert's template, the caveat that it is no verdict) when the
    condition put ``beyond_template`` in ``details`` (an expert condition, relations read), else None."""
    beyond = result.details.get("beyond_template")
    if not beyond:
        return None
    unknown = f"; {beyond['unknown']} of unknown reach (not proved, or undecided for the template)"
    unknown = unknown if beyond["unknown"] else ""
    if beyond["specific"] == 0:
        text = (
            "none: it fails only through relations every expert of its template shares"
            if not beyond["unknown"]
            else f"none found among the {beyond['shared']} relation(s) read exactly{unknown}"
        )
        return text, NOT_A_VERDICT
    families = ", ".join(f"{n} × {family}" for family, n in beyond["families"])
    first = beyond["first"]
    text = (
        f"{beyond['specific']} relation(s) specific to this expert ({families}); first, on "
        f"'{first['probe']}': {first['relation']}; {beyond['shared']} shared by its template{unknown}"
    )
    return result.shown(text), NOT_A_VERDICT


def bites_text(result: CheckResult) -> str | None:
    """``"order 1: bites in exact-fitted cells (earliest on probe 'shared M, a2 = -a1')"``: the order at
    which the counted probes' dependences bite (:mod:`identcheck.util.bites`), or None without one."""
    first = earliest(result)
    return None if first is None else f"{first[0].text} (earliest on probe '{first[1]}')"


def relation_tag(result: CheckResult, relation: Relation) -> str:
    """A relation's tag as the reports show it, with the order at which it bites."""
    bites = relation_bites(relation)
    return result.shown(relation.tag) + ("" if bites is None else f"; {bites.text}")


def almost_everywhere_lines(result: CheckResult) -> list[str]:
    """The verdict's claims for almost every parameter, one line per counted probe whose independence
    was proved (K, the stratum, the probe), the analyticity they rest on, and that almost every is not
    every (:mod:`identcheck.rank.almost_everywhere`); [] when no counted probe has one."""
    claims = [(p, p.almost_everywhere) for p in result.probes if p.counts_for_verdict]
    claims = [(p, claim) for p, claim in claims if claim is not None]
    if not claims:
        return []
    basis = "; ".join(dict.fromkeys(claim.analyticity for _, claim in claims))
    lines = [f"  almost every parameter (each proved probe, by analyticity: {basis}; docs/certificates.md):"]
    lines += [f"    K = {claim.components}: {claim.statement}    ['{p.name}']" for p, claim in claims]
    return lines + [f"    ({NOT_EVERY})"]


def check_text(result: CheckResult, footnote: int | None = None) -> str:
    """The human report of a :class:`~identcheck.results.CheckResult`; with ``footnote`` (a run's, :class:`RunText`)
    the verdict carries the footnote's mark ``[n]`` in place of the ``means:`` paragraph."""
    lines = [f"{result.object_name} = {result.phi_shown}    [{result.condition}, d = {result.dim}]"]
    mark = "" if footnote is None else f" [{footnote}]"
    lines += [
        f"  verdict{what}: {text}{mark if i == 0 else ''}" for i, (what, text) in enumerate(verdict_lines(result))
    ]
    beyond = beyond_template_text(result)
    if beyond is not None:
        lines += [f"  beyond its template: {beyond[0]}", f"    ({beyond[1]})"]
    lines.append(f"  {result.summary}")
    bites = bites_text(result)
    if bites is not None:  # docs/method.md §9, "The order at which a failure bites"
        lines.append(f"  {bites}")
    one = result.details.get("one_component")
    if one is not None:  # docs/method.md §4, "One component, for every parameter"
        lines.append(f"  {one.statement if hasattr(one, 'statement') else one['statement']}")
    every = result.details.get("ratios")
    if every is not None:  # docs/scan.md, "Every ratio of parallel experts"
        lines.append(f"  {_field(every, 'statement')}")
    lines += search_lines(result)
    if result.scope is not None and footnote is None:
        lines.append(f"  means: {result.scope.implies}")
    witness = result.witness_probe
    if witness is not None:
        for r in witness.relations[:RELATIONS_SHOWN]:
            lines.append(f"    {r}    [{relation_tag(result, r)}]")
        if len(witness.relations) > RELATIONS_SHOWN:
            lines.append(f"    … and {len(witness.relations) - RELATIONS_SHOWN} more relation(s) on this probe")
    lines += almost_everywhere_lines(result)
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


def _field(record, name: str):
    """A field of a details record, built (an object) or read back from JSON (a mapping)."""
    return getattr(record, name) if not isinstance(record, dict) else record[name]


def search_lines(result: CheckResult) -> list[str]:
    """The lines of ``details["search"]`` (docs/scan.md, "Search where no probe looks"): the statement,
    then per stratum its starts and smallest margin, or why it was not searched ([] without a search)."""
    found = result.details.get("search")
    if found is None:
        return []
    lines = [f"  {_field(found, 'statement')}"]
    for s in _field(found, "strata"):
        why_not = _field(s, "why_not")
        shown = (
            f"not searched: {why_not}"
            if why_not is not None
            else f"{_field(s, 'starts')} starts, smallest margin {_field(s, 'margin'):.2e} "
            f"(s = {_field(s, 'singular_value'):.2e}, nearest {_field(s, 'nearest')})"
        )
        lines.append(f"    {_field(s, 'probe')}: {shown}")
    return lines


def markdown_text(result: CheckResult) -> str:
    """The markdown behind Jupyter's ``_repr_markdown_`` (:func:`identcheck.util.markdown.check_markdown`)."""
    texts = (bites_text(result), relation_tag)
    notes = [_field(result.details[k], "statement") for k in ("ratios", "search") if result.details.get(k) is not None]
    return check_markdown(result, literal_text(result), probe_result_text, beyond_template_text(result), texts, notes)


def brief_text(result: CheckResult, footnote: int | None = None) -> str:
    """One line: what was checked, the verdict and its evidence (``[n]``: the run's footnote on what it
    means), then the witness probe and its relation's family (a literal verdict, an expert's relations
    beyond its template, where the condition gives them)."""
    mark = "" if footnote is None else f" [{footnote}]"
    line = (
        f"{result.object_name} = {result.phi_shown}  [{result.condition}, d = {result.dim}]  "
        f"{result.verdict.upper()} ({result.evidence}){mark}  "
    )
    witness = result.witness_probe
    if witness is not None:
        line += f"witness '{witness.name}'"
        relation = witness.relation
        if relation is not None:
            family = relation.family or "unrecognised"
            if relation.family and relation.hypothesis:
                family += f" ({result.shown(hypothesis_text(relation.hypothesis))})"
            line += f": {family}" + (", proved" if relation.proved else ", numeric")
        if result.bites is not None:
            line += f"; {result.bites.text}"
    else:  # identifiable: its first clause (the footnote says what it means); inconclusive: what was undecided
        line += (
            result.summary.split(" — ")[0].split(",")[0] if str(result.verdict) == "identifiable" else result.summary
        )
    literal = literal_text(result)
    if literal is not None:
        line += f"; literal set: {literal.split(',')[0]}"
    beyond = result.details.get("beyond_template")
    if beyond:
        line += "; beyond its template: " + (
            f"{beyond['specific']} relation(s) specific to this expert" if beyond["specific"] else "none"
        )
    return line


class RunText:
    """The text of a run of checks, result by result (:meth:`add`: print it as its check ends), with
    each verdict's meaning (its ``scope``) once, as a footnote keyed by verdict and theorem
    (:meth:`footnotes`, after the last); ``brief``: one line per result (:func:`brief_text`)."""

    def __init__(self, brief: bool = False):
        self.brief = brief
        self.notes: dict[tuple, int] = {}
        self.count = 0

    def add(self, result: CheckResult) -> str:
        """The text of ``result`` (after the first, a full report opens with a blank line)."""
        footnote = None
        if result.scope is not None:
            key = (str(result.verdict), result.condition, result.scope.theorem, result.scope.implies)
            footnote = self.notes.setdefault(key, len(self.notes) + 1)
        self.count += 1
        if self.brief:
            return brief_text(result, footnote)
        return ("\n" if self.count > 1 else "") + check_text(result, footnote)

    def footnotes(self) -> str:
        """``[n] verdict (condition, theorem): what it means``, one line each, after a blank line ("" if none)."""
        lines = [
            f"[{n}] {verdict} ({condition}, {theorem}): {implies}"
            for (verdict, condition, theorem, implies), n in self.notes.items()
        ]
        return "\n".join([""] + lines) if lines else ""
