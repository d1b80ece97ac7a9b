"""Relations among an expert's set members on one probe: found, proved, and classified by reach.

A dependent probe's null space is read by :func:`~identcheck.families.relations.explain_null_space`: the
members that coincide (a zero member; two members with a constant ratio, found from the float64
columns and read as an exact rational) are offered as templates, the rest is reported in the
canonical echelon form with exact rational coefficients where they exist. Every relation with
exact coefficients Σ λ_c m_c = 0 is then **proved** by sympy on the probe's atoms (expand, then
simplify, under the check's time budget) and classified by its **reach**:

- *shared by every expert of its template*: the same coefficients still annihilate the members
  built from the template — the expert with each function call replaced by an arbitrary function
  (``e2*F1(dot(e1, x))``); an expert without function calls (a linear one) is its own argument:
  F(h) — proved by sympy with F1, F undefined (refuted faster by a value at a rational point with
  one concrete function in their place). Such a relation is the set's, not the expert's: any ridge expert F(η1ᵀx)
  at d ≥ 2 has x1·∂h/∂η1⁽²⁾ = x2·∂h/∂η1⁽¹⁾; any c·F(…): ∂²h/∂c∂θ = ∂h/∂θ / c; any F(η1ᵀx + η0):
  ∂h/∂η1⁽ᵘ⁾ = x_u·∂h/∂η0;
- *specific to this expert*: proved for the expert, and refuted for the template (a nonzero value
  at a rational point with a concrete function in place of the arbitrary ones);
- unknown: not proved (float coefficients, or the budget ran out), or neither proved nor
  refuted for the template.

Each relation is named by the general family whose shape it has (:mod:`.constant`, :mod:`.symmetry`,
:mod:`.xmultiplied`, :mod:`.homogeneity`, each proving its hypothesis for h where it has one), else
by the set's own reading: a zero member, a member linear in a parameter, atoms tied, coinciding members.
A relation with a member of a recipe's other parts (third derivatives, products of higher
derivatives, x-multiplied higher derivatives: :mod:`identcheck.terms.recipes`) is named by the set's
own reading only — the general families read the paper's shapes (:attr:`.base.Member.known_shape`) —
and proved and classified by reach like any other.

The reach of a basis does not depend on the basis chosen: combinations of template-wide
relations are template-wide, so the null space is spanned by template-wide relations exactly when
every relation of any basis is (a template-wide relation never hides a specific one).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from fractions import Fraction

import numpy as np
import sympy as sp

from ..results import Relation
from ..util.budget import Outcome, run
from . import constant, homogeneity, symmetry, xmultiplied
from .base import structure
from .relations import explain_null_space

__all__ = ["ExpertRelation", "ProbeAlgebra", "REACH_TEMPLATE", "REACH_EXPERT"]

REACH_TEMPLATE = "template"
REACH_EXPERT = "expert"
PROOF_SECONDS = 3.0  # one sympy proof of one relation on one probe (inside the check's pool)
COINCIDE_TOL = 1e-10  # relative spread of a column ratio below which two members are proposed as coinciding
RATIO_DENOMINATOR = 4096


@dataclass(frozen=True, slots=True)
class ExpertRelation(Relation):
    """A :class:`~identcheck.report.Relation` with its reach: ``reach`` is ``"template"`` (then
    ``template`` says which: ``every expert e2*F1(dot(e1, x))``), ``"expert"`` or None (not proved, or
    undecided for the template)."""

    reach: str | None = None
    template: str | None = None

    @property
    def tag(self) -> str:
        base = super(ExpertRelation, self).tag  # explicit: slots=True makes a new class, which zero-arg super misses
        if self.reach == REACH_TEMPLATE:
            return base + f"; shared by {self.template}"
        if self.reach == REACH_EXPERT:
            return base + "; specific to this expert"
        return base + "; reach unknown"

    def to_dict(self) -> dict:
        return Relation.to_dict(self) | {"reach": self.reach, "reach_template": self.template}


@dataclass(frozen=True)
class _Proposal:
    family: str
    hypothesis: str | None
    coefficients: tuple  # ((column, sympy.Rational), ...)


_T = sp.Dummy("t")
#: stands in for an arbitrary function when refuting numerically: no parity, no homogeneity, no simple ODE
_GENERIC = sp.Lambda(_T, sp.exp(_T / 3) + sp.sin(2 * _T + 1) / 2 + _T**3 / 5)
_REFUTE_POINTS = ((sp.Rational(3, 7), sp.Rational(-5, 11)), (sp.Rational(-2, 9), sp.Rational(7, 13)))
REFUTED_VALUE = 1e-15  # |value| at 30 digits above this (relative to the terms' size) refutes a relation
REFUTED_SUM = 1e-12  # a float64 sum of columns exact to 30 digits above this (relative to its largest term) refutes


PROVED, REFUTED, UNDECIDED = "proved", "refuted", "undecided"


def _decide(expr, x) -> str:
    """Σ λ_c m_c ≡ 0 in x? ``expand`` proves most (:data:`PROVED`); a nonzero value at a rational
    point (arbitrary functions replaced by one concrete function, which is among them) refutes it
    (:data:`REFUTED`); then the expanded numerator over a common denominator with exponentials
    combined (sigmoid's quotients, 20–50 ms where ``simplify`` took 1–2 s); ``simplify`` last. What
    none of them settles is :data:`UNDECIDED`."""
    expr = sp.expand(expr)
    if expr == 0:
        return PROVED
    concrete = _concrete(expr)
    for point in _REFUTE_POINTS:
        at = _at(point, x)
        value = concrete.xreplace(at).evalf(30)
        scale = max([abs(t.xreplace(at).evalf(30)) for t in sp.Add.make_args(concrete)] + [1])
        if not value.is_number or value.has(sp.nan, sp.zoo):
            break
        if abs(complex(value)) > REFUTED_VALUE * float(scale):
            return REFUTED
    return _settle(expr, x)


def _settle(expr, x) -> str:
    """The last steps of :func:`_decide` on an expanded, unrefuted ``expr``."""
    if _quotient_zero(expr):
        return PROVED
    if expr.has(sp.log) and _gradient_zero(expr, x):
        return PROVED
    return PROVED if sp.simplify(expr) == 0 else UNDECIDED


def _concrete(expr):
    """expr with its arbitrary functions replaced by :data:`_GENERIC` (one of them)."""
    undefined = {f.func for f in expr.atoms(sp.core.function.AppliedUndef)}
    return expr.subs({f: _GENERIC for f in undefined}).doit() if undefined else expr


def _at(point, x) -> dict:
    """x at one of :data:`_REFUTE_POINTS`."""
    return {xi: point[i % len(point)] * (1 + i) / (1 + len(x)) for i, xi in enumerate(x)}


def _quotient_zero(expr) -> bool:
    """The expanded numerator over a common denominator, exponentials combined, is 0."""
    numerator = sp.together(expr).as_numer_denom()[0]
    return sp.expand(sp.powsimp(sp.expand(numerator), combine="exp")) == 0


def _gradient_zero(expr, x) -> bool:
    """f ≡ 0 on the (connected) domain when every ∂f/∂x_i ≡ 0 and f(0) = 0: the logarithms of
    softplus-like experts differentiate to quotients the step above proves (log(1 + e^z) −
    log(1 + e^(−z)) = z)."""
    if not all(_quotient_zero(sp.expand(sp.diff(expr, xi))) for xi in x):
        return False
    return sp.simplify(expr.xreplace({xi: 0 for xi in x})) == 0


class ProbeAlgebra:
    """The symbolic side of one probe: each column's member at its atom, for h and its templates.

    Columns are atom by atom (``len(members)`` each), then the set's constant columns.
    """

    def __init__(self, expert, member_set, probe, symbolic: dict | None = None):
        self.expert, self.set, self.probe = expert, member_set, probe
        self.per_atom = len(member_set.members)
        self._cache: dict = {}
        self._symbolic = (
            {} if symbolic is None else symbolic
        )  # (member, template) → member of the template, shared by probes
        g = sp.Function("F", real=True)
        self.templates = []  # (description, expression), most specific first
        if expert.template != expert.h:  # the function calls become arbitrary functions
            self.templates.append((f"every expert {expert.template_text} (F arbitrary)", expert.template))
        else:  # no function call: the identity is the outer function (a linear expert → any F(η1ᵀx + η0))
            self.templates.append((f"every expert F({expert.expression}) (F arbitrary)", g(expert.h)))

    def column(self, c: int, which: int = -1) -> sp.Expr:
        """Column ``c``'s member at its atom, for h (``which`` = −1) or template ``which``."""
        if c >= self.per_atom * len(self.probe.components):
            return sp.Integer(1)
        key = (c, which)
        if key not in self._cache:
            atom = self.probe.components[c // self.per_atom]
            member = self.set.members[c % self.per_atom]
            if which < 0:
                expr = self.set.exprs[c % self.per_atom]
            else:
                shared = (self.set.name, c % self.per_atom, which)
                if shared not in self._symbolic:
                    self._symbolic[shared] = member.build(self.templates[which][1], self.expert.params, self.expert.x)
                expr = self._symbolic[shared]
            values = atom.subs(self.expert.params)
            # subs, not xreplace, for a template: ∂F1(a)/∂a at a = 1/8 must become a Subs, not ∂/∂(1/8)
            self._cache[key] = expr.xreplace(values) if which < 0 else expr.subs(values)
        return self._cache[key]

    def decide(self, coefficients, which: int = -1) -> tuple[str, bool]:
        """(:data:`PROVED`, :data:`REFUTED` or :data:`UNDECIDED`, timed out) for Σ λ_c column_c ≡ 0
        (in x), for h or template ``which``."""
        return run(self._decide, coefficients, which, seconds=PROOF_SECONDS, default=UNDECIDED)

    def _decide(self, coefficients, which: int) -> str:
        """:func:`_decide`, but a template's relation not proved by ``expand`` is refuted from its
        columns' values at the refuting points (each column evaluated once per probe, :meth:`at_point`)
        rather than from the whole sum's."""
        total = sp.Add(*(sp.Rational(v) * self.column(c, which) for c, v in coefficients))
        if which < 0:
            return _decide(total, self.expert.x)
        total = sp.expand(total)
        if total == 0:
            return PROVED
        return REFUTED if self.refuted(coefficients, which) else _settle(total, self.expert.x)

    def refuted(self, coefficients, which: int) -> bool:
        """Σ λ_c column_c is nonzero at one of :data:`_REFUTE_POINTS` (arbitrary functions replaced
        by :data:`_GENERIC`): each column's value is exact to 30 digits (evalf's relative accuracy),
        so a float64 sum above :data:`REFUTED_SUM` times its largest term is no rounding."""
        for i in range(len(_REFUTE_POINTS)):
            terms = [complex(v) * self.at_point(c, which, i) for c, v in coefficients]
            if not all(np.isfinite(t) for t in terms):
                return False
            if abs(sum(terms)) > REFUTED_SUM * max(abs(t) for t in terms):
                return True
        return False

    def at_point(self, c: int, which: int, i: int) -> complex:
        """Column ``c`` of template ``which`` (arbitrary functions replaced by :data:`_GENERIC`) at
        refuting point ``i``, to 30 digits (nan where it has no finite value); cached per probe."""
        key, concrete = ("point", c, which, i), ("concrete", c, which)
        if key not in self._cache:
            if concrete not in self._cache:
                self._cache[concrete] = _concrete(self.column(c, which))
            try:
                value = complex(self._cache[concrete].xreplace(_at(_REFUTE_POINTS[i], self.expert.x)).evalf(30))
            except (TypeError, ValueError, ZeroDivisionError):
                value = complex("nan")
            self._cache[key] = value
        return self._cache[key]

    def prove(self, coefficients, which: int = -1) -> Outcome:
        """Whether Σ λ_c column_c ≡ 0 (in x) for h or template ``which``, proved by sympy."""
        verdict, timed_out = self.decide(coefficients, which)
        return Outcome(verdict == PROVED, timed_out)

    def prover(self):
        def prove(coefficients, thorough=False, family=None):
            return self.prove(coefficients)

        return prove

    def proposals(self, values: np.ndarray) -> list:
        """Zero members and coinciding pairs (constant exact ratio) among the float64 columns."""
        norms = np.linalg.norm(values, axis=0)
        found = []
        live = np.flatnonzero(norms > 0)
        for i, a in enumerate(live):
            for b in live[i + 1 :]:
                ratio = _ratio(values[:, a], values[:, b])
                if ratio is not None:
                    found.append(_Proposal("coinciding members", None, ((int(a), sp.Integer(1)), (int(b), -ratio))))
        return found + [_Proposal("zero member", None, ((int(c), sp.Integer(1)),)) for c in np.flatnonzero(norms == 0)]

    def explain(self, decision, matrix) -> tuple:
        """The relations of a dependent probe, proved and classified (:class:`ExpertRelation` s)."""
        values = matrix.float64()
        relations = explain_null_space(
            decision, values, self.proposals(values), matrix.labels, matrix.keys, self.prover()
        )
        return tuple(self.classify(r, matrix) for r in relations)

    def family(self, keys, values) -> str:
        """The name of a one- or two-member relation, read from the members' keys (never their labels):
        the general families' (:mod:`.constant`, :mod:`.symmetry`, :mod:`.xmultiplied`,
        :mod:`.homogeneity`) where one has the relation's shape, else the set's own."""
        members = structure(keys, values)
        if any(m.kind == "1" for m in members):
            return constant.name(members) or "a member equals the constant 1"
        if len(members) == 1:
            kind, names = members[0].kind, members[0].names
            return (
                "linear in a parameter (zero second derivative)"
                if kind == "dd" and names[0] == names[1]
                else "zero member"
            )
        atoms = self.probe.components
        general = all(m.known_shape for m in members)  # else a recipe's new part: the set's own names
        if len({m.atom for m in members}) > 1:
            same = len({(m.kind, m.names, m.w) for m in members}) == 1
            return (general and symmetry.expert_name(self.expert, atoms, members)) or (
                "atoms tied (" + ("the same member" if same else "different members") + ")"
            )
        if not general:
            return "coinciding members"
        return (
            xmultiplied.expert_name(self.expert, members)
            or homogeneity.expert_name(self.expert, atoms, members)
            or "coinciding members"
        )

    def classify(self, relation: Relation, matrix) -> ExpertRelation:
        fields_ = {f.name: getattr(relation, f.name) for f in fields(relation)}
        if relation.exact is None or not relation.keys:
            return ExpertRelation(**fields_)
        coefficients = [(matrix.keys.index(k), sp.Rational(v)) for k, (_, v) in zip(relation.keys, relation.exact)]
        proved, timed_out = relation.proved, relation.timed_out
        if not proved:
            outcome = self.prove(coefficients)
            proved, timed_out = bool(outcome), outcome.timed_out
        fields_ |= {"proved": proved, "timed_out": timed_out}
        if len(coefficients) <= 2 and fields_["family"] in (None, "coinciding members", "zero member"):
            fields_["family"] = self.family(relation.keys, [v for _, v in coefficients])
        members = structure(relation.keys, [v for _, v in coefficients])
        if fields_["family"] is None and all(m.known_shape for m in members):  # three members or more
            atoms = self.probe.components
            fields_["family"] = homogeneity.expert_name(self.expert, atoms, members) or symmetry.expert_name(
                self.expert, atoms, members
            )
        if not proved:
            return ExpertRelation(**fields_)
        for which, (description, _) in enumerate(self.templates):
            verdict, _ = self.decide(coefficients, which)
            if verdict == PROVED:
                return ExpertRelation(**fields_, reach=REACH_TEMPLATE, template=description)
            if verdict == UNDECIDED:  # neither proved nor refuted for the template: not "specific" either
                return ExpertRelation(**fields_)
        return ExpertRelation(**fields_, reach=REACH_EXPERT)


def _ratio(a: np.ndarray, b: np.ndarray):
    """The exact rational r with a = r·b, when the float columns say so, else None."""
    if np.any((a == 0) != (b == 0)):
        return None
    mask = b != 0
    ratios = a[mask] / b[mask]
    if ratios.size == 0 or np.ptp(ratios) > COINCIDE_TOL * max(1.0, float(np.max(np.abs(ratios)))):
        return None
    guess = Fraction(float(np.median(ratios))).limit_denominator(RATIO_DENOMINATOR)
    if guess == 0 or abs(float(guess) - float(np.median(ratios))) > COINCIDE_TOL * max(1.0, abs(float(guess))):
        return None
    return sp.Rational(guess.numerator, guess.denominator)
