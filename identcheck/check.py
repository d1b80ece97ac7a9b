"""Check an activation: build the terms, probe, decide, explain, conclude (SPEC §3).

For each probe (a family of components θ_1..θ_C, :mod:`probes`) the columns are the distinct
terms of every component evaluated at n = ``points_per_term`` × (number of columns) points
drawn uniformly from [−1, 1]^d (seeded per probe). :func:`~identcheck.rank.decide_rank` settles
the column rank, escalating borderline cases to higher precision; a dependence is read as
relations between labelled terms (:mod:`relations`). The verdict follows :mod:`report`.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Mapping

import numpy as np

from .activation import parse_activation
from .certificates import certify_probe
from .certify import prove_relation
from .compile import compile_terms
from .errors import IdentcheckError
from .probes import default_probes
from .rank import DEFAULT_LADDER, decide_rank
from .relations import explain_type1
from .report import CheckResult, ProbeResult
from .terms import type1_term_set

__all__ = ["check", "CONDITIONS"]

#: type1: Setting I (gate after the value projection); type2: Setting II (after the SDPA output);
#: mha: no gate, the linear expert u = exp(xᵀMx)·aᵀx (the contrast: PDE (5) makes it fail).
CONDITIONS = ("type1", "type2", "mha")


def check(
    phi,
    condition: str = "type1",
    dim: int = 2,
    params: Mapping[str, object] | None = None,
    seed: int = 0,
    include_zero: bool = False,
    points_per_term: int = 4,
    ladder: tuple = DEFAULT_LADDER,
    progress=None,
    n_gates: int = 2,
    n_channels: int = 2,
    mixed_products: bool = False,
    certify: bool = False,
) -> CheckResult:
    """Check whether ``phi`` satisfies a strong-identifiability condition.

    Parameters
    ----------
    phi : str or sympy.Expr or Activation
        The gate activation, in ``z`` (e.g. ``"sigmoid(z + 1)"``).
    condition : {"type1", "type2", "mha"}
        Setting I, Setting II, or plain MHA (linear experts; ``phi`` is ignored).
    dim : int
        Input dimension d (1 to 6).
    params : mapping, optional
        Values of named constants in ``phi``.
    seed : int
        Seeds the probe parameters and the sample points.
    include_zero : bool
        Also probe a = 0, where a relation holds for every φ (reported, not counted).
    points_per_term : int
        Sample points per column (≥ 2; default 4).
    ladder : tuple of int
        Precisions (decimal digits) for borderline cases.
    progress : callable, optional
        Called as ``progress(done, total, probe_name)`` after each probe.
    n_gates, n_channels : int
        Type-2 only: gating matrices N (the last fixed at 0) and channels K of the head.
    mixed_products : bool
        Type-2 only: add the mixed ∂u·∂v products of the full second-order expansion
        (an extension beyond the paper's set, labelled as such).
    certify : bool
        Certify each probe's outcome (:mod:`certificates`): independence by interval arithmetic,
        dependence by exact relations proved with sympy. Evidence becomes ``"proof"`` only when
        every claim behind the verdict is certified.

    Returns
    -------
    CheckResult

    Examples
    --------
    >>> check("z").verdict
    'not identifiable'
    """
    started = time.perf_counter()
    if condition not in CONDITIONS:
        raise IdentcheckError(f"condition={condition!r}: unknown; available: {', '.join(CONDITIONS)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise IdentcheckError(f"seed={seed!r}: must be a non-negative integer")
    if isinstance(points_per_term, bool) or not isinstance(points_per_term, int) or not 2 <= points_per_term <= 100:
        raise IdentcheckError(f"points_per_term={points_per_term!r}: must be an integer from 2 to 100")
    if not ladder or list(ladder) != sorted(set(ladder)) or len(ladder) < 2 or min(ladder) < 20:
        raise IdentcheckError(f"ladder={ladder!r}: need at least two increasing precisions of 20 digits or more")
    if condition == "type2":
        from .type2_check import check_type2

        activation = parse_activation(phi, params)
        return check_type2(
            activation, dim, n_gates, n_channels, mixed_products, int(seed), points_per_term, ladder, progress, started,
            certify,
        )
    if condition == "mha":
        activation = dataclasses.replace(parse_activation("z"), text="z (linear expert, no gate)")
    else:
        activation = parse_activation(phi, params)
    term_set = type1_term_set(dim, "u" if condition == "mha" else "ū")
    compiled = compile_terms(term_set)
    probes = default_probes(dim, seed=int(seed), include_zero=include_zero)
    bound = max(c.l1 for p in probes for c in p.components)
    activation.check_domain(bound)

    results = []
    for index, probe in enumerate(probes):
        results.append(_run_probe(probe, index, term_set, compiled, activation, seed, points_per_term, ladder, certify))
        if progress is not None:
            progress(index + 1, len(probes), probe.name)
    verdict, evidence, summary, witness = conclude(results, ladder, certify)
    return CheckResult(
        phi=activation.text,
        expression=str(activation.expr),
        condition=condition,
        dim=dim,
        verdict=verdict,
        evidence=evidence,
        summary=summary,
        witness=witness,
        merges=term_set.merges,
        n_derivatives=term_set.n_derivatives,
        n_terms=len(term_set.terms),
        probes=tuple(results),
        seed=int(seed),
        points_per_term=points_per_term,
        domain_bound=bound,
        tolerances=tolerances(ladder),
        seconds=round(time.perf_counter() - started, 3),
        certified=certify,
    )


def tolerances(ladder) -> dict:
    from . import rank, relations

    return {
        "borderline": "sqrt(eps) * s_max of the column-scaled float64 matrix",
        "collapsed": "singular value < 10**-p at precision p digits (arithmetic carries 2p digits)",
        "agreement": rank.AGREEMENT,
        "ladder": list(ladder),
        "in_null_space": relations.IN_NULL_SPACE,
    }


def _labels(term_set, n_components: int) -> list[str]:
    if n_components == 1:
        return term_set.labels
    return [f"{label}[{c + 1}]" for c in range(n_components) for label in term_set.labels]


def _run_probe(probe, index, term_set, compiled, activation, seed, points_per_term, ladder, certify=False) -> ProbeResult:
    n_columns = len(probe.components) * compiled.n_terms
    n_points = points_per_term * n_columns
    rng = np.random.default_rng([seed, term_set.dim, index, 1])
    points = rng.uniform(-1.0, 1.0, size=(n_points, term_set.dim))
    thetas = [list(term_set.numeric_params(c.M, c.a).values()) for c in probe.components]
    matrix = compiled.float64(points, thetas, activation)
    if not np.all(np.isfinite(matrix)):
        raise IdentcheckError(f"phi={activation.text!r}: terms are not finite at the sample points of probe {probe.name!r}")
    decision = decide_rank(matrix, lambda digits: compiled.arb(points, thetas, activation, digits), ladder)
    relations = ()
    if decision.independent is False:
        labels = _labels(term_set, len(probe.components))
        relations = explain_type1(decision, matrix, term_set, activation, probe, labels)
    certificate = None
    if certify:
        certificate, relations = certify_probe(
            decision,
            matrix,
            points,
            lambda digits: compiled.arb(points, thetas, activation, digits),
            lambda rows, digits: compiled.arb(points[rows], thetas, activation, digits),
            lambda coefficients: prove_relation(term_set, activation.derivatives, probe.components, coefficients, thorough=False),
            _labels(term_set, len(probe.components)),
            relations,
        )
    return ProbeResult(
        name=probe.name,
        components=probe.components,
        n_terms=n_columns,
        n_points=n_points,
        smallest_singular_value=decision.smallest_singular_value,
        precision_digits=decision.precision_digits,
        dependent=None if decision.independent is None else not decision.independent,
        nullity=decision.nullity,
        relations=relations,
        counts_for_verdict=probe.counts,
        history=decision.history,
        note=probe.note,
        certificate=certificate,
    )


def conclude(results, ladder, certify=False):
    """(verdict, evidence, summary, witness name) from the probe results (see :mod:`report`)."""
    counted = [p for p in results if p.counts_for_verdict]
    dependent = [p for p in counted if p.dependent]
    if dependent:
        # best evidence first: a proved relation, then a named family, then probe order
        witness = min(dependent, key=lambda p: (not _dependence_proved(p), p.relation is None or p.relation.family is None))
        relation = witness.relation
        proved = _dependence_proved(witness)
        family = (relation.family if relation is not None else None) or "a relation not in the known families"
        summary = (
            f"dependent on {len(dependent)} of {len(counted)} probes; witness: probe "
            f"'{witness.name}' ({witness.nullity} relation(s), first: {family}"
            + (", proved exactly by sympy)" if proved else ", confirmed at two precisions)")
        )
        return "not identifiable", "proof" if proved else "numeric", summary, witness.name
    undecided = [p.name for p in counted if p.dependent is None]
    if undecided:
        summary = (
            f"no dependence found, but {len(undecided)} probe(s) could not be settled up to "
            f"{ladder[-1]} digits: {', '.join(undecided)}"
        )
        return "inconclusive", "numeric", summary, None
    certified = [p for p in counted if p.certificate is not None and p.certificate["kind"] == "interval"]
    if certify and len(certified) == len(counted):
        summary = (
            f"independent on all {len(counted)} probes, each proved in interval arithmetic at its parameter "
            "values — parameter values not probed are not covered"
        )
        return "identifiable", "proof", summary, None
    summary = (
        f"independent on all {len(counted)} probes — numerical evidence at these parameter values, "
        "not a proof for all parameters"
    )
    if certify:
        summary += f" (interval certificates for {len(certified)} of {len(counted)} probes)"
    return "identifiable", "numeric", summary, None


def _dependence_proved(probe) -> bool:
    if probe.relation is not None and probe.relation.proved:
        return True
    return probe.certificate is not None and probe.certificate["kind"] == "proof"
