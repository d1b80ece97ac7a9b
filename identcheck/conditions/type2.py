"""Type-2 strong identifiability (Setting II, docs/method.md §8): the gate after the SDPA output.

Per probe (a head configuration, :func:`~identcheck.terms.probes.head_probes`): the full set's
collocation matrix A and the matrix F of its φ-free factors are evaluated at
n = ``points_per_term`` × (number of terms) points; :mod:`~identcheck.rank.reduce` finds the
relations that hold for every φ, group by group, and keeps a basis of each group; the *reduced*
decision — the one that says something about φ — is the rank of A on the kept columns, so the
probe's :class:`ProbeMatrix` is A restricted to them. The verdict is the reduced one. The
*literal* verdict (the set as the paper states it) follows without another decision: dependent
if any group has a φ-free relation, else the same as the reduced one.

In arb, a full term is its φ-free factor × φ^(m)(f^k), both evaluated once per precision and
shared by every decision on the probe (one Gram matrix FᵀF, one AᵀA). Everything that does not
involve φ — the factor matrix F in float64 and in arb, FᵀF, the channel outputs f^k, and so the
whole reduction — depends only on the term set, the probe's parameters and its sample points, so
it is computed once per process for each (term set, parameters, points, ladder) and shared by
every φ checked there (:func:`_phi_free`): a catalog of activations pays for it once.
"""

from __future__ import annotations

from functools import lru_cache

import flint

from ..evidence import Verdict
from ..families.relations import explain_null_space
from ..families.type2 import prover, templates
from ..rank.interval import arb_columns
from ..rank.reduce import reduce_groups
from ..rank.rule import DEFAULT_LADDER, RankDecision, raw_gram
from ..scope import SETTING_II
from ..terms.compile import CompiledTerms, arb_precision, phi_functions
from ..terms.probes import HeadConfig, head_probes
from ..terms.type2 import type2_term_set
from .base import Condition, ProbeMatrix, remembered, resolution_note, unresolved_summary

__all__ = ["Type2"]


@lru_cache(maxsize=None)
def _compiled(term_set):
    """Full terms (float64 path), φ-free factors, and the channel outputs f^k."""
    return (
        CompiledTerms(term_set.exprs(), term_set.x, term_set.params),
        CompiledTerms(term_set.factor_exprs(), term_set.x, term_set.params),
        CompiledTerms(list(term_set.channel_outputs), term_set.x, term_set.params),
    )


class _Memo(dict):
    """Per-probe cache: one evaluation per precision, shared by all the decisions."""

    def once(self, key, compute):
        if key not in self:
            self[key] = compute()
        return self[key]


class _PhiFree:
    """The φ-independent work on one probe: F (float64 and arb), FᵀF, f^k (arb), the reduction."""

    def __init__(self, term_set, points, theta, ladder):
        _, self.factors, self.outputs = _compiled(term_set)
        self.points, self.parameters = points, [theta]
        self.memo = _Memo()
        self.values = self.factors.float64(points, self.parameters, None)
        groups: dict = {}
        for i, t in enumerate(term_set.terms):
            groups.setdefault(t.group, []).append(i)
        self.reduction = reduce_groups(self.values, groups, self.gram, ladder)

    def arb(self, digits):
        return self.memo.once(("F", digits), lambda: self.factors.arb(self.points, self.parameters, None, digits))

    def gram(self, digits):
        return self.memo.once(("FtF", digits), lambda: raw_gram(self.arb(digits), digits))

    def outputs_arb(self, digits):
        return self.memo.once(("f", digits), lambda: self.outputs.arb(self.points, self.parameters, None, digits))

    def lists(self, digits):
        """(F, f^k) at ``digits`` as nested lists of balls, for the φ-dependent products."""
        return self.memo.once(("lists", digits), lambda: (self.arb(digits).tolist(), self.outputs_arb(digits).tolist()))


@lru_cache(maxsize=8)
def _phi_free(term_set, seed, index, points_per_term, theta, ladder):
    """One :class:`_PhiFree` per probe and process (the points follow from seed, index, points_per_term).

    Eight probes are kept (the default head probes are five): ≈ 30 MB each at d = 2, N = K = 2
    (measured by RSS: F, FᵀF and the reduction at 120 digits 22 MB; F and f^k at 60 digits for
    the proofs of independence, with their entries as lists, 4 MB; the lists at 120, 4 MB; another
    22 MB for a probe whose decisions climb to 240 digits; with ``--certify``, F at each
    certificate's precision, 30–36 digits)."""
    points = Type2.points_for(term_set.dim, seed, index, points_per_term, len(term_set.terms))
    return _PhiFree(term_set, points, list(theta), ladder)


