"""The type-2 check: head configurations, the φ-free reduction, the two verdicts (SPEC §2–3).

Per probe (a head configuration, :func:`~identcheck.probes.head_probes`): the full set's
collocation matrix A and the matrix F of its φ-free factors are evaluated at
n = ``points_per_term`` × (number of terms) points; :mod:`reduce` finds the relations that
hold for every φ, group by group, and keeps a basis of each group; the *reduced* decision — the
one that says something about φ — is the rank of A on the kept columns. The verdict is the
reduced one. The *literal* verdict (the set as the paper states it) follows without another
decision: dependent if any group has a φ-free relation, else the same as the reduced one.
"""

from __future__ import annotations

import re
import time
from types import SimpleNamespace
from functools import lru_cache

import flint
import numpy as np
import sympy as sp

from .certificates import certify_probe
from .certify import is_exact_zero
from .activation import Z
from .compile import CompiledTerms, _phi_functions, arb_precision
from .families import Template, phi_properties
from .probes import head_probes
from .rank import decide_rank, raw_gram
from .reduce import reduce_groups, sub_gram
from .relations import explain_null_space
from .report import CheckResult, ProbeResult
from .terms import _PhiDerivative, substitute_phi
from .type2 import _derivative_label, type2_term_set

__all__ = ["check_type2"]


@lru_cache(maxsize=None)
def _compiled(term_set):
    """Full terms (float64 path), φ-free factors, and the channel outputs f^k."""
    return (
        CompiledTerms(term_set.exprs(), term_set.x, term_set.params),
        CompiledTerms(term_set.factor_exprs(), term_set.x, term_set.params),
        CompiledTerms(list(term_set.channel_outputs), term_set.x, term_set.params),
    )


def check_type2(activation, dim, n_gates, n_channels, mixed_products, seed, points_per_term, ladder, progress, started, certify=False):
    from .check import conclude, tolerances

    ts = type2_term_set(dim, n_gates, n_channels, mixed_products)
    full, factors, outputs = _compiled(ts)
    probes = head_probes(dim, n_gates, n_channels, seed)
    bound = max(p.components[0].l1 for p in probes)
    activation.check_domain(bound)
    results = []
    for index, probe in enumerate(probes):
        results.append(
            _run_head_probe(probe, index, ts, (full, factors, outputs), activation, seed, points_per_term, ladder, certify)
        )
        if progress is not None:
            progress(index + 1, len(probes), probe.name)
    verdict, evidence, summary, witness = conclude(results, ladder, certify)
    literal = [p.literal_dependent for p in results]
    literal_verdict = "not identifiable" if any(literal) else ("inconclusive" if None in literal else "identifiable")
    free = sum(p.phi_free_nullity for p in results)
    summary += (
        f"; literal set (as the paper states it): {literal_verdict}"
        + (f", because of {free} relation(s) that hold for every phi over the probes" if free else "")
    )
    return CheckResult(
        phi=activation.text,
        expression=str(activation.expr),
        condition="type2",
        dim=dim,
        verdict=verdict,
        evidence=evidence,
        summary=summary,
        witness=witness,
        merges=ts.merges,
        n_derivatives=ts.n_before_merging,
        n_terms=len(ts.terms),
        probes=tuple(results),
        seed=seed,
        points_per_term=points_per_term,
        domain_bound=bound,
        tolerances=tolerances(ladder),
        seconds=round(time.perf_counter() - started, 3),
        literal_verdict=literal_verdict,
        head={"n_gates": n_gates, "n_channels": n_channels, "mixed_products": mixed_products},
        certified=certify,
    )


def _label_index(ts):
    index = {t.label: (i, sp.Integer(1)) for i, t in enumerate(ts.terms)}
    for merge in ts.merges:
        position, factor = index[merge.into]
        index[merge.merged] = (position, factor * merge.factor)
    return index


def _u_label(i, k, names, order_suffix):
    return _derivative_label(f"u[{i + 1},{k + 1}]", names) + order_suffix


