"""Type-1 strong identifiability (Setting I, docs/method.md §1): the gate after the value projection.

One component θ = (M, a) contributes the terms ∂^t ū, |t| ≤ 2, of ū(x; M, a) = exp(xᵀMx)·φ(aᵀx)
(:mod:`~identcheck.terms.type1`, 18 distinct at d = 2). A probe with C components has C × 18 columns,
component by component, labelled ``label[c]`` when C > 1 and keyed ``(c, derivative)`` (c 0-based,
``derivative`` the term's typed variables, in parameter order, e.g. ``(("M", 0, 0), ("a", 0))`` for
∂²ū/∂M11∂a1, :attr:`~identcheck.terms.type1.Term.key`; ``()`` for ū). A null space is read against the
relation families φ satisfies (:mod:`~identcheck.families`; the ``ode`` family only where the named
ones leave some of it unexplained); relations are proved exactly (:mod:`~identcheck.families.proofs`).
An independent probe with a stratum carries the premise of the almost-everywhere lemma
(:mod:`~identcheck.rank.almost_everywhere`: every column is analytic in θ where φ is, at every aᵀx);
the result's ``details["one_component"]`` is the lemma for one component and every parameter
(:mod:`~identcheck.rank.one_component`).
"""

from __future__ import annotations

from ..families import exact_templates_for, ode_templates_for, phi_properties, templates_for
from ..families.proofs import prove_relation
from ..families.relations import explain_null_space
from ..parse.analyticity import real_singularities
from ..rank.almost_everywhere import Premise
from ..rank.one_component import prove_one_component
from ..rank.rule import DEFAULT_LADDER
from ..scope import SETTING_I
from ..terms.compile import compile_terms
from ..terms.probes import default_probes
from ..terms.type1 import type1_term_set
from .base import Condition, ProbeMatrix, remembered

__all__ = ["Type1", "explain_with_families"]


def explain_with_families(term_set, activation, components, matrix, decision, prove) -> tuple:
    """The relations of a dependent type-1 probe (or of T1's block of a head): the named families'
    templates first, then — for what they leave unexplained, computed only as far as needed — the
    relations read exactly from polynomials in x (a symmetry with a polynomial q, a polynomial φ of
    any degree: :func:`~identcheck.families.type1.exact_templates_for`), then φ's linear ODEs
    (:mod:`identcheck.families.ode`)."""
    templates = templates_for(term_set, activation.derivatives, components)
    late = list(phi_properties(tuple(activation.derivatives)).timed_out)  # ode_templates_for may add "ode"
    return explain_null_space(
        decision,
        matrix.float64(),
        templates,
        matrix.labels,
        matrix.keys,
        prove,
        late,
        more=lambda: _further(term_set, activation.derivatives, components, late),
    )


def _further(term_set, derivatives, components, late):
    yield from exact_templates_for(term_set, tuple(derivatives), components)
    yield from ode_templates_for(term_set, derivatives, components, late)


class Type1(Condition):
    """Setting I. Option ``include_zero``: also probe a = 0 (shown, not counted)."""

    name = "type1"
    scope = SETTING_I
    options = {"include_zero": False}
    stream = 1
    relations_first = True
    base = "ū"  # the base function's name in labels

    def __init__(self, activation, dim=2, seed=0, points_per_term=4, ladder=DEFAULT_LADDER, include_zero=False):
        super().__init__(activation, dim, seed, points_per_term, ladder)
        self.include_zero = include_zero
        self.term_set = type1_term_set(dim, self.base)
        self.compiled = compile_terms(self.term_set)

    def probes(self):
        return default_probes(self.dim, seed=self.seed, include_zero=self.include_zero)

    def matrix(self, probe, index):
        n_columns = len(probe.components) * len(self.term_set.terms)
        return self.full_matrix(probe, self.sample_points(index, n_columns))

    def full_matrix(self, probe, points):
        thetas = [list(self.term_set.numeric_params(c.M, c.a).values()) for c in probe.components]
        labels = self.term_set.labels
        if len(probe.components) > 1:
            labels = [f"{label}[{c + 1}]" for c in range(len(probe.components)) for label in labels]
        keys = [(c, term.key) for c in range(len(probe.components)) for term in self.term_set.terms]
        return ProbeMatrix(self.compiled, points, thetas, self.activation, labels, keys)

    def extras(self, probe, matrix, decision):
        """An independent probe's premise for the almost-everywhere claim (φ's singular points decided once)."""
        if decision.independent is not True or probe.stratum is None:
            return {}
        singular = real_singularities(self.activation.expr)
        return {"coverage": Premise(probe.stratum, self.dim, singular, probe.components, matrix.points)}

    def finish(self, results):
        """The summary's suffix, and ``details["one_component"]``: K = 1 for every (M, a ≠ 0) and every d."""
        suffix, fields = super().finish(results)
        one = prove_one_component(self.term_set, self.activation, real_singularities(self.activation.expr))
        return suffix, fields | {"details": {"one_component": one}}

    def explain(self, probe, matrix, decision):
        return explain_with_families(
            self.term_set, self.activation, probe, matrix, decision, self.prover(probe, matrix)
        )

    def prover(self, probe, matrix):

        def prove(coefficients, thorough=False, family=None):
            return prove_relation(
                self.term_set,
                self.activation.derivatives,
                probe.components,
                coefficients,
                thorough=thorough,
                family=family,
            )

        return remembered(prove, matrix.proofs)
