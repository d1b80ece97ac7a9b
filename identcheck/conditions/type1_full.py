"""Theorem 2's full decomposition (Setting I, Appendix B.2 of the paper): ``type1-full``.

The type-1 set T1 (:mod:`~identcheck.conditions.type1`) holds the ū-terms of the Taylor
expansion. The proof of Theorem 2 expands g_{G_n}(x) − g_{G*}(x) head by head; with
E(x) = Σ_i exp(xᵀM_i x) (gates i = 1..N of the head, M_N = 0) and the head's regression
function for channel k,

    f̄^k(x) = Σ_i exp(xᵀM_i x) φ(a_{i,k}ᵀx) / E(x),         v̄^k(x; M) = exp(xᵀMx) · f̄^k(x),

its decomposition D_n(x) (B.2, the display defining D_n, after the "A_n(x), B_n(x)" step) has
three kinds of terms:

1. (1/E) · ∂^{|t1|+|t2|}ū/∂M^{t1}∂a^{t2}(x; M_i, a_{i,k}),   1 ≤ |t1| + |t2| ≤ 2 — the ū-terms;
2. (1/E) · ∂^{|r|}v̄^k/∂M^r(x; M_i),   1 ≤ |r| ≤ 2 — from the softmax denominator: the fitted
   head's 1/E_n expanded around 1/E, times the regression function;
3. f̄^k(x) — the regression function itself, coefficient Σ_{V(h,k)} ω′ − ω*.

Our reading (the printed formula is extracted from a PDF and garbled; we state it here):

- The whole decomposition is multiplied by E(x) > 0, which keeps linear (in)dependence: the
  ū-terms become T1's, and the v̄-terms become ∂^r exp(xᵀMx)|_{M_i} · f̄^k(x) = c·x^α·exp(xᵀM_i x)·f̄^k(x).
- Term 3 becomes E·f̄^k = Σ_i ū(x; M_i, a_{i,k}): a sum of T1's zeroth-order terms, for every φ.
  It adds nothing to the union and is not a column (T1 already holds each ū).
- The v̄-terms are taken for the free gates i < N only: M_N = 0 is fixed in the fitted model
  too (A.3), so ΔM_N = 0 and its v̄-terms have coefficient 0. Taking them would add, for every φ,
  the softmax's translation invariance Σ_{i ≤ N} ∂v̄^k/∂M^r(x; M_i) = Σ_{i ≤ N} ∂ū/∂M^r(x; M_i, a_{i,k})
  — the very reason (A.3) fixes M_N.
- The ū-terms are T1's for every expert of the head, the fixed gate's included (T1 as the
  paper states it), so the union is a superset of T1: type-1 dependent ⇒ type1-full dependent,
  and the finding is a dependence the v̄-terms add.
- v̄-terms are merged like T1's (same function up to a constant for every φ): at d = 2,
  ∂²v̄/∂M12² = 4·∂²v̄/∂M11∂M22, so 3 + 5 = 8 v̄-terms per (free gate, channel).

Probes: Type1's probes, each read as one head (:func:`~identcheck.terms.probes.type1_head`):
components sharing a gating matrix are channels of one gate, components with M = 0 are the
fixed gate's experts, and a head without them gets its fixed gate with fresh experts. "M = 0"
and "shared M = 0" then have no free gate: they violate (A.4) and are reported apart. Relations
among ū-columns are read with Type1's families and proved as in type-1; a relation that involves
a v̄-column is reported unrecognised, on its numeric evidence (no exact prover).
"""

from __future__ import annotations

import dataclasses
import itertools
from functools import lru_cache
from typing import ClassVar

import sympy as sp

from ..families.proofs import prove_relation
from ..rank.rule import DEFAULT_LADDER
from ..scope import SETTING_I_FULL
from ..terms.compile import CompiledTerms
from ..terms.merge import merge_proportional
from ..terms.probes import HeadConfig, Probe, default_probes, head_experts, type1_head
from ..terms.type1 import derivative_label, m_variable, phi_placeholder, symmetric_matrix, type1_term_set
from ..util.budget import Outcome
from .base import Condition, ProbeMatrix
from .type1 import explain_with_families

__all__ = ["Type1Full", "head_terms"]


@dataclasses.dataclass(frozen=True, eq=False)
class HeadTerms:
    """The union's columns for one head shape: T1 of every expert, then the v̄-terms."""

    exprs: tuple = dataclasses.field(repr=False)
    labels: tuple
    keys: tuple = dataclasses.field(repr=False)
    params: tuple = dataclasses.field(repr=False)
    x: tuple = dataclasses.field(repr=False)
    n_t1: int
    v_merges: tuple