def _templates(ts, activation, config, columns, full_terms):
    """Type-2 family relations on the given columns (positions in ``ts.terms``)."""
    props = phi_properties(tuple(activation.derivatives))
    index = _label_index(ts)
    position = {c: j for j, c in enumerate(columns)}
    a = config.a
    out = []

    def add(family, hypothesis, parts):
        coeffs = {}
        for label, coeff in parts:
            if label not in index or index[label][0] not in position:
                return
            col, factor = index[label]
            coeffs[position[col]] = coeffs.get(position[col], 0) + coeff * factor
        coeffs = {c: v for c, v in coeffs.items() if v != 0}
        if coeffs:
            out.append(Template(family, hypothesis, tuple(coeffs.items())))

    d, N, K = ts.dim, ts.n_gates, ts.n_channels
    if full_terms:
        if props.euler is not None:
            for k in range(K):
                parts = [(f"φ(f{k + 1})", props.euler)]
                for i in range(N):
                    for l in range(d):
                        parts.append((_u_label(i, k, [f"a_{l + 1}"], f"·φ'(f{k + 1})/E"), -a[i][k][l]))
                add("Euler/homogeneity", f"z*phi' = {props.euler}*phi", parts)
        if props.zero_second:
            for c in columns:
                if ts.terms[c].phi_order == 2:
                    add("zero second derivative", "phi'' = 0", [(ts.terms[c].label, 1)])
        if props.symmetry is not None and K >= 2 and all(tuple(-v for v in gate[0]) == tuple(gate[1]) for gate in a):
            for label, ratio, order in _mirrored_pairs(ts):
                sign, q = props.symmetry
                if sp.diff(q, Z, order) == 0:  # φ^(m)(−z) = s(−1)^m φ^(m)(z) wherever q^(m) ≡ 0
                    mirrored = _channel_one(label)
                    add("symmetry", f"phi(-z) = {sign}*phi(z) + ({q})", [(label, 1), (mirrored, -sign * (-1) ** order * ratio)])
    else:
        for k in range(K):
            for i in range(N - 1):
                for j in range(d):
                    for l in range(j, d):
                        mjl = f"M_{j + 1}{l + 1}"
                        parts = [(_u_label(i, k, [mjl], f"·φ'(f{k + 1})/E"), -1)]
                        for m in range(d):
                            parts.append((_u_label(i, k, [mjl, f"a_{m + 1}"], f"·φ'(f{k + 1})/E"), a[i][k][m]))
                        add("linear-expert PDE (holds for every phi)", "sum_m a_m d2u/dM da_m = du/dM", parts)
    return out


def _channel_one(label: str) -> str:
    """The label of the same term on channel 1 (for a term of channel 2)."""
    return re.sub(r"u\[(\d+),2\]", r"u[\1,1]", label).replace("v2", "v1").replace("f2", "f1")


@lru_cache(maxsize=None)
def _mirrored_pairs(ts) -> tuple:
    """(label on channel 2, ratio, φ-order): with a_{i,2} = −a_{i,1} for every gate i, the φ-free
    factor of the channel-2 term equals ratio × that of its channel-1 counterpart (exact)."""
    index = _label_index(ts)
    flip = {}
    for symbol in ts.params:
        match = re.fullmatch(r"a(\d+)2_(\d+)", symbol.name)
        if match:
            partner = next(p for p in ts.params if p.name == f"a{match.group(1)}1_{match.group(2)}")
            flip[symbol] = -partner
    out = []
    for term in ts.terms:
        if term.channel != 1:
            continue
        mirrored = _channel_one(term.label)
        if mirrored not in index:
            continue
        position, factor = index[mirrored]
        ratio = sp.simplify(term.factor.xreplace(flip) / (factor * ts.terms[position].factor))
        if ratio.is_number and ratio != 0:
            out.append((term.label, ratio, term.phi_order))
    return tuple(out)


