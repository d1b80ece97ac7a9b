"""The expert conditions of arXiv 2505.10860 (DeepSeekMoE): Definitions 1 and 2 for an expert h(x; θ).

- ``deepseek-shared``: S1 and S2 of Definition 1 for the shared expert h1(x, κ) (twice differentiable);
- ``deepseek-routed``: S3 of Definition 1 for the routed expert h2(x, η) (twice differentiable);
- ``deepseek-weak``: Definition 2, {∂h2/∂η⁽ᵘ⁾(x, η_j)} (differentiable once).

``phi`` is the expert's text (:mod:`~identcheck.parse.expert`: ``e2*gelu(dot(e1, x))``; the command
line's ``--expert``). Each probe is one set on a family of atoms (:mod:`~identcheck.terms.expert_sets`),
keyed ``(atom, member key)`` (atom 0-based; S2's constant: ``("1",)``); its null space is read,
proved and classified by reach in :mod:`~identcheck.families.reach`. The verdict is the family
reading (any dependent probe ⇒ not identifiable); the summary says whether every relation found
is shared by every expert of its template — the condition then fails for the set's reasons, not
the expert's.

A condition on experts declares its sets as recipes (:class:`~identcheck.terms.recipes.SetRecipe`:
derivatives of any order, products of two derivative parts, x-multiplied parts, the constant 1):
``sets = (S1, S2)``; the derivatives the expert must have (``order``, which the differentiability
refusal reads) are the recipes' highest, or the condition's ``min_order`` (Definition 1's twice
for S1 and S2). A plug-in subclasses :class:`ExpertCondition` with its own
recipes (tests/identcheck/toy_expert_condition.py) and nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import IdentcheckError
from ..families.reach import REACH_EXPERT, REACH_TEMPLATE, ProbeAlgebra
from ..parse.expert import parse_expert
from ..rank.rule import DEFAULT_LADDER
from ..scope import Scope
from ..terms.expert_sets import D2, S1, S2, S3, Atom, SetEvaluator, check_members_finite, expert_probes, member_set
from ..terms.probes import Probe
from ..terms.recipes import SetRecipe
from .base import Condition, ProbeMatrix, unresolved_summary

__all__ = ["DeepSeekRouted", "DeepSeekShared", "DeepSeekWeak", "ExpertCondition", "beyond_template"]

_MODEL = "DeepSeekMoE (arXiv 2505.10860): shared experts h1(x, κ) and routed experts h2(x, η), Gaussian regression"
_NOT = (
    "The paper's sufficient condition fails on these atoms (the witness relation); {theorem}'s rates are not implied "
    "by it. If every relation is shared by the expert's template, the set as written fails for every such expert."
)


def _scope(theorem: str, sets: str) -> Scope:
    return Scope(
        model=_MODEL,
        theorem=theorem,
        identifiable=f"{sets} independent on every probed family of atoms: numeric evidence "
        "(or proofs at these atoms with "
        f"--certify) that {theorem}'s condition holds — parameter values not probed are not covered.",
        not_identifiable=_NOT.format(theorem=theorem),
    )


class ExpertCondition(Condition):
    """A condition on an expert h(x; θ): ``sets`` (a tuple of :class:`~identcheck.terms.recipes.SetRecipe`,
    names distinct), ``h`` (the expert's name in labels); ``order`` (derivatives needed) is set when a
    subclass is made: the recipes' highest, or ``min_order`` if the condition's definition asks more
    (Definition 1 asks a twice differentiable h1 of S1 and S2, which take first derivatives only)."""

    component = Atom
    subject = "expert"  # the user's text is an expert h(x; θ): --expert EXPR on the command line
    explain_proves = True  # ProbeAlgebra.classify proves each exact relation as it reads its reach
    sets: tuple = ()
    min_order = 1
    order = 2
    h = "h"
    stream = 25
    object_name = "h(x; θ)"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.sets:
            return
        if not (isinstance(cls.sets, tuple) and all(isinstance(r, SetRecipe) for r in cls.sets)):
            raise TypeError(f"{cls.__name__}.sets: a tuple of SetRecipe, not {cls.sets!r}")
        if "order" in vars(cls):  # derived from the sets below: a class's own would be overwritten silently
            raise TypeError(f"{cls.__name__}.order: set min_order instead (order is the sets' highest or min_order)")
        names = [r.name for r in cls.sets]
        if len(set(names)) < len(names):
            raise TypeError(f"{cls.__name__}.sets: two sets named alike ({names})")
        cls.order = max(cls.min_order, *(r.order for r in cls.sets))

    def describe_inputs(self, bound):
        return f"x uniform in [-1, 1]^{self.dim}"

    def __init__(self, activation, dim=2, seed=0, points_per_term=4, ladder=DEFAULT_LADDER):
        if isinstance(activation, _Text):  # parsed here: the expert's vectors need d
            activation = parse_expert(activation.text, dim, activation.params, self.order)
        super().__init__(activation, dim, seed, points_per_term, ladder)
        self.expert = activation
        self.member_sets = {r.name: member_set(activation, r, self.h) for r in self.sets}
        self.evaluators = {name: SetEvaluator(s, activation) for name, s in self.member_sets.items()}
        self.term_set = self.member_sets[self.sets[0].name]
        self._symbolic: dict = {}  # the template's members, built once for all probes (ProbeAlgebra)
        self._probes = []
        for probe in expert_probes(activation, seed):  # family by family, each set in turn
            self._probes.extend(Probe(f"{r.name}: {probe.name}", probe.components, note=probe.note) for r in self.sets)
        for index, probe in enumerate(self._probes):  # refuse an expert not finite where it is probed
            name = self._set_of(probe)
            check_members_finite(
                activation,
                self.evaluators[name],
                self.member_sets[name],
                self.sample_points(index, self._n_columns(probe)),
                probe,
                self.order,
            )

    @classmethod
    def activation_for(cls, phi, params=None):
        if phi is None:
            raise IdentcheckError(
                f"condition {cls.name!r} needs an expert (phi / --expert), e.g. 'e2*gelu(dot(e1, x))'"
            )
        if not isinstance(phi, str):
            raise IdentcheckError(f"condition {cls.name!r}: the expert must be text, e.g. 'e2*gelu(dot(e1, x))'")
        return _Text(phi, dict(params or {}))

    @classmethod
    def from_json(cls, result):
        return cls(
            parse_expert(result["expression"], int(result["dim"]), order=cls.order),
            int(result["dim"]),
            int(result["seed"]),
            cls.points_per_term_from_json(result),
            **cls.options_from_json(result),
        )

    def _set_of(self, probe) -> str:
        return probe.name.split(":")[0]

    def _n_columns(self, probe) -> int:
        s = self.member_sets[self._set_of(probe)]
        return len(probe.components) * len(s.members) + s.constants

    def probes(self):
        return list(self._probes)

    def matrix(self, probe, index):
        return self.full_matrix(probe, self.sample_points(index, self._n_columns(probe)))

    def full_matrix(self, probe, points):
        for atom in probe.components:  # an atom read back from JSON names its parameters
            if atom.labels != self.expert.labels:
                raise ValueError(f"atom parameters {list(atom.labels)} are not the expert's {list(self.expert.labels)}")
        s = self.member_sets[self._set_of(probe)]
        k = len(probe.components)
        labels = [m.label + (f"[{j + 1}]" if k > 1 else "") for j in range(k) for m in s.members] + ["1"] * s.constants
        keys = [(j, m.key) for j in range(k) for m in s.members] + [("1",)] * s.constants
        matrix = ProbeMatrix(
            self.evaluators[s.name], points, [c.values for c in probe.components], self.expert, labels, keys
        )
        matrix.algebra = ProbeAlgebra(self.expert, s, probe, self._symbolic)
        return matrix

    def explain(self, probe, matrix, decision):
        return matrix.algebra.explain(decision, matrix)

    def prover(self, probe, matrix):
        return matrix.algebra.prover()

    def describe_terms(self) -> str:
        parts = []
        for name, s in self.member_sets.items():
            extra = " + the constant 1" if s.constants else ""
            parts.append(f"{name}: {len(s.members)} members per atom{extra} ({s.description})")
        params = ", ".join(self.expert.labels)
        return f"h = {self.expert.text}, θ = ({params}); " + "; ".join(parts)

    def counts(self) -> dict:
        """The result's term counts, true of the matrices: ``n_terms`` (the JSON's ``n_terms_per_component``)
        is the members one atom brings over the condition's sets — a probe of set s has k·members(s) +
        constants(s) columns on k atoms — and ``details`` has them per set."""
        members = {name: len(s.members) for name, s in self.member_sets.items()}
        constants = {name: s.constants for name, s in self.member_sets.items()}
        details = {"members_per_atom": members, "constants_per_probe": constants}
        return {"n_terms": sum(members.values()), "details": details}

    def finish(self, results):
        dependent = [p for p in results if p.counts_for_verdict and p.dependent]
        relations = [r for p in dependent for r in p.relations]
        suffix = unresolved_summary(results)
        if not relations:
            counts = self.counts()
            return suffix, counts | {"details": counts["details"] | {"beyond_template": None}}
        template = [r for r in relations if getattr(r, "reach", None) == REACH_TEMPLATE]
        specific = [r for r in relations if getattr(r, "reach", None) == REACH_EXPERT]
        unknown = len(relations) - len(template) - len(specific)
        if len(template) == len(relations):
            reach = (
                "; the condition fails only through relations shared by every expert of its template "
                f"({template[0].template}: e.g. {template[0]})"
            )
        else:
            where = [p.name for p in dependent if any(getattr(r, "reach", None) == REACH_EXPERT for r in p.relations)]
            reach = (
                f"; {len(specific)} relation(s) specific to this expert, on {', '.join(repr(w) for w in where)} "
                f"(e.g. {specific[0]})"
                if specific
                else ""
            )
            reach += f"; {len(template)} shared by its template" if template else ""
            reach += f"; {unknown} of unknown reach (not proved, or undecided for the template)" if unknown else ""
            reach += f" — counted over the {len(relations)} relation(s) read (a basis of each probe's null space)"
        counts = self.counts()
        return reach + suffix, counts | {"details": counts["details"] | {"beyond_template": beyond_template(results)}}


def beyond_template(results) -> dict | None:
    """What the counted dependent probes show beyond the expert's template (None when no relation was
    read): ``specific`` (relations specific to this expert), ``families`` ([family, count], of those, in
    order of appearance), ``first`` (its probe, family and text; None when there is none), ``shared``
    (relations every expert of the template has), ``unknown`` (not proved, or undecided for the template).
    Not a verdict: whether a template's relation does harm depends on the likelihood (:mod:`identcheck.model`)."""
    found = [(p.name, r) for p in results if p.counts_for_verdict and p.dependent for r in p.relations]
    if not found:
        return None
    specific = [(name, r) for name, r in found if getattr(r, "reach", None) == REACH_EXPERT]
    families: dict = {}
    for _, r in specific:
        families[r.family or "unrecognised"] = families.get(r.family or "unrecognised", 0) + 1
    shared = sum(getattr(r, "reach", None) == REACH_TEMPLATE for _, r in found)
    first = None
    if specific:
        name, r = specific[0]
        first = {"probe": name, "family": r.family, "relation": str(r)}
    return {
        "specific": len(specific),
        "families": [[family, n] for family, n in families.items()],
        "first": first,
        "shared": shared,
        "unknown": len(found) - len(specific) - shared,
    }


@dataclass(frozen=True)
class _Text:
    """The expert as given, until the condition knows d (``activation_for`` does not)."""

    text: str
    params: dict


class DeepSeekShared(ExpertCondition):
    """Definition 1, S1 and S2, for the shared expert h1(x, κ)."""

    name = "deepseek-shared"
    sets = (S1, S2)
    min_order = 2  # Definition 1: h1 twice differentiable
    h = "h1"
    scope = _scope("Theorem 1 (shared experts)", "S1 and S2 are")


class DeepSeekRouted(ExpertCondition):
    """Definition 1, S3, for the routed expert h2(x, η)."""

    name = "deepseek-routed"
    sets = (S3,)
    h = "h2"
    scope = _scope("Theorem 1 (routed experts)", "S3 is")


class DeepSeekWeak(ExpertCondition):
    """Definition 2 (weak identifiability), for the routed expert h2(x, η) under normalised sigmoid gating."""

    name = "deepseek-weak"
    sets = (D2,)  # order 1: differentiable once
    h = "h2"
    scope = _scope("Theorem 4 (dense normalised sigmoid gating)", "The first derivatives are")