def _m_symbols(prefix, dim):
    return [sp.Symbol(f"{prefix}M{j + 1}{k + 1}", real=True) for j in range(dim) for k in range(j, dim)]


def _matrix(entries, dim):
    """The symmetric matrix of the upper-triangle ``entries`` (row by row)."""
    return symmetric_matrix(dict(zip(((j, k) for j in range(dim) for k in range(j, dim)), entries)), dim)


def _exp_derivatives(dim, x):
    """∂^r exp(xᵀMx)/∂M^r / exp(xᵀMx), 1 ≤ |r| ≤ 2, merged up to constants: the kept
    (label, poly, typed derivative variables) and the merges."""
    m = _m_symbols("", dim)
    xv = sp.Matrix(x)
    q = sp.expand((xv.T * _matrix(m, dim) * xv)[0])
    e = sp.exp(q)
    typed = dict(zip(m, (m_variable(j, k) for j in range(dim) for k in range(j, dim))))
    derivatives = [(p,) for p in m] + [(p, s) for i, p in enumerate(m) for s in m[i:]]
    labels, polys, names = [], [], []
    for derivative in derivatives:
        polys.append(sp.expand(sp.diff(e, *derivative) / e))
        names.append(tuple(typed[p] for p in derivative))
        labels.append(derivative_label("v̄", tuple(str(p) for p in derivative)))
    kept, merges, _ = merge_proportional(labels, [()] * len(labels), polys)
    return [(labels[i], polys[i], names[i]) for i in kept], merges