class Type2Matrix(ProbeMatrix):
    """A on the kept columns; built from the factors and φ^(m)(f^k) in arb (see module docstring)."""

    def __init__(self, condition, index, theta):
        ts = condition.term_set
        shared = _phi_free(ts, condition.seed, index, condition.points_per_term, tuple(theta), condition.ladder)
        full = _compiled(ts)[0]
        super().__init__(full, shared.points, [theta], condition.activation, ts.labels, [t.key for t in ts.terms])
        self.term_set = ts
        self.shared = shared
        self.memo = _Memo()
        self.full = full.float64(shared.points, [theta], self.activation)
        self.factor_values = shared.values
        self.reduction = shared.reduction
        kept = self.reduction.kept
        self.labels = tuple(ts.labels[c] for c in kept)
        self.keys = tuple(ts.terms[c].key for c in kept)
        self.columns = tuple(int(c) for c in kept)
        self._float64 = self.full[:, list(self.columns)]
        n = len(ts.terms)
        self.note = f"{n} terms, {n - len(kept)} removed by relations that hold for every phi"
        undecided = len(self.reduction.undecided)
        self.unsettled = f"{undecided} phi-free group reduction(s) undecided" if undecided else None

    def arb(self, digits):
        """A on the kept columns: term = φ-free factor × φ^(m)(f^k), from the factors already
        evaluated (only the kept columns: the reduction dropped the others)."""
        return self.memo.once(("A", digits), lambda: self._product(digits, None))

    def rows(self, rows, digits):
        """Those rows of :meth:`arb` (only they are multiplied out, unless A is at hand)."""
        if ("A", digits) in self.memo:
            kept = self.memo[("A", digits)]
            return flint.arb_mat([[kept[i, j] for j in range(len(self.columns))] for i in rows])
        return self._product(digits, list(rows))

    def _product(self, digits, rows, positions=None):
        """Those ``rows`` (None: all) of the kept columns (or of those at ``positions`` among them)."""
        phi = phi_functions(tuple(self.activation.derivatives))
        columns = self.columns if positions is None else [self.columns[p] for p in positions]
        with arb_precision(digits):
            factor, f_rows = self.shared.lists(digits)
            if rows is not None:
                f_rows, factor = [f_rows[i] for i in rows], [factor[i] for i in rows]
            keys = [(self.term_set.terms[j].phi_order, self.term_set.terms[j].channel) for j in columns]
            scale = {(m, k): [out[0] for out in phi[m]([[row[k]] for row in f_rows])] for m, k in set(keys)}
            pairs = list(zip(columns, [scale[key] for key in keys]))
            return flint.arb_mat([[row[j] * values[i] for j, values in pairs] for i, row in enumerate(factor)])

    def gram(self, digits):
        """AᵀA of the kept columns."""
        raw = self.memo.once(("AtA", digits), lambda: raw_gram(self.arb(digits), digits))
        reason = resolution_note(raw, digits, self.labels)
        if reason is not None:
            self.note = self.unsettled = reason
        return raw

    def gram_of(self, positions, digits):
        """AᵀA of the kept columns at ``positions`` alone (only they are multiplied out, unless A is at hand)."""
        if ("A", digits) in self.memo:
            part = arb_columns(self.memo[("A", digits)], positions)
        else:
            part = self._product(digits, None, list(positions))
        raw = raw_gram(part, digits)
        reason = resolution_note(raw, digits, [self.labels[j] for j in positions])
        if reason is not None:
            self.note = self.unsettled = reason
        return raw


