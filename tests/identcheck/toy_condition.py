"""A toy condition in one module, to measure the plug-in claim (docs/conditions/your-own.md;
tests/identcheck/conditions/test_plugin.py).

The ridge set of one expert vector a ∈ R^d: for distinct a_1..a_k, are

    T(a) = {φ(aᵀx), ∂φ(aᵀx)/∂a_j = x_j·φ'(aᵀx) (j = 1..d)}

linearly independent in x? Its family of relations: Euler's — when zφ'(z) = φ(z) (φ homogeneous of
degree 1), Σ_j a_j ∂φ(aᵀx)/∂a_j = aᵀx·φ'(aᵀx) = φ(aᵀx), so T(a) is dependent for every a.

Everything here comes from the plug-in kit, :mod:`identcheck.conditions`: ``Condition`` and
``ProbeMatrix``, ``CompiledTerms`` with φ's placeholders (``phi_placeholder``), ``Component`` and
``Probe`` (its component type: the condition's default), the null-space reading
(``explain_null_space``) with a template (``Template``) and the exact proof (``is_exact_zero``).
Registering it is one line: ``CONDITIONS["toy"] = Toy``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from identcheck.conditions import (
    DEFAULT_LADDER,
    CompiledTerms,
    Component,
    Condition,
    Probe,
    ProbeMatrix,
    Scope,
    Template,
    explain_null_space,
    is_exact_zero,
    phi_placeholder,
    substitute_phi,
)

EULER = "Euler (toy): zφ' = φ"


@dataclass(frozen=True)
class RidgeTerms:
    """The driver's ``term_set``: ``terms``, ``labels``, ``merges``, ``n_derivatives``."""

    terms: tuple  # sympy expressions in x, a and φ's placeholders
    labels: tuple
    keys: tuple
    x: tuple
    params: tuple
    merges: tuple = ()

    @property
    def n_derivatives(self) -> int:
        return len(self.terms)


def ridge_terms(dim: int) -> RidgeTerms:
    x = tuple(sp.Symbol(f"x{j + 1}", real=True) for j in range(dim))
    a = tuple(sp.Symbol(f"a{j + 1}", real=True) for j in range(dim))
    phi = phi_placeholder(0)(sum(aj * xj for aj, xj in zip(a, x)))
    terms = (phi, *(sp.diff(phi, aj) for aj in a))
    labels = ("φ(aᵀx)", *(f"∂φ/∂a{j + 1}" for j in range(dim)))
    keys = ((), *((f"a{j + 1}",) for j in range(dim)))
    return RidgeTerms(terms, labels, keys, x, a)


class Toy(Condition):
    """The ridge set T(a) on random families of one, two and three vectors a, distinct up to sign."""

    name = "toy"
    stream = 7
    scope = Scope(
        model="a toy: sums of ridge functions φ(a_kᵀx)",
        theorem="none (a test of the plug-in API)",
        identifiable="T(a) independent on every probed family: numeric evidence (proofs with --certify).",
        not_identifiable="T(a) dependent on a probed family (the witness relation).",
    )

    def __init__(self, activation, dim=2, seed=0, points_per_term=4, ladder=DEFAULT_LADDER):
        super().__init__(activation, dim, seed, points_per_term, ladder)
        self.term_set = ridge_terms(dim)
        self.compiled = CompiledTerms(self.term_set.terms, self.term_set.x, self.term_set.params)

    def probes(self):
        rng = np.random.default_rng([self.seed, self.dim, 7])
        vectors: list = []
        while len(vectors) < 6:
            v = tuple(sp.Rational(int(k), 8) for k in rng.integers(-8, 9, size=self.dim))
            if any(v) and all(v != w and v != tuple(-t for t in w) for w in vectors):
                vectors.append(v)
        zero = tuple(tuple(sp.Integer(0) for _ in range(self.dim)) for _ in range(self.dim))
        family = [Component(zero, v) for v in vectors]
        return [
            Probe("single", tuple(family[:1])),
            Probe("pair", tuple(family[1:3])),
            Probe("triple", tuple(family[3:])),
        ]

    def matrix(self, probe, index):
        return self.full_matrix(probe, self.sample_points(index, len(probe.components) * len(self.term_set.terms)))

    def full_matrix(self, probe, points):
        k = len(probe.components)
        labels = [label + (f"[{c + 1}]" if k > 1 else "") for c in range(k) for label in self.term_set.labels]
        keys = [(c, key) for c in range(k) for key in self.term_set.keys]
        parameters = [list(c.a) for c in probe.components]
        return ProbeMatrix(self.compiled, points, parameters, self.activation, labels, keys)

    def _euler(self, probe) -> list:
        """φ(a_cᵀx) − Σ_j a_cj ∂φ/∂a_j = 0 for each component c (it holds when zφ' = φ)."""
        n = len(self.term_set.terms)
        return [
            Template(
                EULER,
                "z·φ'(z) = φ(z)",
                ((c * n, sp.Integer(1)), *((c * n + 1 + j, -v) for j, v in enumerate(comp.a) if v != 0)),
            )
            for c, comp in enumerate(probe.components)
        ]

    def explain(self, probe, matrix, decision):
        return explain_null_space(
            decision, matrix.float64(), self._euler(probe), matrix.labels, matrix.keys, self.prover(probe, matrix)
        )

    def prover(self, probe, matrix):
        n, ts = len(self.term_set.terms), self.term_set

        def prove(coefficients, thorough=False, family=None):
            total = sp.Integer(0)
            for column, value in coefficients:
                a = probe.components[column // n].a
                term = ts.terms[column % n].xreplace(dict(zip(ts.params, a)))
                total += sp.Rational(value) * substitute_phi(term, tuple(self.activation.derivatives))
            return is_exact_zero(total, ts.x, thorough=thorough)

        return prove
