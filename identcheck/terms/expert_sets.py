"""The function sets of arXiv 2505.10860 (DeepSeekMoE) for an expert h(x; θ), and their probes.

Definition 1 (strong identifiability), for atoms θ_1..θ_k (parameters p = 1..P):

    S1 = {∂h/∂θ⁽ᵘ⁾(x, θ_i)}
    S2 = {∂h/∂θ⁽ᵘ⁾(x, θ_i) · ∂h/∂θ⁽ᵛ⁾(x, θ_i) : u ≤ v} ∪ {1}
    S3 = {∂h/∂θ⁽ᵘ⁾(x, θ_j), ∂²h/∂θ⁽ᵘ⁾∂θ⁽ᵛ⁾(x, θ_j) (u ≤ v), x⁽ʷ⁾ · ∂h/∂θ⁽ᵛ⁾(x, θ_j)}

Definition 2 (weak identifiability): {∂h/∂θ⁽ᵘ⁾(x, θ_j)}. Each set is read **as a family**: every
member of every atom is a column, so members that coincide — across atoms or within one — make
the columns dependent, as the paper reads (∂h1/∂κ0)² = 1 against S2's 1. Only the symbolically
identical members (∂²/∂u∂v = ∂²/∂v∂u, products u·v = v·u) are listed once: u ≤ v. S2's constant
1 is one column, shared by all atoms.

A probe is k atoms with exact dyadic parameters k/8 (exact in float64, arb and sympy), distinct
across atoms (the paper's sets are for distinct atoms): random atoms (k = 1, 2, 3), a sign pair
θ₂ = −θ₁, a sign pair of the vector parameters (scalars drawn afresh), and for each parameter two
atoms sharing it.

Each set is a :class:`~identcheck.terms.recipes.SetRecipe` (:data:`SETS`: the paper's four), and a
condition on experts may declare its own — derivatives of any order, products of two derivative
parts, x-multiplied derivative parts, the constant 1 (:mod:`identcheck.terms.recipes`).

A member's structural key (:attr:`Member.key`; a relation's column is ``(atom, key)``, the JSON's
``keys``) names its parameters typed, as type-1's keys do (``("a", 0)``; :mod:`identcheck.parse.param_ids`):
``("e1", 0)`` for component 0 of the vector parameter e1 (0-based; the symbol e1_1, label e1⁽¹⁾),
``("e0",)`` for a scalar — ``("d", (("e1", 0),))`` is ∂h/∂e1⁽¹⁾, ``("x", 2, (("e0",),))`` is x2·∂h/∂e0.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import flint
import numpy as np
import sympy as sp
from numpy.exceptions import ComplexWarning

from ..errors import IdentcheckError
from ..parse.expert import ORDER_WORDS, Expert
from ..parse.grammar import lambdify_modules
from ..parse.param_ids import parameter_ids, symbol_name
from .compile import CompiledTerms, arb_precision
from .probes import Probe, exact
from .recipes import Derivatives, Product, SetRecipe, XMultiplied, build

__all__ = ["D2", "S1", "S2", "S3", "SETS", "Atom", "Member", "MemberSet", "SetEvaluator", "expert_probes", "member_set"]

S1 = SetRecipe("S1", "first derivatives (Definition 1, S1)", (Derivatives(1),))
S2 = SetRecipe(
    "S2",
    "products of first derivatives and the constant 1 (Definition 1, S2)",
    (Product(Derivatives(1), Derivatives(1)),),
    constants=1,
)
S3 = SetRecipe(
    "S3",
    "first and second derivatives and x-multiplied first derivatives (Definition 1, S3)",
    (Derivatives(1), Derivatives(2), XMultiplied(Derivatives(1))),
)
D2 = SetRecipe("D2", "first derivatives (Definition 2)", (Derivatives(1),))
#: set name → its recipe: the sets of arXiv 2505.10860
SETS = {recipe.name: recipe for recipe in (S1, S2, S3, D2)}
DENOMINATOR = 8


@dataclass(frozen=True)
class Member:
    """One member of a set, per atom: its label, its structural key, how to build it from h."""

    label: str
    key: tuple  # ("d", (u,)), ("dd", (u, v)), ("prod", (u, v)), ("x", w, (v,)), …: :mod:`.set_recipes`

    def build(self, h: sp.Expr, params: tuple, x: tuple) -> sp.Expr:
        """The member for the expert (or template) ``h`` (``params``: its symbols)."""
        return build(self.key, h, params, x)


@dataclass(frozen=True)
class MemberSet:
    """A set's per-atom members (``members``) and its shared constant columns (``constants``:
    S2's 1). ``exprs``: the members of h, symbolic in x and θ; ``description``: the recipe's."""

    name: str
    members: tuple
    exprs: tuple = field(repr=False)
    constants: int = 0
    description: str = ""

    @property
    def terms(self) -> tuple:  # the driver's ``term_set.terms`` (its count per atom)
        return self.members

    merges = ()  # no merges: coinciding members are dependences here

    @property
    def n_derivatives(self) -> int:
        return len(self.members)


def member_set(expert: Expert, recipe: SetRecipe | str, h: str = "h") -> MemberSet:
    """The members of ``recipe`` (a :class:`~identcheck.terms.recipes.SetRecipe`, or the name of one of
    :data:`SETS`: "S1", "S2", "S3", "D2") for ``expert``; ``h``: its name in labels."""
    if isinstance(recipe, str):
        if recipe not in SETS:
            raise ValueError(f"set {recipe!r}: unknown (the named sets: {', '.join(SETS)})")
        recipe = SETS[recipe]
    symbols, labels, ids = expert.params, expert.labels, parameter_ids(expert.names, expert.vectors, expert.dim)
    if [symbol_name(pid) for pid in ids] != [s.name for s in symbols]:  # pragma: no cover - expert.py's naming
        raise AssertionError(f"parameter ids {ids} do not name the symbols {symbols}")
    members = tuple(Member(label, key) for label, key in recipe.members(ids, labels, expert.dim, h))
    exprs = tuple(m.build(expert.h, symbols, expert.x) for m in members)
    return MemberSet(recipe.name, members, exprs, recipe.constants, recipe.description)


class SetEvaluator:
    """A set's columns at points and atoms: the members compiled once (:class:`CompiledTerms`,
    no φ placeholders), then the shared constant columns (value 1). The interface of
    :class:`~identcheck.terms.compile.CompiledTerms` that :class:`~identcheck.conditions.base.ProbeMatrix` uses."""

    def __init__(self, member_set: MemberSet, expert: Expert):
        self.inner = CompiledTerms(member_set.exprs, expert.x, expert.params)
        self.constants = member_set.constants

    def float64(self, points, components, activation=None) -> np.ndarray:
        values = self.inner.float64(points, components, activation)
        return np.hstack([values, np.ones((len(points), self.constants))]) if self.constants else values

    def arb(self, points, components, activation, digits, keep=True):
        values = self.inner.arb(points, components, activation, digits, keep)
        if not self.constants:
            return values
        with arb_precision(digits):
            rows = [
                [values[i, j] for j in range(values.ncols())] + [flint.arb(1)] * self.constants
                for i in range(values.nrows())
            ]
            return flint.arb_mat(rows)


@dataclass(frozen=True)
class Atom:
    """One atom θ_i: exact values aligned with the expert's flat parameters (``labels``).

    The component type of the expert conditions' probes (:class:`~identcheck.terms.probes.Probe`): no
    (A.1)–(A.5) here (they are the HMoE paper's); the DeepSeekMoE sets are for distinct atoms,
    which every probe's atoms are by construction (:func:`expert_probes`)."""

    values: tuple
    labels: tuple = field(repr=False)

    def to_dict(self) -> dict:
        return {"params": {label: str(v) for label, v in zip(self.labels, self.values)}}

    @classmethod
    def from_dict(cls, data: dict) -> "Atom":
        """The atom :meth:`to_dict` wrote, exactly (a malformed one: ValueError naming the field)."""
        params = data.get("params") if isinstance(data, dict) else None
        if not isinstance(params, dict):
            raise ValueError(f"atom {data!r}: no mapping 'params'")
        return cls(exact(list(params.values()), 1, "params"), tuple(params))

    @classmethod
    def assumptions_of(cls, atoms) -> tuple[tuple, tuple]:
        """No tags satisfied, none violated (see the class)."""
        return (), ()

    @property
    def l1(self) -> float:
        return float(sum(abs(v) for v in self.values))

    def subs(self, params) -> dict:
        return dict(zip(params, self.values))


def _values(rng, count, avoid=()) -> list:
    """``count`` distinct nonzero dyadic rationals k/8, |k| ≤ 8, none in ``avoid``."""
    pool = [k for k in range(-DENOMINATOR, DENOMINATOR + 1) if k != 0 and sp.Rational(k, DENOMINATOR) not in avoid]
    return [sp.Rational(int(k), DENOMINATOR) for k in rng.choice(pool, size=count, replace=False)]


def expert_probes(expert: Expert, seed: int = 0) -> list[Probe]:
    """Random atoms (k = 1, 2, 3), sign pairs, and shared parameters, every atom distinct."""
    rng = np.random.default_rng([seed, expert.dim, 2505])
    n = len(expert.params)
    owners = [label.split("⁽")[0] for label in expert.labels]

    def atoms(k):
        columns = [_values(rng, k) for _ in range(n)]  # distinct across atoms, entry by entry
        return [Atom(tuple(col[i] for col in columns), expert.labels) for i in range(k)]

    probes = [Probe(f"random, k = {k}", tuple(atoms(k))) for k in (1, 2, 3)]
    first = atoms(1)[0]
    probes.append(Probe("sign pair θ2 = −θ1", (first, Atom(tuple(-v for v in first.values), expert.labels))))
    vectors = [i for i in range(n) if owners[i] in expert.vectors]
    if vectors and len(vectors) < n:
        second = [-v if i in vectors else _values(rng, 1, avoid=(v, -v))[0] for i, v in enumerate(first.values)]
        probes.append(Probe("sign pair of the vectors, scalars distinct", (first, Atom(tuple(second), expert.labels))))
    if len(expert.names) > 1:
        for name in expert.names:
            a, b = atoms(2)
            shared = tuple(a.values[i] if owners[i] == name else b.values[i] for i in range(n))
            probes.append(Probe(f"shared {name}, the rest distinct", (a, Atom(shared, expert.labels))))
    for probe in probes:
        if len({c.values for c in probe.components}) < len(probe.components):  # pragma: no cover - by construction
            raise AssertionError(f"probe {probe.name!r}: atoms not distinct")
    return [_with_same_function_note(expert, p) for p in probes]


SAME_POINTS = 32  # points at which two atoms' experts are compared


def _with_same_function_note(expert: Expert, probe: Probe) -> Probe:
    """Note the atoms that give the same function h (the parameterisation is not injective there:
    tanh's sign pair), compared in float64 at ``SAME_POINTS`` points of [−1, 1]^d."""
    if len(probe.components) < 2:
        return probe
    points = np.random.default_rng([expert.dim, 2505, 1]).uniform(-1.0, 1.0, size=(SAME_POINTS, expert.dim))
    h = sp.lambdify((*expert.x, *expert.params), expert.h, modules=lambdify_modules(expert.h))
    with np.errstate(all="ignore"):
        values = [
            np.broadcast_to(np.asarray(h(*points.T, *[float(v) for v in c.values]), dtype=complex), (SAME_POINTS,))
            for c in probe.components
        ]
    same = [
        (i, j)
        for i in range(len(values))
        for j in range(i + 1, len(values))
        if np.all(np.abs(values[i] - values[j]) <= 1e-12 * (1 + np.abs(values[i])))
    ]
    if not same:
        return probe
    pairs = ", ".join(f"[{i + 1}] and [{j + 1}]" for i, j in same)
    note = (
        f"atoms {pairs} give the same function h (numerically, at {SAME_POINTS} points): "
        "the parameterisation is not injective there"
    )
    return Probe(probe.name, probe.components, note=note)


DENOMINATOR_POINTS = 4096  # random points of [−1, 1]^d (and the corners) where h's denominator's sign is read


#: Functions with poles on the real line, written as quotients so that their poles show as
#: denominators (tan(u) has no denominator for sympy; sin(u)/cos(u) has cos(u)).
_POLES = {
    sp.tan: lambda u: sp.sin(u) / sp.cos(u),
    sp.cot: lambda u: sp.cos(u) / sp.sin(u),
    sp.sec: lambda u: 1 / sp.cos(u),
    sp.csc: lambda u: 1 / sp.sin(u),
}


def _poles_as_quotients(expression: sp.Expr) -> sp.Expr:
    for function, quotient in _POLES.items():
        expression = expression.replace(function, quotient)
    return expression


def _denominator_crossing(expert: Expert, atom: Atom):
    """A factor that depends on x and takes both signs, or the value 0, on [−1, 1]^d: of h's
    denominator or of its first derivatives' (at the atom, tan read as sin/cos) — a pole inside the
    probed domain, which sample points would almost never hit — or the argument of a logarithm in h
    that is not positive there (log(e1ᵀx): h complex where e1ᵀx < 0, its derivatives x/(e1ᵀx)
    singular at 0)."""
    h = expert.h.xreplace(atom.subs(expert.params))
    at = atom.subs(expert.params)
    expressions = [_poles_as_quotients(e) for e in [h] + [sp.diff(expert.h, p).xreplace(at) for p in expert.params]]
    bases = [
        (factor.base if factor.is_Pow else factor, False)
        for e in expressions
        for factor in sp.Mul.make_args(sp.together(e).as_numer_denom()[1])
    ] + [(log.args[0], True) for log in h.atoms(sp.log)]
    rng = np.random.default_rng([expert.dim, 2505, 2])
    corners = np.array(np.meshgrid(*[[-1.0, 1.0]] * expert.dim)).reshape(expert.dim, -1).T
    points = np.vstack([rng.uniform(-1.0, 1.0, size=(DENOMINATOR_POINTS, expert.dim)), corners])
    for base, positive in bases:
        if not base.free_symbols & set(expert.x):
            continue
        f = sp.lambdify(expert.x, base, modules=lambdify_modules(base))
        with np.errstate(all="ignore"):
            values = np.broadcast_to(np.asarray(f(*points.T), dtype=complex), (len(points),))
        real = values.real[np.isfinite(values) & (values.imag == 0)]
        if positive and real.size and real.min() <= 0:
            return f"the logarithm's argument {base} is not positive"
        if real.size and (np.any(real == 0) or (real.min() < 0 < real.max())):
            return f"the denominator factor {base} vanishes or changes sign"
    return None


def check_members_finite(
    expert: Expert, evaluator: SetEvaluator, members: MemberSet, points, probe, order: int
) -> None:
    """Refuse the expert when a member is not finite and real at a probe's points, or when h's
    denominator vanishes inside [−1, 1]^d for one of the probe's atoms (one line)."""
    params = ", ".join(f"{k}={v}" for c in probe.components[:1] for k, v in c.to_dict()["params"].items())
    for atom in probe.components:
        crossing = _denominator_crossing(expert, atom)
        if crossing is not None:
            at = ", ".join(f"{k}={v}" for k, v in atom.to_dict()["params"].items())
            raise IdentcheckError(
                param="expert",
                value=expert.text,
                reason=f"{crossing} inside x in [-1, 1]^{expert.dim} at {at} "
                f"(probe {probe.name!r}): h is not {ORDER_WORDS[order]} on the probed domain",
            )
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error", ComplexWarning)  # a complex value cast to float: not real
        try:
            values = evaluator.float64(points, [c.values for c in probe.components])
        except ComplexWarning:
            raise IdentcheckError(
                param="expert",
                value=expert.text,
                reason=f"not real on the probed domain x in [-1, 1]^{expert.dim} (probe {probe.name!r}, {params}); "
                "the condition needs a real expert",
            ) from None
    bad = ~np.isfinite(values)
    if bad.any():
        row, column = (int(i) for i in np.argwhere(bad)[0])
        member = (
            members.members[column % len(members.members)]
            if column < len(members.members) * len(probe.components)
            else None
        )
        at = ", ".join(f"x{i + 1}={v:.3g}" for i, v in enumerate(points[row]))
        atom = probe.components[column // len(members.members)] if member is not None else probe.components[0]
        raise IdentcheckError(
            param="expert",
            value=expert.text,
            reason=f"{member.label if member else 'a member'} is not finite and real at {at}, "
            f"{', '.join(f'{k}={v}' for k, v in atom.to_dict()['params'].items())} (probe {probe.name!r}); "
            f"the condition needs an expert {ORDER_WORDS[order]} in its parameters on the probed domain "
            f"x in [-1, 1]^{expert.dim}",
        )