def _prover(ts, activation, theta, columns, full_terms):
    """``prove(template or coefficients, thorough)``: sympy proof that the combination is ≡ 0.

    First with φ kept abstract (placeholders φ^(m)(f^k) as opaque functions), after rewriting
    φ^(m)(−f) by the parity φ^(m)(−f) = (−1)^m (s φ^(m)(f) + q^(m)(f)) when φ has that symmetry
    (proved by sympy in :func:`~identcheck.families.phi_properties`): an abstract identity holds for
    the concrete φ too (substitution is a homomorphism). Then with φ substituted.
    """
    values = dict(zip(ts.params, theta))
    exprs = ts.exprs() if full_terms else ts.factor_exprs()
    properties = phi_properties(tuple(activation.derivatives))
    symmetry = properties.symmetry if full_terms else None
    polynomial = properties.degree is not None
    outputs = [f.xreplace(values) for f in ts.channel_outputs]
    seen: dict = {}  # argument w → (k, ±1) with w = ±f^k, or None

    def prove(template, thorough):
        total = sum(coeff * exprs[columns[c]] for c, coeff in template.coefficients).xreplace(values)
        if not full_terms:
            return is_exact_zero(total, ts.x, thorough)
        concrete = substitute_phi(total, activation.derivatives)
        # a polynomial φ substitutes into rational functions of exponentials: quick to cancel
        if polynomial and is_exact_zero(concrete, ts.x, thorough=False, derivatives=False):
            return True
        if symmetry is not None and getattr(template, "family", None) in ("symmetry", None):
            abstract, flipped = _apply_parity(total, symmetry, outputs, seen)
            if flipped and is_exact_zero(abstract, ts.x, thorough=False, derivatives=False):
                return True
        return is_exact_zero(concrete, ts.x, thorough)

    return prove


def _apply_parity(expr, symmetry, outputs, seen):
    """Rewrite φ^(m)(w) with w = −f^k (exactly) as (−1)^m (s φ^(m)(f^k) + q^(m)(f^k)); w = f^k → φ^(m)(f^k).

    Returns (rewritten expression, whether any argument was −f^k). ``seen`` caches the
    comparison per argument.
    """
    sign, q = symmetry
    replacements = {}
    flipped = False
    for atom in expr.atoms(_PhiDerivative):
        w = atom.args[0]
        if w not in seen:
            seen[w] = _match_output(w, outputs)
        match = seen[w]
        if match is None:
            continue
        k, orientation = match
        if orientation == 1:
            replacements[atom] = type(atom)(outputs[k])
        else:
            flipped = True
            # φ(−z) = sφ(z) + q(z), differentiated m times: φ^(m)(−f) = (−1)^m (s φ^(m)(f) + q^(m)(f))
            f = outputs[k]
            replacements[atom] = (-1) ** atom.order * (sign * type(atom)(f) + sp.diff(q, Z, atom.order).subs(Z, f))
    return expr.xreplace(replacements), flipped


def _match_output(w, outputs):
    """(k, ±1) when w = ±f^k exactly, else None (a float test first, then sympy's cancel)."""
    x = sorted(w.free_symbols | set().union(*(f.free_symbols for f in outputs)), key=str)
    point = {xi: sp.Rational(3 + 2 * i, 7 + i) for i, xi in enumerate(x)}
    w_value = complex(w.xreplace(point).evalf(20))
    for k, f in enumerate(outputs):
        f_value = complex(f.xreplace(point).evalf(20))
        for orientation in (1, -1):
            if abs(w_value - orientation * f_value) <= 1e-12 * (1 + abs(f_value)):
                if sp.cancel(sp.together(w - orientation * f)) == 0:
                    return k, orientation
    return None


def _literal(reduction, decision):
    """The full set's outcome, without deciding it again.

    A relation among the φ-free factors of one group is a relation among its terms (they share
    the factor φ^(m)(f^k)), so any such relation makes the full set dependent; without one, the
    full set *is* the reduced set.
    """
    if any(reduction.nullities.values()):
        return True
    if reduction.undecided or decision.independent is None:
        return None
    return not decision.independent