class Type2(Condition):
    """Setting II for one head: ``n_gates`` gating matrices (the last fixed at 0), ``n_channels``
    channels; ``mixed_products`` adds the mixed ∂u·∂v products (an extension, labelled so)."""

    name = "type2"
    component = HeadConfig  # a probe is one head
    scope = SETTING_II
    options = {"n_gates": 2, "n_channels": 2, "mixed_products": False}
    stream = 2
    relations_first = True

    def __init__(
        self,
        activation,
        dim=2,
        seed=0,
        points_per_term=4,
        ladder=DEFAULT_LADDER,
        n_gates=2,
        n_channels=2,
        mixed_products=False,
    ):
        super().__init__(activation, dim, seed, points_per_term, ladder)
        self.head = {"n_gates": n_gates, "n_channels": n_channels, "mixed_products": mixed_products}
        self.term_set = type2_term_set(dim, n_gates, n_channels, mixed_products)

    @classmethod
    def from_json(cls, result):
        """Its head from ``options`` and ``details.head`` (schema 3; they must agree) or ``head`` (schema 2),
        each value checked for its type (``mixed_products: "yes"`` is not true)."""
        head = result["details"]["head"] if "details" in result else result["head"]  # schema 3, or 2
        if not isinstance(head, dict) or set(head) != set(cls.options):
            raise ValueError(f"head {head!r} does not name exactly {', '.join(cls.options)}")
        head = cls.options_from_json({"options": head})
        if "options" in result and cls.options_from_json(result) != head:
            raise ValueError(f"options {result['options']!r} are not details.head {head!r}")
        activation = cls.activation_for(result["expression"])
        return cls(activation, int(result["dim"]), int(result["seed"]), cls.points_per_term_from_json(result), **head)

    def option_values(self):
        return dict(self.head)

    def probes(self):
        return head_probes(self.dim, self.head["n_gates"], self.head["n_channels"], self.seed)

    def _values(self, probe):
        config = probe.components[0]
        return self.term_set.numeric_params(config.M, config.a)

    def matrix(self, probe, index):
        return Type2Matrix(self, index, list(self._values(probe).values()))

    def full_matrix(self, probe, points):
        full = _compiled(self.term_set)[0]
        keys = [t.key for t in self.term_set.terms]
        return ProbeMatrix(
            full, points, [list(self._values(probe).values())], self.activation, self.term_set.labels, keys
        )

    def _explain(self, probe, decision, values, columns, full_terms, memo=None):
        relations = templates(self.term_set, self.activation, probe.components[0], list(columns), full_terms)
        labels = [self.term_set.labels[c] for c in columns]
        keys = [self.term_set.terms[c].key for c in columns]
        prove = prover(self.term_set, self.activation, self._values(probe), list(columns), full_terms)
        if memo is not None:
            prove = remembered(prove, memo)
        return explain_null_space(decision, values, relations, labels, keys, prove)

    def explain(self, probe, matrix, decision):
        return self._explain(probe, decision, matrix.float64(), matrix.columns, True, matrix.proofs)

    def prover(self, probe, matrix):
        prove = prover(self.term_set, self.activation, self._values(probe), list(matrix.columns), True)
        return remembered(prove, matrix.proofs)

    def extras(self, probe, matrix, decision):
        """The φ-free relations, and the literal outcome (the full set's) without deciding it again:
        a relation among the φ-free factors of one group is a relation among its terms (they share
        φ^(m)(f^k)), so it makes the full set dependent; without one the full set *is* the reduced set."""

        def phi_free_relations():  # among the φ-free factors: read and proved once per probe and process
            free = []
            for columns, null in matrix.reduction.null_spaces.values():
                sub = RankDecision(False, 0.0, 0, null.shape[1], null, (), ())
                free.extend(self._explain(probe, sub, matrix.factor_values[:, columns], columns, False))
            return tuple(free)

        free = matrix.shared.memo.once(("relations", probe.components), phi_free_relations)
        reduction = matrix.reduction
        if any(reduction.nullities.values()):
            literal = True
        elif reduction.undecided or decision.independent is None:
            literal = None
        else:
            literal = not decision.independent
        return {"details": {"literal_dependent": literal, "phi_free_relations": free}}

    def describe_terms(self):
        ts = self.term_set
        return (
            f"{ts.n_derivatives} per head, {len(ts.merges)} merged "
            f"(same function for every φ) → {len(ts.terms)} distinct"
        )

    def finish(self, results):
        """The literal verdict (the set as the paper states it) beside the reduced one, in ``details``
        (the reports print it on a line of its own), with its reason and the head's shape."""
        literal = [p.details["literal_dependent"] for p in results]
        verdict = (
            Verdict.NOT_IDENTIFIABLE
            if any(literal)
            else (Verdict.INCONCLUSIVE if None in literal else Verdict.IDENTIFIABLE)
        )
        free = sum(len(p.details["phi_free_relations"]) for p in results)
        reason = f"because of {free} relation(s) that hold for every phi over the probes" if free else None
        details = {"literal_verdict": verdict, "literal_reason": reason, "head": dict(self.head)}
        return unresolved_summary(results), {"details": details}