@lru_cache(maxsize=None)
def head_terms(dim: int, n_free: int, n_channels: int) -> HeadTerms:
    """The symbolic union for a head with ``n_free`` free gates, the fixed gate, ``n_channels`` channels.

    Parameters, in order: the free gates' M entries (upper triangle), then the experts a_{i,k}
    gate-major (free gates, then the fixed gate). Columns: T1 of each expert (the type-1 term
    set, labelled ``label[c]`` in expert order), then ∂^r v̄^k/∂M^r(x; M_i) for free gate i and
    channel k (labelled ``∂v̄k/∂M11[gi]``). Keys: ``(expert, derivative)`` as type-1's (expert
    0-based), ``("v", k, i, names)`` for a v̄-term (channel k, gate i, 0-based, in the order of
    type-2's keys; ``names`` the M entries differentiated, typed: ``(("M", 0, 0), ("M", 0, 1))``).
    """
    t1 = type1_term_set(dim)
    x = t1.x
    m_sym = [_m_symbols(f"g{i + 1}", dim) for i in range(n_free)]
    n_gates = n_free + 1
    a_sym = [
        [sp.symbols(f"a{i + 1}_{k + 1}_1:{dim + 1}", real=True) for k in range(n_channels)] for i in range(n_gates)
    ]
    generic_m = t1.params[: dim * (dim + 1) // 2]
    generic_a = t1.a_symbols()
    xv = sp.Matrix(x)
    quadratic = [sp.expand((xv.T * _matrix(m_sym[i], dim) * xv)[0]) for i in range(n_free)] + [sp.Integer(0)]
    exps = [sp.exp(q) for q in quadratic]
    exprs: list = []
    labels: list[str] = []
    keys: list[tuple] = []
    expert = 0
    for i in range(n_gates):
        for k in range(n_channels):
            expert += 1
            ms = m_sym[i] if i < n_free else [sp.Integer(0)] * len(generic_m)
            mapping = dict(zip(generic_m, ms)) | dict(zip(generic_a, a_sym[i][k]))
            for term in t1.terms:
                exprs.append(term.expr.xreplace(mapping))
                labels.append(f"{term.label}[{expert}]")
                keys.append((expert - 1, term.key))
    n_t1 = len(exprs)
    denominator = sum(exps)
    outputs = [
        sum(exps[i] * phi_placeholder(0)(sum(a * xi for a, xi in zip(a_sym[i][k], x))) for i in range(n_gates))
        / denominator
        for k in range(n_channels)
    ]
    kept, merges = _exp_derivatives(dim, x)
    for i in range(n_free):
        for k in range(n_channels):
            for label, reduced, names in kept:
                exprs.append(reduced * exps[i] * outputs[k])
                labels.append(label.replace("v̄/", f"v̄{k + 1}/", 1) + f"[g{i + 1}]")
                keys.append(("v", k, i, names))
    params = tuple(itertools.chain.from_iterable(m_sym)) + tuple(s for gate in a_sym for ch in gate for s in ch)
    v_merges = tuple(merges)
    return HeadTerms(tuple(exprs), tuple(labels), tuple(keys), params, tuple(x), n_t1, v_merges)


@lru_cache(maxsize=None)
def _compiled(dim, n_free, n_channels):
    terms = head_terms(dim, n_free, n_channels)
    return CompiledTerms(list(terms.exprs), terms.x, terms.params)


class Type1Full(Condition):
    """Setting I with Theorem 2's full decomposition: T1 ∪ the softmax-denominator v̄-terms."""

    name = "type1-full"
    component = HeadConfig  # a probe is one head
    scope = SETTING_I_FULL
    options: ClassVar[dict] = {}
    stream = 3

    def __init__(self, activation, dim=2, seed=0, points_per_term=4, ladder=DEFAULT_LADDER):
        super().__init__(activation, dim, seed, points_per_term, ladder)
        t1 = type1_term_set(dim)
        self.t1 = t1
        # the report's term count is T1's per expert; the v̄ merges are listed beside T1's
        self.term_set = dataclasses.replace(t1, merges=t1.merges + head_terms(dim, 1, 1).v_merges)

    def probes(self):
        return [
            Probe(p.name, (type1_head(p.components, self.dim, self.seed),), note=p.note)
            for p in default_probes(self.dim, seed=self.seed)
        ]

    @staticmethod
    def _shape(head):
        return len(head.M) - 1, len(head.a[0])

    def _theta(self, head):
        n_free, _ = self._shape(head)
        d = self.dim
        values = [head.M[i][j][k] for i in range(n_free) for j in range(d) for k in range(j, d)]
        values += [v for gate in head.a for vec in gate for v in vec]
        return values

    def matrix(self, probe, index):
        head = probe.components[0]
        n_columns = len(head_terms(self.dim, *self._shape(head)).labels)
        return self.full_matrix(probe, self.sample_points(index, n_columns))

    def full_matrix(self, probe, points):
        head = probe.components[0]
        terms = head_terms(self.dim, *self._shape(head))
        matrix = ProbeMatrix(
            _compiled(self.dim, *self._shape(head)),
            points,
            [self._theta(head)],
            self.activation,
            terms.labels,
            terms.keys,
        )
        n_v = len(terms.labels) - terms.n_t1
        matrix.note = f"{terms.n_t1} ū-terms (T1) + {n_v} v̄-terms (softmax denominator)" + (
            f"; {probe.note}" if probe.note else ""
        )
        return matrix

    def _experts(self, probe):
        return Probe(probe.name, head_experts(probe.components[0]))

    def _counts(self) -> tuple[int, int]:
        """(ū-terms per expert, v̄-terms per free gate and channel): a head with N gates and K channels
        has N·K·ū + (N − 1)·K·v̄ columns."""
        one = head_terms(self.dim, 1, 1)
        return len(self.t1.terms), len(one.labels) - one.n_t1

    def describe_terms(self):
        """T1 per expert, then the v̄-terms per (free gate, channel)."""
        ts = self.term_set
        n_v_merges = len(ts.merges) - len(self.t1.merges)
        u, v = self._counts()
        return (
            f"{ts.n_derivatives} derivatives per component, {len(self.t1.merges)} merged "
            f"(same function for every φ) → {u} distinct ū-terms per expert (T1), "
            f"plus {v} v̄-terms per free gate and channel ({n_v_merges} merged): "
            f"{u + v} columns per expert of a free gate, {u} per expert of the fixed gate"
        )

    def finish(self, results):
        """The term counts that match the matrices: ``n_terms`` is an expert of a free gate's
        columns (its ū-terms and its (gate, channel)'s v̄-terms); ``details`` has both counts."""
        suffix, fields = super().finish(results)
        u, v = self._counts()
        details = {"u_terms_per_expert": u, "v_terms_per_free_gate_and_channel": v}
        return suffix, fields | {"n_terms": u + v, "details": details}

    def explain(self, probe, matrix, decision):
        return explain_with_families(
            self.t1, self.activation, self._experts(probe), matrix, decision, self.prover(probe, matrix)
        )

    def prover(self, probe, matrix):
        experts = self._experts(probe)
        n_t1 = len(experts.components) * len(self.t1.terms)

        def prove(coefficients, thorough=False, family=None):
            if any(int(c) >= n_t1 for c, _ in coefficients):
                return Outcome(False)  # a v̄-column: no exact prover (numeric evidence only)
            return prove_relation(
                self.t1, self.activation.derivatives, experts.components, coefficients, thorough=thorough, family=family
            )

        return prove