def _run_head_probe(probe, index, ts, compiled, activation, seed, points_per_term, ladder, certify=False) -> ProbeResult:
    full, factors, outputs = compiled
    config = probe.components[0]
    theta = ts.numeric_params(config.M, config.a)
    n_columns = len(ts.terms)
    rng = np.random.default_rng([seed, ts.dim, index, 2])
    points = rng.uniform(-1.0, 1.0, size=(points_per_term * n_columns, ts.dim))
    A = full.float64(points, [theta], activation)
    F = factors.float64(points, [theta], activation)

    @lru_cache(maxsize=None)  # one evaluation per precision, shared by all the decisions below
    def factor_provider(digits):
        return factors.arb(points, [theta], activation, digits)

    @lru_cache(maxsize=None)
    def full_provider(digits):
        """Full terms = φ-free factor × φ^(m)(f^k), from the factors already evaluated."""
        phi = _phi_functions(tuple(activation.derivatives))
        with arb_precision(digits):
            f_values = outputs.arb(points, [theta], activation, digits)
            factor = factor_provider(digits)
            needed = {(t.phi_order, t.channel) for t in ts.terms}
            scale = {
                (m, k): [out[0] for out in phi[m]([[f_values[i, k]] for i in range(len(points))])] for m, k in needed
            }
            keys = [(t.phi_order, t.channel) for t in ts.terms]
            return flint.arb_mat(
                [[factor[i, j] * scale[keys[j]][i] for j in range(len(keys))] for i in range(len(points))]
            )

    groups: dict = {}
    for i, t in enumerate(ts.terms):
        groups.setdefault(t.group, []).append(i)
    @lru_cache(maxsize=None)
    def factor_gram(digits):
        return raw_gram(factor_provider(digits), digits)

    @lru_cache(maxsize=None)
    def full_gram(digits):
        return raw_gram(full_provider(digits), digits)

    reduction = reduce_groups(F, groups, factor_gram, ladder)
    kept = reduction.kept
    decision = decide_rank(A[:, kept], ladder=ladder, gram=sub_gram(full_gram, kept))
    labels = ts.labels
    relations = ()
    if decision.independent is False:
        relations = explain_null_space(
            decision,
            A[:, kept],
            _templates(ts, activation, config, list(kept), True),
            [labels[c] for c in kept],
            _prover(ts, activation, theta, list(kept), True),
        )
    free_relations = []
    for key, (columns, null) in reduction.null_spaces.items():
        from .rank import RankDecision

        sub = RankDecision(False, 0.0, 0, null.shape[1], null, (), {})
        free_relations.extend(
            explain_null_space(
                sub,
                F[:, columns],
                _templates(ts, activation, config, list(columns), False),
                [labels[c] for c in columns],
                _prover(ts, activation, theta, list(columns), False),
            )
        )
    undecided_groups = len(reduction.undecided)
    certificate = None
    if certify:
        prove = _prover(ts, activation, theta, list(kept), True)

        def kept_rows(rows, digits):
            full_arb = full_provider(digits)
            return flint.arb_mat([[full_arb[i, j] for j in kept] for i in rows])

        certificate, relations = certify_probe(
            decision,
            A[:, kept],
            points,
            lambda digits: kept_rows(range(points.shape[0]), digits),
            kept_rows,
            lambda coefficients: prove(SimpleNamespace(coefficients=coefficients), False),
            [labels[c] for c in kept],
            relations,
            columns=list(kept),
        )
        if undecided_groups:
            certificate = {"kind": None, "detail": f"{undecided_groups} phi-free group reduction(s) undecided"}
    return ProbeResult(
        name=probe.name,
        components=probe.components,
        n_terms=len(kept),
        n_points=points.shape[0],
        smallest_singular_value=decision.smallest_singular_value,
        precision_digits=decision.precision_digits,
        dependent=None if (decision.independent is None or undecided_groups) else not decision.independent,
        nullity=decision.nullity,
        relations=relations,
        counts_for_verdict=True,
        history=decision.history,
        note=f"{n_columns} terms, {n_columns - len(kept)} removed by relations that hold for every phi",
        literal_dependent=_literal(reduction, decision),
        phi_free_relations=tuple(free_relations),
        certificate=certificate,
    )
