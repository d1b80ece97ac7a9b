"""Results of a check, as frozen dataclasses, with their JSON form: the ground floor every builder imports.

Verdicts are three-valued and one-sided (docs/method.md §9): ``not identifiable`` when a probe that
counts has a dependence (the witness) — confirmed at two precisions, or settled by relations proved
exactly (the rank rule's step 2b); ``evidence = "proof"`` when its relation was reduced to 0 in
exact arithmetic; ``identifiable`` when every probe that counts is independent (``"proof"`` only with
``certify`` and every counted independence proved in interval arithmetic — at those parameter
values only, as the summary says); ``inconclusive`` otherwise. A probe counts unless it violates
the paper's assumptions (A.1)–(A.5) (``admissible`` false; counted with ``include_inadmissible``)
or it is a = 0; the others are reported apart.

The JSON form (``to_dict``) is ``SCHEMA`` = identcheck.check/9 (docs/changelog.md): condition-specific
fields in one ``details`` mapping per result and per probe, every relation's structural ``keys``
(typed tuples as JSON lists, :func:`key_from_json` reads them back), per probe
``almost_everywhere`` (:mod:`identcheck.rank.almost_everywhere`), and per relation, probe and result
``bites``: the order at which the dependence bites (:mod:`identcheck.util.bites`), and per probe
``settled_by``: what settled its rank decision (:data:`identcheck.rank.decision.SETTLED_BY`). Goldens hold the JSON
and the text.

**Where the presentation lives.** This module imports nothing above the result vocabulary
(:mod:`evidence`, :mod:`scope`, :mod:`written`) and keeps the *data formatting* (the term-set
description); a relation, its text and tag are :mod:`identcheck.util.relation`'s, the JSON form of
typed values :mod:`identcheck.util.jsonable`'s, both re-exported here. The layouts live in the face,
:mod:`identcheck.report`, named in :data:`RENDERERS` as lazy entries (module, function) that
``to_text()`` / ``_repr_markdown_`` import on first use: a result renders however it was built, the
static imports run face → results.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from .evidence import Certificate, Evidence, RankProof, Verdict
from .scope import ScopeStatement
from .util.bites import bites_at, lowest_known, span_order
from .util.jsonable import jsonable, key_from_json
from .util.relation import Relation, format_relation, hypothesis_text
from .util.written import with_written_numbers

__all__ = ["CheckResult", "ProbeResult", "RENDERERS", "Relation", "SCHEMA", "format_relation", "hypothesis_text"]
__all__ += ["jsonable", "key_from_json", "register_renderer"]

#: the version of ``CheckResult.to_dict()``'s layout (docs/changelog.md)
SCHEMA = "identcheck.check/9"

#: format → function(result) → str, or a lazy entry (module, function name) imported on first use
RENDERERS: dict[str, Callable | tuple[str, str]] = {
    "text": ("identcheck.report", "check_text"),
    "markdown": ("identcheck.report", "markdown_text"),
}


def register_renderer(kind: str, renderer: Callable) -> None:
    """Make ``renderer(result)`` the ``kind`` rendering of a :class:`CheckResult` (replaces the entry)."""
    RENDERERS[kind] = renderer


def _rendered(kind: str, result) -> str:
    renderer = RENDERERS[kind]
    if isinstance(renderer, tuple):
        module, name = renderer
        renderer = RENDERERS[kind] = getattr(importlib.import_module(module), name)
    return renderer(result)


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What one probe showed.

    ``tolerances``: the rank decision's thresholds on this matrix; ``unsettled``: the matrix's reason
    why its decision could not be the outcome (None when it could); the JSON lists neither.
    ``rank_proof``: the rank decision's proof of full column rank (:mod:`~identcheck.rank.rule`, an
    :class:`~identcheck.rank.interval.IntervalCertificate`) when it settled the probe; in the JSON as an
    interval record without the points. ``details``: what only the condition knows (its ``extras``
    hook), e.g. type-2's ``literal_dependent`` and ``phi_free_relations``; in the JSON as ``"details"``.
    ``coverage``: a condition's :class:`~identcheck.rank.almost_everywhere.Premise`; ``almost_everywhere``: its claim.
    ``settled_by``: what settled the rank decision, one of :data:`~identcheck.rank.decision.SETTLED_BY`
    (None when undecided, or when the matrix says its decision is not the outcome).
    """

    name: str
    components: tuple = field(repr=False)
    n_terms: int
    n_points: int
    smallest_singular_value: float
    precision_digits: int
    dependent: bool | None
    nullity: int
    relations: tuple = field(repr=False)
    counts_for_verdict: bool
    history: tuple = field(repr=False)
    note: str = ""
    certificate: Certificate | None = field(repr=False, default=None)
    tolerances: tuple = field(repr=False, default=())
    assumptions: tuple = ("A.1", "A.2", "A.3", "A.4", "A.5")
    admissible: bool = True
    unsettled: str | None = field(default=None, repr=False, compare=False)
    rank_proof: RankProof | None = field(default=None, repr=False)
    settled_by: str | None = None
    details: Mapping = field(default_factory=dict, repr=False)
    coverage: Any = field(default=None, repr=False, compare=False)

    relation = property(lambda self: self.relations[0] if self.relations else None)
    bites = property(lambda self: bites_at(span_order(self.relations)))  # the lowest order in the relations' span
    almost_everywhere = property(lambda self: self.coverage and self.coverage.claim(self.certificate, self.rank_proof))

    @property
    def pde(self) -> str | None:  # the relations' families, once each, in order
        return "; ".join(dict.fromkeys(r.family or "unrecognised" for r in self.relations)) if self.relations else None

    @property
    def outcome(self) -> str:
        if self.dependent is None:
            return "undecided"
        return "dependent" if self.dependent else "independent"

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "components": [c.to_dict() for c in self.components],
            "n_terms": self.n_terms,
            "n_points": self.n_points,
            "smallest_singular_value": self.smallest_singular_value,
            "precision_digits": self.precision_digits,
            "settled_by": self.settled_by,
            "dependent": self.dependent,
            "nullity": self.nullity,
            "relation": None if self.relation is None else [[l, c] for l, c in self.relation.terms],
            "pde": self.pde,
            "relations": [r.to_dict() for r in self.relations],
            "counts_for_verdict": self.counts_for_verdict,
            "assumptions": list(self.assumptions),
            "admissible": self.admissible,
            "precision_history": [
                {"digits": d, "smallest_singular_value": s, "collapsed": c} for d, s, c in self.history
            ],
            "note": self.note,
            "details": jsonable(self.details),
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "rank_proof": None if self.rank_proof is None else self.rank_proof.to_dict(),
            "almost_everywhere": jsonable(self.almost_everywhere),
            "bites": jsonable(self.bites),
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The answer to "does φ (or the expert) satisfy the condition?", with the evidence behind it.

    ``details`` holds what only the condition knows (its ``finish`` hook): type-2's
    ``literal_verdict``, ``literal_reason`` and ``head``, type1-full's term counts; in the JSON as
    ``"details"``; ``options``, the condition's declared options as set up (type1's ``{"include_zero": false}``,
    ``{}`` without options; read back by ``Condition.from_json``). ``object_name`` and ``inputs`` are the
    condition's words for what it checked and where it sampled (``φ(z)``, ``x uniform in [-1, 1]^2, z = aᵀx in
    [-1, 1]`` for a gate, ``h(x; θ)`` for an expert), for the text only, like ``terms_description``,
    ``phi_as_written``, ``written_numbers``; ``environment`` is the versions and BLAS that computed it.
    """

    phi: str
    expression: str
    condition: str
    dim: int
    verdict: Verdict
    evidence: Evidence
    summary: str
    witness: str | None
    merges: tuple = field(repr=False)
    n_derivatives: int = 0
    n_terms: int = 0
    probes: tuple = field(repr=False, default=())
    seed: int = 0
    points_per_term: int = 4
    domain_bound: float = 0.0
    tolerances: tuple = field(repr=False, default=())  # of Tolerance, as used
    seconds: float = 0.0
    terms_description: str | None = field(default=None, compare=False, repr=False)  # for the text only
    certified: bool = False
    include_inadmissible: bool = False
    scope: ScopeStatement | None = field(default=None, repr=False)  # what the verdict implies (identcheck.scope)
    environment: dict | None = field(default=None, compare=False, repr=False)  # identcheck.util.environment
    phi_as_written: str | None = field(default=None, compare=False, repr=False)  # Activation.as_written
    written_numbers: tuple = field(default=(), compare=False, repr=False)  # Activation.written_numbers
    details: Mapping = field(default_factory=dict, repr=False)
    options: Mapping = field(default_factory=dict, repr=False)  # the condition's declared options, as set up
    object_name: str = field(default="φ(z)", compare=False, repr=False)
    inputs: str | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict:  # ``bites``: the counted probes' earliest
        return {
            "schema": SCHEMA,
            "phi": self.phi,
            "expression": self.expression,
            "condition": self.condition,
            "dim": self.dim,
            "verdict": str(self.verdict),
            "evidence": str(self.evidence),
            "summary": self.summary,
            "witness": self.witness,
            "merges": [m.to_dict() for m in self.merges],
            "n_derivatives_per_component": self.n_derivatives,
            "n_terms_per_component": self.n_terms,
            "probes": [p.to_dict() for p in self.probes],
            "seed": self.seed,
            "points_per_term": self.points_per_term,
            "domain": [-self.domain_bound, self.domain_bound],
            "tolerances": {t.name: t.to_json() for t in self.tolerances},
            "seconds": self.seconds,
            "options": jsonable(self.options),
            "details": jsonable(self.details),
            "certify": self.certified,
            "include_inadmissible": self.include_inadmissible,
            "scope": None if self.scope is None else self.scope.to_dict(),
            "environment": self.environment,
            "bites": jsonable(self.bites),
        }

    bites = property(lambda self: lowest_known(p.bites for p in self.probes if p.counts_for_verdict and p.dependent))

    @property
    def witness_probe(self) -> ProbeResult | None:  # the probe named by ``witness``, or None
        return next((p for p in self.probes if p.name == self.witness), None)

    @property
    def terms_text(self) -> str:
        """``'21 derivatives per component, 3 merged (same function for every φ) → 18 distinct'``:
        the condition's own description (``Condition.describe_terms``), recorded by the driver."""
        if self.terms_description is not None:
            return self.terms_description
        return (
            f"{self.n_derivatives} derivatives per component, {len(self.merges)} merged "
            f"(same function for every φ) → {self.n_terms} distinct"
        )

    @property
    def inputs_text(self) -> str:
        """Where the probes sampled, in the condition's words (default: a gate's, x and z = aᵀx)."""
        if self.inputs is not None:
            return self.inputs
        bound = self.domain_bound
        return f"x uniform in [-1, 1]^{self.dim}, z = aᵀx in [-{bound:g}, {bound:g}]"

    def shown(self, text: str) -> str:
        """``text`` (a relation's tag) with φ's decimal constants as written: ``1.702*z``, not ``851*z/500``."""
        return with_written_numbers(text, self.written_numbers)

    @property
    def phi_shown(self) -> str:
        """φ as the text reports show it: parameter values as the user wrote them (``phi`` has them exact)."""
        return self.phi_as_written or self.phi

    def to_text(self) -> str:
        """The human report (:func:`identcheck.report.check_text`, imported on first use)."""
        return _rendered("text", self)

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`identcheck.report.markdown_text`, imported on first use)."""
        return _rendered("markdown", self)
