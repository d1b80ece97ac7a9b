"""Exact proofs of relations between terms (docs/method.md §4).

Every type-1 term of component c is exp(xᵀM_c x) · c·x^α · φ^(m)(a_cᵀx). A relation
Σ_i λ_i term_i = 0 on a probe is therefore, after dividing by exp(xᵀM_1x),

    Σ_c exp(xᵀ(M_c − M_1)x) · Σ_{i ∈ c} λ_i c_i x^{α_i} φ^(m_i)(a_cᵀx) = 0,

and the exponentials drop out exactly when the components share M (the only cross-component
families we name). The reduced expression — polynomials in x times φ's derivatives at exact
rational arguments — is first read as a rational function and cancelled in flint
(:mod:`~identcheck.families.exponential_zero`), then handed to sympy: ``expand`` (enough for
polynomials and the heat/Euler families), then ``simplify``. "Proved" means that exact arithmetic
(flint's or sympy's) returned 0; nothing else counts as a proof.

A relation found numerically and not recognised as a family is first made exact by
:func:`~identcheck.families.recovery.recover_relations`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from ..parse.activation import Z
from ..terms.type1 import TermSet, _PhiDerivative, phi_placeholder, substitute_phi
from ..util.budget import PROOF_SECONDS, Outcome, run
from . import ODE, phi_properties
from .exponential_zero import zero_in_flint
from .ode import phi_odes

__all__ = [
    "Hypotheses",
    "apply_hypotheses",
    "reduces_by_ode",
    "apply_symmetry",
    "prove_relation",
    "relation_expression",
    "is_exact_zero",
]

MAX_OPS_FOR_SIMPLIFY = 4000


def relation_expression(term_set: TermSet, derivatives: tuple | None, components, coefficients) -> sp.Expr:
    """Σ λ_i term_i / exp(xᵀM_1x) for a concrete φ, as a sympy expression in x.

    Parameters
    ----------
    term_set : TermSet
    derivatives : tuple of sympy.Expr
        (φ, φ', φ'') in :data:`~identcheck.parse.activation.Z`; None keeps φ abstract (placeholders
        ``Phi<m>`` at exact arguments).
    components : sequence of Component
    coefficients : iterable of (column, exact coefficient)
    """
    n = len(term_set.terms)
    phi = tuple(derivatives) if derivatives is not None else None
    parts = []
    for column, coeff in coefficients:
        comp, position = divmod(column, n)
        reduced, shift = _term_at(term_set, position, tuple(components), comp, phi)
        parts.append(coeff * sp.exp(shift) * reduced)
    return sp.Add(*parts)


@lru_cache(maxsize=4096)
def _term_at(term_set: TermSet, position: int, components: tuple, comp: int, derivatives: tuple | None):
    """(term ``position`` over its exponential, at component ``comp``'s values, φ substituted unless
    ``derivatives`` is None; xᵀ(M_comp − M_1)x): the same for every relation of a probe, built once."""
    values = term_set.numeric_params(components[comp].M, components[comp].a)
    reduced = term_set.terms[position].reduced.xreplace(values)
    if derivatives is not None:
        reduced = substitute_phi(reduced, derivatives)
    first = term_set.numeric_params(components[0].M, components[0].a)
    shift = sp.expand(term_set.quadratic.xreplace(values) - term_set.quadratic.xreplace(first))
    return reduced, shift


def prove_relation(
    term_set: TermSet,
    derivatives: tuple,
    components,
    coefficients,
    thorough: bool = True,
    seconds: float = PROOF_SECONDS,
    symmetry: tuple | None = None,
    family: str | None = None,
) -> Outcome:
    """Truthy when the relation reduces to exactly 0 (for all x) in exact arithmetic; falsy if not shown.

    ``thorough=False`` skips the last, slow resort (``simplify``). The whole proof, building the
    expression included, runs under a budget of ``seconds`` (:mod:`budget`); the outcome's
    ``timed_out`` says when it ran out.

    First, with φ kept abstract, the one-variable hypotheses sympy proved for φ
    (:func:`~identcheck.families.phi_properties`; ``symmetry`` = (s, q) overrides the symmetry
    found there) rewrite the placeholders (:func:`apply_hypotheses`). If that abstract expression
    cancels to 0, the relation holds for every φ with those hypotheses, so for this one
    (substitution is a homomorphism): the expensive part — φ's own formula, nested exponentials
    and all — never reaches sympy. Only then is the concrete φ substituted. For an ``ode``
    relation (``family``) the abstract expression is first rewritten by each of φ's proved ODEs
    (:func:`reduces_by_ode`; :func:`~identcheck.families.ode.phi_odes`): the relation is built from one
    of them, and what is left are polynomial identities in x.
    """
    properties = phi_properties(tuple(derivatives))
    hypotheses = Hypotheses(
        symmetry if symmetry is not None else properties.symmetry,
        properties.zero_second,
        properties.heat,
        properties.gaussian,
    )

    def attempt():
        plain, concrete = relation_expression(term_set, None, components, coefficients), None
        if family == ODE:
            concrete = relation_expression(term_set, derivatives, components, coefficients)
            # φ's closed form often cancels at once in flint (gelu's erf and Gaussian, a rational φ)
            if zero_in_flint(concrete, term_set.x):
                return True
            if any(reduces_by_ode(plain, operator) for _, operator in phi_odes(tuple(derivatives), term_set.dim)[0]):
                return True
        abstract, rewritten = apply_hypotheses(plain, hypotheses)
        if rewritten and _exact_zero(abstract, term_set.x, False, False):
            return True
        if concrete is None:  # φ substituted only now: the abstract routes above did not need it
            concrete = relation_expression(term_set, derivatives, components, coefficients)
        return _exact_zero(concrete, term_set.x, thorough, True)

    proved, timed_out = run(attempt, seconds=seconds, default=False)
    return Outcome(proved, timed_out)


@dataclass(frozen=True, slots=True)
class Hypotheses:
    """One-variable identities of φ, proved by sympy, used to rewrite abstract placeholders.

    ``symmetry`` (s, q): φ(−z) = sφ(z) + q(z); ``zero_second``: φ'' ≡ 0; ``heat`` c: φ'' = cφ;
    ``gaussian`` c: φ'' = c·z·φ'. None / False where the hypothesis was not proved.
    """

    symmetry: tuple | None = None
    zero_second: bool = False
    heat: sp.Expr | None = None
    gaussian: sp.Expr | None = None


def apply_hypotheses(expr: sp.Expr, hypotheses: Hypotheses) -> tuple[sp.Expr, bool]:
    """Rewrite the placeholders Φ_m(w) of ``expr`` by φ's hypotheses; (expression, rewritten?).

    1. symmetry: Φ_m(w) → (−1)^m (s Φ_m(−w) + q^(m)(−w)) wherever w extracts a minus sign
       (the hypothesis differentiated m times);
    2. second derivatives: Φ_2(w) → 0 (φ'' ≡ 0), c·Φ_0(w) (heat type) or c·w·Φ_1(w) (Gaussian
       type) — each the hypothesis itself, taken at w.
    Every step replaces a function by one equal to it for all arguments, so a rewritten
    expression that is identically 0 proves the original one is.
    """
    rewritten = False
    if hypotheses.symmetry is not None:
        expr, rewritten = apply_symmetry(expr, hypotheses.symmetry)
    second = [atom for atom in expr.atoms(_PhiDerivative) if atom.order == 2]
    if second:
        first, zeroth = phi_placeholder(1), phi_placeholder(0)
        if hypotheses.zero_second:
            rule = {atom: sp.Integer(0) for atom in second}
        elif hypotheses.heat is not None:
            rule = {atom: hypotheses.heat * zeroth(atom.args[0]) for atom in second}
        elif hypotheses.gaussian is not None:
            rule = {atom: hypotheses.gaussian * atom.args[0] * first(atom.args[0]) for atom in second}
        else:
            rule = {}
        if rule:
            expr, rewritten = expr.xreplace(rule), True
    return expr, rewritten


def reduces_by_ode(expr: sp.Expr, operator) -> bool:
    """Whether ``expr`` — linear in the placeholders Φ_k(w), polynomial in x — is 0 once Lφ = 0 is
    used (L = Σ_k P_k(z)∂^k of order r, :class:`~identcheck.families.ode.Operator`, proved for φ).

    Group the terms by argument w: Σ_k Q_k(x)·Φ_k(w). Solving the ODE for the top derivative,
    Φ_r(w) = −Σ_{k<r} P_k(w)Φ_k(w)/P_r(w) (wherever P_r(w) ≠ 0, a dense set), turns the group into
    Σ_{k<r} (Q_k − Q_r·P_k(w)/P_r(w))·Φ_k(w); it is 0 as a formal expression exactly when
    Q_k·P_r(w) − Q_r·P_k(w) ≡ 0 for every k < r and Q_k ≡ 0 for k > r — polynomial identities that
    ``expand`` settles. Each group 0 ⇒ ``expr`` ≡ 0 (by continuity where P_r(w) = 0).
    """
    parts: dict = {}
    for term in sp.Add.make_args(_expand(expr)):
        atoms = term.atoms(_PhiDerivative)
        if len(atoms) != 1:
            return term == 0
        (atom,) = atoms
        coefficient, rest = term.as_independent(atom, as_Add=False)
        if rest != atom:
            return False  # not linear in the placeholders
        parts.setdefault(atom, []).append(coefficient)
    groups = {atom: sp.Add(*coefficients) for atom, coefficients in parts.items()}
    r = operator.order
    for w in {atom.args[0] for atom in groups}:
        q = {k: groups.get(phi_placeholder(k)(w), sp.Integer(0)) for k in range(3)}
        if any(_expand(q[k]) != 0 for k in q if k > r):
            return False
        lead = operator.polynomial(r).subs(Z, w)
        for k in range(r):
            if _expand(q[k] * lead - q[r] * operator.polynomial(k).subs(Z, w)) != 0:
                return False
    return True


def _expand(expr: sp.Expr) -> sp.Expr:
    """``expand`` without splitting exp(a + b), (ab)^c or logs: products and powers multiplied out,
    which is what cancels sums of terms; the exponentials are left to :func:`_cancels`."""
    return sp.expand(expr, power_exp=False, power_base=False, log=False)


def apply_symmetry(expr: sp.Expr, symmetry: tuple) -> tuple[sp.Expr, bool]:
    """φ^(m)(w) → (−1)^m (s φ^(m)(−w) + q^(m)(−w)) for every placeholder whose argument w
    extracts a minus sign; returns (expression, whether anything was rewritten)."""
    sign, q = symmetry
    replacements = {}
    for atom in expr.atoms(_PhiDerivative):
        w = atom.args[0]
        if w.could_extract_minus_sign():
            u = -w
            replacements[atom] = (-1) ** atom.order * (sign * type(atom)(u) + sp.diff(q, Z, atom.order).subs(Z, u))
    return expr.xreplace(replacements), bool(replacements)


def is_exact_zero(
    expr: sp.Expr, x, thorough: bool = True, derivatives: bool = True, seconds: float = PROOF_SECONDS
) -> Outcome:
    """:func:`_exact_zero` under a budget of ``seconds`` (:mod:`budget`): a truthy
    :class:`~identcheck.util.budget.Outcome` when proved, ``timed_out`` when the budget ran out."""
    proved, timed_out = run(_exact_zero, expr, x, thorough, derivatives, seconds=seconds, default=False)
    return Outcome(proved, timed_out)


def _exact_zero(expr: sp.Expr, x, thorough: bool = True, derivatives: bool = True) -> bool:
    """Decide ``expr ≡ 0`` in x exactly, or return False when that cannot be shown.

    0. The expression read as a rational function of x, of exponentials of polynomials in x and
       of opaque parts, in flint (:mod:`~identcheck.families.exponential_zero`): most relations
       cancel there, without expanding. When it is not 0 there and steps 1–2 would read it with
       the same indeterminates (``zero_in_flint`` is False), with ``thorough`` and
       ``derivatives`` off nothing else is tried: those steps cannot show it either.
    1. ``expand`` (products and powers multiplied out; exp(a + b) and logs left whole).
    2. Exponentials made explicit (below); failing that, the same for every ∂/∂x_j together
       with expr(0) = 0, which suffices on the connected box [−1, 1]^d. Exponentials made
       explicit: rewrite in exp, then write every exp(Σ_β c_β x^β + c_0) (rational c) as
       Π_β T_β^(L·c_β) · T_0^(L·c_0) with T_β = exp(x^β / L), L the common denominator.
       Substitution T → exp(…) is a ring homomorphism, so if the resulting rational
       function in (x, T, other functions) cancels to 0, ``expr`` is identically 0.
    3. ``simplify`` (only when ``thorough``).

    ``derivatives=False`` skips the derivative route of step 2 (for expressions with opaque
    functions of nested exponentials, where differentiating only makes them grow).
    """
    # floats in the input are taken at their exact binary value: no rounding tolerance anywhere
    expr = expr.xreplace({f: sp.Rational(f) for f in expr.atoms(sp.Float)})
    in_flint = zero_in_flint(expr, x)
    if in_flint is not None and (in_flint or not (thorough or derivatives)):
        return in_flint  # not 0 where steps 1–2 read it the same way, and 3 and the derivatives are not asked for
    expanded = _expand(expr)
    if expanded == 0:
        return True
    if _cancels(expanded, x):
        return True
    # Constant on the connected box [-1, 1]^d and zero at x = 0 ⇒ zero (logs become rational
    # functions of exponentials once differentiated).
    if not derivatives or sp.count_ops(expanded) > MAX_OPS_FOR_SIMPLIFY:
        return False  # too large for the derivative route (expand blows up on nested exponentials)
    at_origin = expanded.xreplace({xi: 0 for xi in x})
    if all(_cancels(sp.diff(expanded, xi), x) for xi in x) and _is_zero_number(at_origin):
        return True
    if not thorough:
        return False
    try:
        return sp.simplify(expanded) == 0
    except Exception:  # sympy gave up: not proved
        return False


def _cancels(expr: sp.Expr, x) -> bool:
    try:
        return _cancels_with_exponential_symbols(expr, x)
    except Exception:  # the reduction did not apply (non-rational exponents, …)
        return False


def _is_zero_number(value: sp.Expr) -> bool:
    if value == 0:
        return True
    try:
        return sp.simplify(sp.expand_log(value, force=True)) == 0
    except Exception:
        return False


def _cancels_with_exponential_symbols(expr: sp.Expr, x) -> bool:
    expr = sp.expand(expr.rewrite(sp.exp))
    exponentials = list(expr.atoms(sp.exp))
    decompositions = []
    monomials: set = set()
    if exponentials and not x:
        return False  # no variables to read the exponentials' arguments in
    for e in exponentials:
        if not e.args[0].free_symbols <= set(x):
            return False  # an exponential of another symbol: not read
        poly = sp.Poly(sp.expand(e.args[0]), *x)
        terms = dict(poly.terms())
        if not all(c.is_Rational for c in terms.values()):
            return False
        decompositions.append(terms)
        monomials.update(terms)
    if not exponentials:
        return sp.cancel(sp.together(expr)) == 0
    denominators = [c.q for terms in decompositions for c in terms.values()]
    common = sp.ilcm(*denominators) if denominators else 1
    basis = sorted(monomials)
    symbols = sp.symbols(f"T0:{len(basis)}", positive=True)
    replacement = {}
    for e, terms in zip(exponentials, decompositions):
        value = sp.Integer(1)
        for monomial, coeff in terms.items():
            value *= symbols[basis.index(monomial)] ** int(coeff * common)
        replacement[e] = value
    reduced = expr.xreplace(replacement)
    return sp.cancel(sp.together(reduced)) == 0
