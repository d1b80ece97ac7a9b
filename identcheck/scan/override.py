"""A verdict turned by a scan: a dependence found where none of the check's probes looked.

The every-ratio scan (:mod:`identcheck.scan.ratio`: a ratio c proved exceptional) and the adversarial
search (:mod:`identcheck.scan.search_check`: a new witness, its snapped point checked exactly) each
decide one probe more than the check ran, with the check's own rule, its relations named by the
families and proved exactly. When that probe is dependent and its relation proved, the check's verdict
becomes *not identifiable* with evidence *proof*, and :func:`found_dependence` builds that result, the
same for both:

- the found probe's :class:`~identcheck.results.ProbeResult` is appended to the result's ``probes`` and
  named its ``witness`` (a probe of the check with the same name keeps it: the found one is renamed
  ``'<name> (found by …)'``), so the witness relations the reports show are the ones found;
- ``bites`` — the earliest over the counted dependent probes — is then the found probe's own,
  bites_at(span_order(its relations)) (:mod:`identcheck.util.bites`), read as for any probe;
- ``summary`` says where it was found (the caller's words), ``scope`` is the condition's statement for
  *not identifiable*.
"""

from __future__ import annotations

from dataclasses import replace

from ..evidence import Evidence, Verdict

__all__ = ["found_dependence"]


def found_dependence(result, probe, scope, summary: str, found_by: str):
    """``result`` (a :class:`~identcheck.results.CheckResult`) turned *not identifiable* (proof) by
    ``probe``, a counted dependent ProbeResult the check did not run (module docstring); ``scope`` is the
    condition's :class:`~identcheck.scope.Scope`, ``found_by`` names the scan (``"the ratio scan"``)."""
    if not (probe.dependent and probe.counts_for_verdict and probe.relations):
        raise ValueError(f"probe {probe.name!r} found by {found_by} is not a counted dependence with relations")
    if any(p.name == probe.name for p in result.probes):
        probe = replace(probe, name=f"{probe.name} (found by {found_by})")
    return replace(
        result,
        verdict=Verdict.NOT_IDENTIFIABLE,
        evidence=Evidence.PROOF,
        summary=summary,
        witness=probe.name,
        probes=(*result.probes, probe),
        scope=scope.statement(Verdict.NOT_IDENTIFIABLE),
    )
