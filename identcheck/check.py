"""The check driver: one probe loop, one rank decision, one verdict, for every condition (docs/method.md §3, §9).

For a condition (:mod:`identcheck.conditions`) and each of its probes:

    matrix A = condition.matrix(probe)          columns = terms, rows = x_i ∈ [−1, 1]^d
    decision = decide_rank(A)                    float64; at its rounding floor relations proved first;
                                                 borderline: a proof of full rank, else 30/60/120 digits
    relations = condition.explain(decision)      when dependent: named families, proved exactly
    certificate = certify_probe(...)             with ``certify``: exact relations / interval bounds

and the verdict follows :func:`conclude` (three-valued, one-sided; :mod:`results`). Without
``certify``, when no dependent probe has a proved relation, the witness-to-be's relations read as
exact rationals are proved exactly while the check's budget lasts (:func:`_prove_witness`: that
probe only, not every probe, and no certificate is recorded).
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Mapping

import numpy as np
from sympy import Rational
from threadpoolctl import threadpool_limits

from .conditions import CONDITIONS, Condition, unknown_condition
from .errors import IdentcheckError
from .evidence import Certificate, CertificateKind, Evidence, Verdict
from .families.relations import NULL_SPACE_TOLERANCE
from .rank.certificates import certify_probe
from .rank.rule import DEFAULT_LADDER, decide_rank, rule_tolerances
from .results import CheckResult, ProbeResult
from .util.budget import CERTIFY_POOL_SECONDS, POOL_SECONDS, Outcome, budget_available, pool, pool_remaining
from .util.environment import environment

__all__ = ["check", "conclude", "make_condition", "run", "CONDITIONS"]


def check(
    phi,
    condition: str = "type1",
    dim: int = 2,
    params: Mapping[str, object] | None = None,
    *,
    seed: int = 0,
    certify: bool = False,
    include_inadmissible: bool = False,
    points_per_term: int = 4,
    ladder: tuple = DEFAULT_LADDER,
    progress=None,
    **options,
) -> CheckResult:
    """Check whether ``phi`` satisfies a strong-identifiability condition.

    Parameters
    ----------
    phi : str or sympy.Expr or Activation
        The gate activation, in ``z`` (e.g. ``"sigmoid(z + 1)"``).
    condition : {"type1", "type2", "mha"}
        Setting I, Setting II, or plain MHA (linear experts; ``phi`` is ignored): a key of
        :data:`CONDITIONS`.
    dim : int
        Input dimension d (1 to 6; 1 to 3 for type-2).
    params : mapping, optional
        Values of named constants in ``phi``.
    seed : int
        Seeds the probe parameters and the sample points.
    points_per_term : int
        Sample points per column (≥ 2; default 4).
    ladder : tuple of int
        Precisions (decimal digits) for borderline cases.
    progress : callable, optional
        Called as ``progress(done, total, probe_name)`` after each probe.
    certify : bool
        Certify each probe's outcome (:mod:`certificates`): independence by interval arithmetic,
        dependence by exact relations proved exactly. Evidence becomes ``"proof"`` only when
        every claim behind the verdict is certified. Without it, the witness probe's relations
        are still proved exactly when the check's budget allows (no certificate recorded).
    include_inadmissible : bool
        Also count the probes that violate one of the paper's assumptions (A.1)–(A.5)
        (:mod:`probes`; e.g. type-2's uniform gating violates (A.4)). By default they are run
        and reported, but do not count for the verdict.
    **options
        The condition's own options (its class attribute ``options``, name → default), validated
        by :func:`make_condition`, which refuses an option the condition does not take:

        - type1, mha, type1-full: ``include_zero`` (bool) — also probe a = 0, where a relation
          holds for every φ (reported, not counted);
        - type2: ``n_gates``, ``n_channels`` (int) — gating matrices N (the last fixed at 0) and
          channels K of the head; ``mixed_products`` (bool) — add the mixed ∂u·∂v products of
          the full second-order expansion (an extension beyond the paper's set, labelled so).

        A new condition's options work here without touching this function.

    Returns
    -------
    CheckResult

    Raises
    ------
    IdentcheckError
        Bad input, naming the parameter — also an option set for a condition that does not take it.

    Examples
    --------
    >>> check("z").verdict == "not identifiable"
    True
    """
    started = time.perf_counter()
    setup = make_condition(phi, condition, dim, params, seed, points_per_term, ladder, **options)
    if not isinstance(include_inadmissible, bool):
        raise IdentcheckError(param="include_inadmissible", value=include_inadmissible, reason="must be True or False")
    return run(setup, certify=certify, progress=progress, started=started, include_inadmissible=include_inadmissible)


_NO_TAKER = object()


def make_condition(
    phi, condition="type1", dim=2, params=None, seed=0, points_per_term=4, ladder=DEFAULT_LADDER, **options
) -> Condition:
    """Validate the arguments of :func:`check` and set the condition up (parse φ, build its terms)."""
    if condition not in CONDITIONS:
        raise unknown_condition(condition)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise IdentcheckError(param="seed", value=seed, reason="must be a non-negative integer")
    if isinstance(points_per_term, bool) or not isinstance(points_per_term, int) or not 2 <= points_per_term <= 100:
        raise IdentcheckError(param="points_per_term", value=points_per_term, reason="must be an integer from 2 to 100")
    if not ladder or list(ladder) != sorted(set(ladder)) or len(ladder) < 2 or min(ladder) < 20:
        raise IdentcheckError(
            param="ladder", value=ladder, reason="need at least two increasing precisions of 20 digits or more"
        )
    cls = CONDITIONS[condition]
    for name, value in options.items():
        if name in cls.options:
            continue
        # another condition's option, accepted at that condition's default ("not used"): the first
        # condition that takes it gives the default; the registry is read only as far as needed (a read imports)
        default = next(
            (CONDITIONS[key].options[name] for key in CONDITIONS if name in CONDITIONS[key].options), _NO_TAKER
        )
        if default is _NO_TAKER:
            raise IdentcheckError(param=name, value=value, reason="no condition takes this option")
        if value != default:
            takers = [key for key in CONDITIONS if name in CONDITIONS[key].options]
            raise IdentcheckError(
                param=name, value=value, reason=f"applies to {' and '.join(takers)} only, not {condition}"
            )
    taken = {name: value for name, value in options.items() if name in cls.options}
    return cls(cls.activation_for(phi, params), dim, int(seed), points_per_term, tuple(ladder), **taken)


def run(
    condition: Condition,
    certify: bool = False,
    progress=None,
    started: float | None = None,
    include_inadmissible: bool = False,
) -> CheckResult:
    """Run every probe of ``condition`` and conclude (``include_inadmissible``: see :func:`check`)."""
    started = time.perf_counter() if started is None else started
    activation, term_set = condition.activation, condition.term_set
    probes = condition.probes()
    bound = max(c.l1 for p in probes for c in p.components)
    results = []
    # one pool for all symbolic work of the check; one BLAS thread: the matrices are small (≤ ~500 × 150),
    # and two threads on a busy 2-core machine made their SVDs ~35× slower (docs/performance.md)
    with pool(CERTIFY_POOL_SECONDS if certify else POOL_SECONDS), threadpool_limits(limits=1):
        activation.check_domain(bound)
        for index, probe in enumerate(probes):
            results.append(_run_probe(condition, probe, index, certify, include_inadmissible))
            if progress is not None:
                progress(index + 1, len(probes), probe.name)
        if not certify:
            _prove_witness(condition, probes, results)
        computed_with = environment()  # inside the BLAS thread limit the probes ran with
    verdict, evidence, summary, witness = conclude(results, condition.ladder, certify)
    suffix, fields = condition.finish(results)  # may set details, or n_terms when T is not one block per component
    fields = {"n_terms": len(term_set.terms), **fields}
    return CheckResult(
        phi=activation.text,
        expression=str(activation.expr),
        condition=condition.name,
        dim=condition.dim,
        verdict=verdict,
        evidence=evidence,
        summary=summary + suffix,
        witness=witness,
        merges=term_set.merges,
        n_derivatives=term_set.n_derivatives,
        probes=tuple(results),
        seed=condition.seed,
        points_per_term=condition.points_per_term,
        domain_bound=bound,
        tolerances=rule_tolerances(condition.ladder) + (NULL_SPACE_TOLERANCE,),
        seconds=round(time.perf_counter() - started, 3),
        certified=certify,
        terms_description=condition.describe_terms(),
        include_inadmissible=include_inadmissible,
        scope=condition.scope.statement(verdict),
        environment=computed_with,
        phi_as_written=activation.as_written,
        written_numbers=activation.written_numbers,
        object_name=condition.object_name,
        inputs=condition.describe_inputs(bound),
        options=condition.option_values(),
        **fields,
    )


def decide_probe(condition: Condition, probe, index: int, relations_first: bool = True) -> tuple:
    """(matrix, rank decision, dependent) of one probe — the core :func:`run` and the scan share.

    ``dependent`` is None when the decision is undecided *or* the matrix says its decision cannot
    be the probe's outcome (``matrix.unsettled``: columns below the precision, an undecided φ-free
    reduction). ``relations_first=False`` leaves out the rule's relations proved first (a scan
    reads no relations). Raises IdentcheckError when a term is not finite at the sample points.
    """
    matrix = condition.matrix(probe, index)
    values = matrix.float64()
    if not np.all(np.isfinite(values)):
        phi = condition.activation.text
        raise IdentcheckError(
            param="phi", value=phi, reason=f"terms are not finite at the sample points of probe {probe.name!r}"
        )
    prove_null = condition.relations_prover(probe, matrix) if relations_first else None  # the rule's step 2b
    ladder, gram, gram_of, rows = condition.ladder, matrix.gram, matrix.gram_of, matrix.rows
    decision = decide_rank(values, ladder=ladder, gram=gram, rows=rows, prove_null=prove_null, gram_of=gram_of)
    dependent = None if decision.independent is None or matrix.unsettled is not None else not decision.independent
    return matrix, decision, dependent


def _run_probe(
    condition: Condition, probe, index: int, certify: bool, include_inadmissible: bool = False
) -> ProbeResult:
    matrix, decision, dependent = decide_probe(condition, probe, index)
    relations = decision.explained  # the relations that settled it (the rule's step 2b), else read now
    if not relations and decision.independent is False:
        relations = condition.explain(probe, matrix, decision)
    certificate = None
    if certify:
        certificate, relations = certify_probe(decision, matrix, condition.prover(probe, matrix), relations)
    if matrix.unsettled is not None:
        certificate = Certificate(None, matrix.unsettled) if certify else None
    return ProbeResult(
        name=probe.name,
        components=probe.components,
        n_terms=len(matrix.labels),
        n_points=len(matrix.points),
        smallest_singular_value=decision.smallest_singular_value,
        precision_digits=decision.precision_digits,
        dependent=dependent,
        nullity=decision.nullity,
        relations=relations,
        counts_for_verdict=probe.counts and (probe.admissible or include_inadmissible),
        history=decision.history,
        note=matrix.probe_note(probe, include_inadmissible),
        certificate=certificate,
        tolerances=decision.tolerances,
        assumptions=probe.assumptions,
        admissible=probe.admissible,
        unsettled=matrix.unsettled,
        rank_proof=decision.proof if matrix.unsettled is None else None,  # only a proof that settled the probe
        settled_by=decision.settled_by if matrix.unsettled is None else None,
        **condition.extras(probe, matrix, decision),
    )


WITNESS_PROOF_SECONDS = 1.0  # the check's pool must have this much left to prove the witness's relations


def _prove_witness(condition: Condition, probes, results: list) -> None:
    """Prove, in place, the relations read as exact rationals (and never tried) on the probe
    :func:`conclude` would take as witness, when no dependent probe has a proved relation yet and
    the budget can cut a proof (main thread, ``WITNESS_PROOF_SECONDS`` left in the pool). After a
    proof that runs out of time the rest stay as they were (the pool is spent)."""
    dependent = [i for i, p in enumerate(results) if p.counts_for_verdict and p.dependent]
    if not dependent or any(_dependence_proved(results[i]) for i in dependent) or condition.explain_proves:
        return
    index = min(dependent, key=lambda i: results[i].relation is None or results[i].relation.family is None)
    found = results[index]
    untried = [r for r in found.relations if r.exact is not None and r.keys and not (r.proved or r.timed_out)]
    if not untried or not budget_available() or pool_remaining() < WITNESS_PROOF_SECONDS:
        return
    matrix = condition.matrix(probes[index], index)
    prove, column = condition.prover(probes[index], matrix), {k: j for j, k in enumerate(matrix.keys)}
    relations, spent = [], False
    for r in found.relations:
        if any(r is u for u in untried) and not spent and all(k in column for k in r.keys):
            outcome = prove([(column[k], Rational(v)) for k, (_, v) in zip(r.keys, r.exact)], False, r.family)
            spent = bool(getattr(outcome, "timed_out", False))
            r = replace(r, proved=bool(outcome), timed_out=spent)
            if r.family is None and isinstance(outcome, Outcome) and outcome.family is not None:  # a family's rewrite
                r = replace(r, family=outcome.family, hypothesis=outcome.hypothesis)
        relations.append(r)
    results[index] = replace(found, relations=tuple(relations))


def conclude(results, ladder, certify=False) -> tuple[Verdict, Evidence, str, str | None]:
    """(verdict, evidence, summary, witness name) from the probe results (see :mod:`results`).

    Only probes with ``counts_for_verdict`` decide; inadmissible probes left out (they violate
    one of the paper's assumptions) are named at the end of the summary.
    """
    verdict, evidence, summary, witness = _conclude(results, ladder, certify)
    apart = [p for p in results if not p.admissible and not p.counts_for_verdict]
    if apart:
        summary += f"; {len(apart)} probe(s) outside the paper's assumptions reported apart, not counted: " + ", ".join(
            f"'{p.name}' (violates {', '.join(_violated(p))})" for p in apart
        )
    return verdict, evidence, summary, witness


def _violated(probe) -> list[str]:
    return [tag for tag in ("A.1", "A.2", "A.3", "A.4", "A.5") if tag not in probe.assumptions]


def verdict_of(outcomes) -> Verdict:
    """The three-valued rule on the counted probes' outcomes (``dependent``: True, False or None):
    one dependent ⇒ not identifiable; else one undecided ⇒ inconclusive; else identifiable."""
    outcomes = list(outcomes)
    if any(outcomes):
        return Verdict.NOT_IDENTIFIABLE
    if any(o is None for o in outcomes):
        return Verdict.INCONCLUSIVE
    return Verdict.IDENTIFIABLE


def _conclude(results, ladder, certify=False) -> tuple[Verdict, Evidence, str, str | None]:
    counted = [p for p in results if p.counts_for_verdict]
    verdict = verdict_of(p.dependent for p in counted)
    if verdict is Verdict.NOT_IDENTIFIABLE:
        dependent = [p for p in counted if p.dependent]
        # best evidence first: a proved relation, then a named family, then probe order
        witness = min(
            dependent, key=lambda p: (not _dependence_proved(p), p.relation is None or p.relation.family is None)
        )
        relation = witness.relation
        proved = _dependence_proved(witness)
        family = (relation.family if relation is not None else None) or "a relation not in the known families"
        summary = (
            f"dependent on {len(dependent)} of {len(counted)} probes; witness: probe "
            f"'{witness.name}' ({witness.nullity} relation(s), first: {family}"
            + (", proved exactly)" if proved else ", confirmed at two precisions)")
        )
        return Verdict.NOT_IDENTIFIABLE, Evidence.PROOF if proved else Evidence.NUMERIC, summary, witness.name
    if verdict is Verdict.INCONCLUSIVE:
        undecided = [p.name for p in counted if p.dependent is None]
        summary = (
            f"no dependence found, but {len(undecided)} probe(s) could not be settled up to "
            f"{ladder[-1]} digits: {', '.join(undecided)}"
        )
        return Verdict.INCONCLUSIVE, Evidence.NUMERIC, summary, None
    certified = [p for p in counted if p.certificate is not None and p.certificate.kind is CertificateKind.INTERVAL]
    if certify and len(certified) == len(counted):
        summary = (
            f"independent on all {len(counted)} probes, each proved in interval arithmetic at its parameter "
            "values" + _beyond_the_probes(counted)
        )
        return Verdict.IDENTIFIABLE, Evidence.PROOF, summary, None
    summary = f"independent on all {len(counted)} probes" + _proved_full_rank(counted)
    if certify:
        summary += f" (interval certificates for {len(certified)} of {len(counted)} probes)"
    return Verdict.IDENTIFIABLE, Evidence.NUMERIC, summary, None


def _proved_full_rank(counted) -> str:
    """The rest of an identifiable summary: how many probes the rank decision proved full rank.

    A probe whose rank decision carries a proof (``rank_proof``: interval arithmetic at its
    parameters) is proved; the others are numerical evidence. Either way only the probed
    parameter values are covered.
    """
    proved = sum(p.rank_proof is not None for p in counted)
    if proved == 0:
        return " — numerical evidence at these parameter values, not a proof for all parameters"
    if proved == len(counted):
        return ", all of them proved full rank at their parameter values" + _beyond_the_probes(counted)
    return (
        f", {proved} of them proved full rank at their parameter values, the other {len(counted) - proved} "
        "numerical evidence — not a proof for all parameters"
    )


def _dependence_proved(probe) -> bool:
    if probe.relation is not None and probe.relation.proved:
        return True
    return probe.certificate is not None and probe.certificate.kind is CertificateKind.PROOF


def _beyond_the_probes(counted) -> str:
    """What the summary says of the parameter values no probe took: the almost-everywhere claims
    (:mod:`identcheck.rank.almost_everywhere`) when every counted probe has one, else nothing."""
    if counted and all(p.almost_everywhere for p in counted):
        return " — other parameter values: almost every one of each probe's stratum (below), not every one"
    return " — parameter values not probed are not covered"
