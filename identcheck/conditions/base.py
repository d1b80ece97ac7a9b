"""What a condition supplies to the check driver (:mod:`identcheck.check`).

A strong-identifiability condition is a term set T(θ) and a claim: for every family of
distinct parameters θ_1..θ_C, the functions {t(x; θ_c) : t ∈ T, c ≤ C} are linearly
independent. To test it the driver needs, per condition, four things:

- the **term set** (``term_set``: ``terms``, ``labels``, ``merges``, ``n_derivatives``);
- the **probes** (:meth:`Condition.probes`), structured parameter families;
- each probe's **matrix** (:meth:`Condition.matrix`): a :class:`ProbeMatrix`,
  A[i, j] = column_j(x_i), evaluated in float64, in arb at a precision, or on chosen rows;
- how a **null space is read** (:meth:`Condition.explain`) and a relation **proved**
  (:meth:`Condition.prover`).

The driver runs everything else — the rank decision, certificates, the verdict — the same way
for every condition. Sample points are x_i uniform in [−1, 1]^d, n = ``points_per_term`` ×
(number of columns), seeded by (seed, d, probe index, ``stream``).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from fractions import Fraction
from typing import Any, Callable, ClassVar

import numpy as np

from ..errors import IdentcheckError
from ..parse.activation import Activation, parse_activation
from ..rank.interval import arb_columns
from ..rank.rule import DEFAULT_LADDER, ProvedNull, raw_gram, unresolved_columns
from ..scope import Scope
from ..terms.probes import Component, Probe

__all__ = ["Condition", "ProbeMatrix", "SUBJECTS", "UNRESOLVED", "remembered"]

#: a coefficient the rank rule may take as exact: an integer or a fraction, as sympy writes a Rational
_RATIONAL = re.compile(r"-?\d+(/\d+)?")

#: The values of :attr:`Condition.subject`: what a condition reads from the user's text.
SUBJECTS = ("phi", "expert", None)

#: How a probe's note starts when columns stayed below the precision of the arb evaluation.
UNRESOLVED = "not settled: column(s) too small for the precision"


def resolution_note(raw, digits: int, labels) -> str | None:
    """Why a Gram matrix at ``digits`` digits cannot decide (unresolved columns, :mod:`rank`), or None."""
    bad = unresolved_columns(raw, digits // 2)
    if not bad.size:
        return None
    names = ", ".join(labels[j] for j in bad[:4]) + (", …" if bad.size > 4 else "")
    return (
        f"{UNRESOLVED} ({bad.size}: {names}): at {digits} digits their arb balls still contain 0 or are wider "
        "than their values, so no relation among them can be claimed "
        "(degenerate scaling, e.g. a parameter near 1e-300?)"
    )


class ProbeMatrix:
    """The collocation matrix of one probe: compiled terms at sample points and parameters.

    Parameters
    ----------
    compiled : CompiledTerms
        The terms (:mod:`compile`), evaluated per parameter vector.
    points : ndarray, shape (n, d)
    parameters : list of parameter vectors
        One per component, aligned with the term set's ``params``; columns come component by component.
    activation : Activation
    labels : sequence of str
        One per column, for people.
    keys : sequence of tuple
        One per column, for code: which term it is by structure (the condition's documented key,
        e.g. type-1's ``(component, derivative)``, type-2's :attr:`~identcheck.terms.type2.Type2Term.key`);
        relations carry them (:attr:`~identcheck.report.Relation.keys`).
    columns : sequence of int, optional
        The columns' positions in the probe's full column list (for replaying a certificate);
        default all, in order.

    Attributes ``note`` (shown beside the probe) and ``unsettled`` (why the decision on these
    columns cannot be the probe's outcome, or None) may be set by a condition.
    """

    note: str | None = None
    unsettled: str | None = None

    def __init__(self, compiled, points: np.ndarray, parameters, activation: Activation, labels, keys, columns=None):
        self.compiled = compiled
        self.points = points
        self.parameters = parameters
        self.activation = activation
        self.labels = tuple(labels)
        self.keys = tuple(keys)
        if len(self.keys) != len(self.labels):
            raise ValueError(f"keys: {len(self.keys)} for {len(self.labels)} columns")
        self.columns = tuple(range(len(self.labels))) if columns is None else tuple(int(c) for c in columns)
        self._float64: np.ndarray | None = None
        self.proofs: dict = {}  # the relations' proofs on this matrix, by coefficients (:func:`remembered`)

    def float64(self) -> np.ndarray:
        """The matrix in float64, shape (n, T) (computed once)."""
        if self._float64 is None:
            self._float64 = self.compiled.float64(self.points, self.parameters, self.activation)
        return self._float64

    def arb(self, digits: int):
        """The matrix as a ``flint.arb_mat`` whose balls hold the exact values, at ``digits`` digits."""
        return self.compiled.arb(self.points, self.parameters, self.activation, digits)

    def rows(self, rows, digits: int):
        """Those rows of :meth:`arb` (evaluated alone; their φ-free part is not kept: a minor's
        rows are chosen for one φ, no other activation asks for them)."""
        return self.compiled.arb(self.points[list(rows)], self.parameters, self.activation, digits, keep=False)

    def gram(self, digits: int):
        """AᵀA at ``digits`` digits, for :func:`~identcheck.rank.rule.decide_rank`; when columns are not
        resolved there, ``note`` and ``unsettled`` say so (the last, highest precision asked counts)."""
        raw = raw_gram(self.arb(digits), digits)
        self.note = self.unsettled = resolution_note(raw, digits, self.labels)
        return raw

    def probe_note(self, probe, include_inadmissible: bool) -> str:
        """The probe's note beside this matrix (its own ``note`` first); for an inadmissible probe,
        the violated assumption first."""
        note = probe.note if self.note is None else self.note
        if probe.admissible:
            return note
        violation = probe.violation_note + (" (counted: include_inadmissible)" if include_inadmissible else "")
        return violation + (f"; {note}" if note else "")

    def gram_of(self, columns, digits: int):
        """AᵀA of those columns alone, as :meth:`gram` (the rank rule's step 2b climbs the ladder on
        the columns its proved relations leave)."""
        full = self.arb(digits)
        raw = raw_gram(arb_columns(full, columns), digits)
        self.note = self.unsettled = resolution_note(raw, digits, [self.labels[j] for j in columns])
        return raw


class Condition(ABC):
    """One strong-identifiability condition, set up for one φ and one input dimension.

    Subclasses set ``name`` (the registry key), ``scope`` (what each verdict implies for the
    model, :class:`~identcheck.scope.Scope`), ``component`` (the type of their probes'
    components, :class:`~identcheck.terms.probes.Component` unless they say otherwise), ``options`` (the
    keyword arguments they take beyond the common ones, with their defaults), ``stream`` (seeds their sample points)
    and ``subject`` (what the user's text is: φ by default, an expert, or nothing),
    build ``self.term_set`` in ``__init__``, and implement the abstract methods.
    """

    name: ClassVar[str]
    scope: ClassVar[Scope]  # what each verdict implies for the model (identcheck.scope)
    #: the type of its probes' components: ``assumptions_of(family)``, ``to_dict()``, ``from_dict(data)``, ``l1``
    component: ClassVar[type[Any]] = Component
    options: ClassVar[dict] = {}
    stream: ClassVar[int] = 1
    #: what the text report calls the object checked (``φ(z) = sigmoid(z)``); an expert condition: ``h(x; θ)``
    object_name: ClassVar[str] = "φ(z)"
    #: what the user's text is to this condition (:data:`SUBJECTS`): ``"phi"``, an activation φ(z) — the
    #: command line's PHI; ``"expert"``, an expert h(x; θ) — ``--expert EXPR``; None, nothing: the condition
    #: fixes what it judges (mha, the linear expert) and takes no PHI, no --expert and no --param. The command
    #: line, scan and catalog decide from it, never from a condition's name.
    subject: ClassVar[str | None] = "phi"
    #: whether ``explain`` already tries to prove every relation it reads exactly (an expert's, classified
    #: by reach); False: the driver proves the witness's relations read as exact rationals when the budget allows
    explain_proves: ClassVar[bool] = False
    #: whether ``explain`` reads a provisional float64 null space (templates only, no raw relation
    #: from it) so that the rank rule may settle a dependence by the relations proved first
    #: (:mod:`~identcheck.rank.rule`, step 2b)
    relations_first: ClassVar[bool] = False
    #: the term set its ``__init__`` builds (a TermSet, a type-2 head's set, an expert's member set)
    term_set: Any

    def describe_inputs(self, bound: float) -> str:
        """Where the probes sample, for the report: x in the cube and, for a gate, the range of z = aᵀx."""
        return f"x uniform in [-1, 1]^{self.dim}, z = aᵀx in [-{bound:g}, {bound:g}]"

    def __init__(
        self, activation: Activation, dim: int = 2, seed: int = 0, points_per_term: int = 4, ladder=DEFAULT_LADDER
    ):
        self.activation = activation
        self.dim = dim
        self.seed = seed
        self.points_per_term = points_per_term
        self.ladder = tuple(ladder)

    @classmethod
    def activation_for(cls, phi, params=None) -> Activation:
        """The activation this condition judges for the user's ``phi``."""
        return parse_activation(phi, params)

    @classmethod
    def from_json(cls, result: dict) -> "Condition":
        """The condition a check's JSON was computed with (to replay a certificate): its expression, d,
        seed, ``points_per_term`` and ``options`` (:meth:`options_from_json`)."""
        dim, seed = result["dim"], result["seed"]
        if type(dim) is not int or type(seed) is not int:
            raise ValueError(f"dim {dim!r} and seed {seed!r} must be integers")
        return cls(
            cls.activation_for(result["expression"]),
            dim,
            seed,
            cls.points_per_term_from_json(result),
            **cls.options_from_json(result),
        )

    @staticmethod
    def points_per_term_from_json(result: dict) -> int:
        """A check's recorded ``points_per_term`` (4 when absent), an integer from 2 to 100 as check takes it."""
        value = result.get("points_per_term", 4)
        if type(value) is not int or not 2 <= value <= 100:
            raise ValueError(f"points_per_term {value!r} is not an integer from 2 to 100")
        return value

    @classmethod
    def options_from_json(cls, result: dict) -> dict:
        """The declared ``options`` recorded in a check's JSON (its ``options`` mapping, schema 3; absent
        from schema 2: the defaults). A recorded name the condition does not declare, or a value not of its
        default's type (bool for bool, int for int), is a ValueError naming it."""
        recorded = result.get("options", {})
        if not isinstance(recorded, dict):
            raise ValueError(f"options {recorded!r} is not a mapping")
        for name, value in recorded.items():
            if name not in cls.options:
                raise ValueError(f"option {name!r} is not one of {cls.name!r}'s ({', '.join(cls.options) or 'none'})")
            default = cls.options[name]
            if isinstance(default, (bool, int)) and type(value) is not type(default):
                raise ValueError(f"option {name}={value!r} is not of type {type(default).__name__}")
        return dict(recorded)

    def option_values(self) -> dict:
        """The value of each declared option this condition was set up with (the JSON's ``options``):
        by default its attribute of the option's name — a condition that keeps an option elsewhere says so
        here (type-2 keeps its in ``head``)."""
        missing = [name for name in self.options if not hasattr(self, name)]
        if missing:
            raise IdentcheckError(
                param="condition",
                value=self.name,
                reason=f"declares option {missing[0]!r} but keeps no attribute of that name: set "
                f"self.{missing[0]} in __init__ or override option_values()",
            )
        return {name: getattr(self, name) for name in self.options}

    @classmethod
    def points_for(cls, dim: int, seed: int, index: int, points_per_term: int, n_columns: int) -> np.ndarray:
        """The sample points of probe ``index``: they depend on nothing else (not on φ)."""
        rng = np.random.default_rng([seed, dim, index, cls.stream])
        return rng.uniform(-1.0, 1.0, size=(points_per_term * n_columns, dim))

    def sample_points(self, index: int, n_columns: int) -> np.ndarray:
        return self.points_for(self.dim, self.seed, index, self.points_per_term, n_columns)

    @abstractmethod
    def probes(self) -> list:
        """The probes (:class:`~identcheck.terms.probes.Probe`), in report order."""

    @abstractmethod
    def matrix(self, probe, index: int) -> ProbeMatrix:
        """The matrix whose column rank decides ``probe`` (``index``: its position, seeds its points)."""

    def probe_from_json(self, name: str, components: list) -> Probe:
        """The probe ``name`` rebuilt from its JSON ``components`` (to replay a certificate): each
        read by the condition's component type (``component.from_dict``), exactly."""
        if not isinstance(components, list):
            raise ValueError(f"probe {name!r}: components {components!r} is not a list")
        return Probe(name, tuple(self.component.from_dict(c) for c in components))

    def full_matrix(self, probe, points: np.ndarray) -> ProbeMatrix:
        """The probe's full column list at given points (:func:`~identcheck.rank.certificates.replay`)."""
        raise NotImplementedError(f"condition {self.name!r} cannot replay certificates")

    @abstractmethod
    def explain(self, probe, matrix: ProbeMatrix, decision) -> tuple:
        """The null space of a dependent ``decision`` as :class:`~identcheck.report.Relation` s."""

    @abstractmethod
    def prover(self, probe, matrix: ProbeMatrix) -> Callable[..., bool]:
        """``prove(coefficients, thorough=False, family=None)``: True when Σ λ_c column_c ≡ 0 was
        proved exactly (``coefficients``: pairs (column, exact λ))."""

    def relations_prover(self, probe, matrix: ProbeMatrix) -> Callable[..., ProvedNull | None] | None:
        """``prove_null`` for the rank rule's step 2b (:mod:`~identcheck.rank.relations_first`), None
        unless ``relations_first``: those of :meth:`explain`'s relations on the provisional float64
        null space that were proved exactly, with rational coefficients on columns of the matrix (None
        when there is none)."""
        if not self.relations_first:
            return None
        column = {key: j for j, key in enumerate(matrix.keys)}

        def prove_null(provisional):
            proved = [
                r
                for r in self.explain(probe, matrix, provisional)
                if r.proved
                and r.exact is not None
                and all(k in column for k in r.keys)
                and all(_RATIONAL.fullmatch(v) for _, v in r.exact)
            ]
            if not proved:
                return None
            vectors = [tuple((column[k], Fraction(v)) for k, (_, v) in zip(r.keys, r.exact)) for r in proved]
            return ProvedNull(tuple(vectors), tuple(proved))

        return prove_null

    def extras(self, probe, matrix: ProbeMatrix, decision) -> dict:
        """Further :class:`~identcheck.report.ProbeResult` fields of this condition."""
        return {}

    def describe_terms(self) -> str:
        """The term set in one line for the report (``CheckResult.terms_text``)."""
        ts = self.term_set
        return (
            f"{ts.n_derivatives} derivatives per component, {len(ts.merges)} merged "
            f"(same function for every φ) → {len(ts.terms)} distinct"
        )

    def finish(self, results) -> tuple[str, dict]:
        """(text appended to the summary, further :class:`~identcheck.report.CheckResult` fields)."""
        return unresolved_summary(results), {}


def unresolved_summary(results) -> str:
    """The summary's reason when probes were left undecided by columns below the precision."""
    undecided = [
        p for p in results if p.dependent is None and p.unsettled is not None and p.unsettled.startswith(UNRESOLVED)
    ]
    if not undecided:
        return ""
    first = undecided[0]
    return f"; {len(undecided)} of them because column(s) stayed below the precision, e.g. '{first.name}': {first.note}"


def remembered(prove: Callable[..., Any], memo: dict) -> Callable[..., Any]:
    """``prove`` with its outcomes kept in ``memo``, by (coefficients, family): a relation tried on
    the rank rule's provisional null space (:mod:`~identcheck.rank.relations_first`) and again
    after the ladder is proved once. A kept outcome is reused when it was a proof, when it ran out
    of time (a thorough attempt runs the same routes first, under the same budget), or when the
    attempt asked no more (``thorough`` then, or not now); else the proof is tried again."""

    def prove_once(coefficients, thorough=False, family=None):
        key = (tuple((int(c), str(v)) for c, v in coefficients), family)
        kept = memo.get(key)
        if kept is not None:
            outcome, was_thorough = kept
            if bool(outcome) or getattr(outcome, "timed_out", False) or was_thorough or not thorough:
                return outcome
        outcome = prove(coefficients, thorough, family)
        memo[key] = (outcome, thorough)
        return outcome

    return prove_once
