"""Results of a check, as frozen dataclasses, with their JSON form and their text form.

Verdicts are three-valued and one-sided (SPEC §3.6):

- ``not identifiable``: some probe that counts has a dependence confirmed at two precisions;
  the witness is that probe and its relation. ``evidence = "proof"`` when sympy reduced the
  witness relation to an exact 0, else ``"numeric"``.
- ``identifiable``: every probe that counts is independent. ``evidence = "numeric"`` from the
  precision ladder; ``"proof"`` only with ``certify`` when every counted probe's independence
  is proved in interval arithmetic — and then for those parameter values only: other parameter
  values are not covered either way, and the summary says so.

A probe counts unless it does not satisfy the paper's assumptions (A.1)–(A.5) (``admissible``
false; counted with ``include_inadmissible``) or it is a = 0; the others are reported apart.
- ``inconclusive``: no dependence, but some probe could not be settled on the precision ladder.

The JSON form (``to_dict``) is ``SCHEMA`` = identcheck.check/2 (docs/changelog.md): schema 1's
keys and strings (those of before the results were typed, :mod:`evidence`, grown by
``assumptions``, ``admissible`` and ``rank_proof`` per probe, ``include_inadmissible`` per result
and the ``proof`` tolerance), plus ``schema``, ``scope`` (what the verdict implies for the model,
:mod:`scope`) and ``environment`` (versions and BLAS, :mod:`environment`). Golden tests hold the
JSON and the text report (docs: tests/identcheck/json_compare.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .evidence import Certificate, Evidence, Verdict
from .interval import IntervalCertificate
from .render import check_markdown
from .scope import ScopeStatement
from .written import with_written_numbers

__all__ = ["CheckResult", "ProbeResult", "Relation", "format_relation", "hypothesis_text"]

MERGES_SHOWN = 6
#: the version of ``CheckResult.to_dict()``'s layout (docs/changelog.md)
SCHEMA = "identcheck.check/2"


def _coefficient_text(value: str | float, first: bool) -> tuple[str, str]:
    """Sign and magnitude text of one coefficient."""
    if isinstance(value, str):
        negative = value.startswith("-")
        magnitude = value[1:] if negative else value
    else:
        negative = value < 0
        magnitude = f"{abs(value):.6g}"
    sign = ("−" if negative else "") if first else (" − " if negative else " + ")
    return sign, magnitude


def _certificate_text(certificate: Certificate | None) -> str:
    """Short text of a probe certificate for the table."""
    return "[not certified]" if certificate is None else certificate.brief()


_SYMMETRY = re.compile(r"phi\(-z\) = (-?1)\*phi\(z\) \+ \((.*)\)")


def hypothesis_text(hypothesis: str) -> str:
    """A family hypothesis as the report shows it; a symmetry in words.

    ``'phi(-z) = -1*phi(z) + (0)'`` → ``'φ(−z) = −φ(z): a and −a collide'``;
    ``'phi(-z) = -1*phi(z) + (1)'`` → ``'φ(−z) = −φ(z) + 1'``. Other hypotheses are unchanged
    (the JSON keeps the machine form).
    """
    match = _SYMMETRY.fullmatch(hypothesis)
    if match is None:
        return hypothesis
    sign, q = match.groups()
    lhs = "φ(−z) = " + ("−" if sign == "-1" else "") + "φ(z)"
    if q == "0":
        return lhs + ": a and −a collide"
    return f"{lhs} − {q[1:]}" if q.startswith("-") and " " not in q else f"{lhs} + {q}"


def format_relation(terms) -> str:
    """``[(label, coeff), ...]`` → ``'1/2·∂ū/∂a1 − ū = 0'`` (coefficients 1 and −1 bare)."""
    parts = []
    for i, (label, coeff) in enumerate(terms):
        sign, magnitude = _coefficient_text(coeff, i == 0)
        shown = "" if magnitude in ("1", "1.0") else f"{magnitude}·"
        parts.append(f"{sign}{shown}{label}")
    return "".join(parts) + " = 0"


@dataclass(frozen=True, slots=True)
class Relation:
    """A linear relation between labelled terms on one probe.

    Attributes
    ----------
    terms : tuple of (str, float)
        Label and coefficient; a raw relation is scaled so its largest coefficient is 1.
    exact : tuple of (str, str) or None
        The same with exact coefficients: a known family's, or rationals read from a raw
        relation (canonical, :mod:`echelon`; proved only where ``proved`` says so).
    family : str or None
        The family (``"Euler/homogeneity"``, …), or None for a relation not recognised.
    hypothesis : str or None
        The property of φ behind the family, proved by sympy.
    proved : bool
        Whether sympy reduced the relation itself, on this probe, to an exact 0.
    timed_out : bool
        Whether the proof ran out of its time budget (:mod:`budget`); the relation stands on its
        numeric evidence. In the JSON only when true.
    keys : tuple
        Which term each coefficient belongs to, by structure, aligned with ``terms``: the
        condition's column keys (:attr:`~identcheck.conditions.base.ProbeMatrix.keys`), so code
        that acts on a relation (numeric's witness paths) never parses a display label. Empty for
        a relation read back from JSON (not serialised: the labels say the same for a reader).
    ties : tuple of int
        For a relation no family explains whose terms belong to several components: those
        components (1-based, the ``[k]`` of the labels), e.g. ``(1, 2)``; () otherwise. In the JSON
        (``"ties"``) and the tag (``ties experts [1], [2]``) only when non-empty.
    """

    terms: tuple
    exact: tuple | None
    family: str | None
    hypothesis: str | None
    proved: bool
    timed_out: bool = False
    keys: tuple = field(default=(), compare=False, repr=False)
    ties: tuple = ()

    def __str__(self) -> str:
        return format_relation(self.exact if self.exact is not None else self.terms)

    @property
    def tag(self) -> str:
        """``'Euler/homogeneity: z*phi' = 1*phi, proved by sympy'``: family, hypothesis, proof."""
        tag = f"{self.family or 'unrecognised'}" + (f": {hypothesis_text(self.hypothesis)}" if self.hypothesis else "")
        if self.ties:
            tag += ", ties experts " + ", ".join(f"[{k}]" for k in self.ties)
        if self.family is None and self.exact is not None and not self.proved and not self.timed_out:
            tag += ", rational reading, not proved"
        return tag + (
            ", proved by sympy"
            if self.proved
            else (", exact proof timed out: numeric evidence" if self.timed_out else "")
        )

    def to_dict(self) -> dict:
        return (
            {
                "terms": [[label, coeff] for label, coeff in self.terms],
                "exact": None if self.exact is None else [[label, c] for label, c in self.exact],
                "family": self.family,
                "hypothesis": self.hypothesis,
                "proved": self.proved,
                "text": str(self),
            }
            | ({"timed_out": True} if self.timed_out else {})
            | ({"ties": list(self.ties)} if self.ties else {})
        )


@dataclass(frozen=True, slots=True)
class ProbeResult:
    """What one probe showed.

    ``tolerances`` are the thresholds the rank decision used on this probe's matrix (the
    borderline value among them); ``unsettled`` is the matrix's own reason why its decision could
    not be the outcome (None when it could; ``note`` may put an assumption's violation before it).
    The JSON keeps schema 1 and lists neither. ``rank_proof`` is the rank decision's proof of full
    column rank (:mod:`~identcheck.rank`, step 3a; an :class:`~identcheck.interval.IntervalCertificate`)
    when it settled the probe, else None; the JSON gives it as a certificate's interval record
    without the points (the probe's own, from its seed): rows, column exponents, precision, bounds.
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
    literal_dependent: bool | None = None
    phi_free_relations: tuple = field(repr=False, default=())
    certificate: Certificate | None = field(repr=False, default=None)
    tolerances: tuple = field(repr=False, default=())
    assumptions: tuple = ("A.1", "A.2", "A.3", "A.4", "A.5")
    admissible: bool = True
    unsettled: str | None = field(default=None, repr=False, compare=False)
    rank_proof: IntervalCertificate | None = field(default=None, repr=False)

    @property
    def phi_free_nullity(self) -> int:
        return len(self.phi_free_relations)

    @property
    def relation(self):
        return self.relations[0] if self.relations else None

    @property
    def pde(self) -> str | None:
        if not self.relations:
            return None
        names = []
        for r in self.relations:
            name = r.family or "unrecognised"
            if name not in names:
                names.append(name)
        return "; ".join(names)

    @property
    def outcome(self) -> str:
        if self.dependent is None:
            return "undecided"
        return "dependent" if self.dependent else "independent"

    def result_text(self, certified: bool = False) -> str:
        """The report's result column: outcome, relations, whether it counts, certificate."""
        result = self.outcome
        if self.rank_proof is not None and not certified:
            result += " (full rank proved)"
        if self.dependent:
            result += f" ({self.nullity}): {self.pde}"
        if not self.counts_for_verdict:
            result += "  [does not count: " + self.note + "]"
        if certified:
            result += "  " + _certificate_text(self.certificate)
        return result

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "components": [c.to_dict() for c in self.components],
            "n_terms": self.n_terms,
            "n_points": self.n_points,
            "smallest_singular_value": self.smallest_singular_value,
            "precision_digits": self.precision_digits,
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
            "literal_dependent": self.literal_dependent,
            "phi_free_relations": [r.to_dict() for r in self.phi_free_relations],
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "rank_proof": None if self.rank_proof is None else self.rank_proof.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The answer to "is φ type-1 strongly identifiable?", with the evidence behind it."""

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
    literal_verdict: Verdict | None = None
    head: dict | None = None
    terms_description: str | None = field(default=None, compare=False, repr=False)  # for the text only
    certified: bool = False
    include_inadmissible: bool = False
    scope: ScopeStatement | None = field(default=None, repr=False)  # what the verdict implies (identcheck.scope)
    environment: dict | None = field(
        default=None, compare=False, repr=False
    )  # versions and BLAS (identcheck.environment)
    phi_as_written: str | None = field(
        default=None, compare=False, repr=False
    )  # for the text only: Activation.as_written
    literal_reason: str | None = field(
        default=None, compare=False, repr=False
    )  # for the text only: why literal_verdict
    written_numbers: tuple = field(
        default=(), compare=False, repr=False
    )  # for the text only: Activation.written_numbers

    def to_dict(self) -> dict:
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
            "literal_verdict": None if self.literal_verdict is None else str(self.literal_verdict),
            "head": self.head,
            "certify": self.certified,
            "include_inadmissible": self.include_inadmissible,
            "scope": None if self.scope is None else self.scope.to_dict(),
            "environment": self.environment,
        }

    @property
    def witness_probe(self) -> ProbeResult | None:
        """The probe named by ``witness``, or None."""
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

    def shown(self, text: str) -> str:
        """``text`` (a relation's tag) with φ's decimal constants as written: ``1.702*z``, not ``851*z/500``."""
        return with_written_numbers(text, self.written_numbers)

    @property
    def literal_text(self) -> str:
        """Type-2's literal verdict with its reason: ``'NOT IDENTIFIABLE, because of 74 relation(s) …'``."""
        return str(self.literal_verdict).upper() + (f", {self.literal_reason}" if self.literal_reason else "")

    @property
    def phi_shown(self) -> str:
        """φ as the text reports show it: parameter values as the user wrote them (``phi`` has them exact)."""
        return self.phi_as_written or self.phi

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`identcheck.render.check_markdown`)."""
        return check_markdown(self)

    def to_text(self) -> str:
        """The human report."""
        lines = [f"φ(z) = {self.phi_shown}    [{self.condition}, d = {self.dim}]"]
        if self.literal_verdict is None:
            lines.append(f"  verdict: {self.verdict.upper()} ({self.evidence} evidence)")
        else:  # type-2: the checker's verdict is the reduced set's; the literal set's on a line of its own
            lines.append(f"  verdict (reduced set): {self.verdict.upper()} ({self.evidence} evidence)")
            lines.append(f"  verdict (literal set, as the paper states it): {self.literal_text}")
        lines.append(f"  {self.summary}")
        if self.scope is not None:
            lines.append(f"  means: {self.scope.implies}")
        witness = self.witness_probe
        if witness is not None:
            for r in witness.relations[:4]:
                lines.append(f"    {r}    [{self.shown(r.tag)}]")
            if len(witness.relations) > 4:
                lines.append(f"    … and {len(witness.relations) - 4} more relation(s) on this probe")
        lines.append(f"  terms: {self.terms_text}")
        for m in self.merges[:MERGES_SHOWN]:
            lines.append(f"    {m}")
        if len(self.merges) > MERGES_SHOWN:
            lines.append(f"    … and {len(self.merges) - MERGES_SHOWN} more (--json lists all)")
        lines.append(
            f"  probes (seed {self.seed}, {self.points_per_term} points per term, x uniform in [-1, 1]^{self.dim}, "
            f"z = aᵀx in [-{self.domain_bound:g}, {self.domain_bound:g}]):"
        )
        width = max(len(p.name) for p in self.probes) if self.probes else 10
        lines.append(f"    {'name':<{width}}  terms  margin     digits  result")
        for p in self.probes:
            result = p.result_text(self.certified)
            lines.append(
                f"    {p.name:<{width}}  {p.n_terms:>5}  "
                f"{p.smallest_singular_value:<9.2e}  {p.precision_digits:>6}  {result}"
            )
        lines.append(f"  time: {self.seconds:.2f} s")
        return "\n".join(lines)
