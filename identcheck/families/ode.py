"""Linear ODEs with polynomial coefficients that φ satisfies: guessed numerically, proved by sympy.

An operator L = Σ c_{i,m} z^i ∂^m (orders m ≤ 2, rational c) *annihilates* φ when
Σ c_{i,m} z^i φ^(m)(z) ≡ 0. gelu satisfies z²φ″ + (z³ − 2z)φ′ + (2 − z²)φ = 0 and z/(1 + z²)
satisfies (z + z³)φ′ + (z² − 1)φ = 0; neither is one of the named families, yet each makes a
single expert's type-1 terms dependent (the ``ode`` family, :mod:`families`).

**Guess.** For a set of monomials S = {(i, m)}, the annihilators with support in S are the null
vectors of the matrix [z_p^i φ^(m)(z_p)] over rational points z_p = k/16, |k| ≤ 12 (inside every
probe's z-range, where φ is smooth), evaluated with mpmath at ``DIGITS`` digits, columns scaled
to unit norm. A singular value below 10^−``NULL_DIGITS`` of the largest is a null direction (an
exact annihilator leaves ≈ 10^−DIGITS; sigmoid(z + 1), which has none, leaves ≳ 10^−10). The
null space is put in reduced echelon form in the order of S (each vector writes its last monomial
through earlier ones, as :mod:`echelon` does for relations: canonical) and every coefficient is
read as a rational p/q (q ≤ ``MAX_DENOMINATOR``, within 10^−``RATIONAL_DIGITS``); an operator with
a coefficient that is not recognised is dropped (irrational coefficients are not guessed).

**Proof.** A guessed L is kept only when sympy reduces Σ c_{i,m} z^i φ^(m)(z) to exactly 0
(``expand``, then ``cancel`` with exponentials made symbols, then ``simplify``, under a CPU-time
budget, :mod:`budget`). A wrong guess cannot survive that step.

**Which operators give type-1 relations** (:func:`realizable_shapes`). Every type-1 term of one
component is e·x^α·φ^(m)(aᵀx) up to a constant (e = exp(xᵀMx)), for exactly the pairs
(m, |α|) in D = {(0, 0), (0, 2), (0, 4), (1, 1), (1, 3), (2, 2)} and every x-monomial x^α of
those degrees. In coordinates z = aᵀx and w ⊥ a, a relation Σ_m Q_m(x)·e·φ^(m)(z) = 0 splits by
the degree s in w into ODEs in z, each of the shape S_s = {(i, m): (m, i + s) ∈ D}, s = 0…3:

    S_0 = {φ, z²φ, z⁴φ, zφ′, z³φ′, z²φ″},   S_1 = {zφ, z³φ, φ′, z²φ′, zφ″},
    S_2 = {φ, z²φ, zφ′, φ″},                 S_3 = {zφ, φ′}.

So the single-expert relations are exactly x^β·(Lφ)(aᵀx)·e = 0 with L an annihilator of shape
S_s and |β| = s (z^i = (aᵀx)^i expanded into x-monomials), and an annihilator outside these
shapes gives none: exp's φ′ − φ mixes parities (φ′ needs an odd degree, φ an even one), but
φ″ − φ = (∂ + 1)(∂ − 1) is of shape S_2 — the heat family. An ODE whose coefficients need
x-monomials the term set does not have gives no template (:mod:`families` skips it). Type-2
(:mod:`~identcheck.type2_families`) gets none: there φ is taken at f = Σ_i σ_i·a_iᵀx, not linear
in x, and a polynomial coefficient in f is no combination of the set's terms — skipped.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp

from ..parse.activation import Z
from ..util.budget import PROPERTIES_SECONDS, SIMPLIFY_SECONDS, clock, run
from .base import Builder, Template, m_name, weight

__all__ = [
    "ODE",
    "Operator",
    "TERM_DEGREES",
    "annihilators",
    "guess_ode",
    "ode_templates_for",
    "phi_odes",
    "realizable_shapes",
]

DIGITS = 50
NULL_DIGITS = 30  # a null direction: singular value below 10^-30 of the largest
RATIONAL_DIGITS = 25  # a coefficient is p/q when within 10^-25 (relative) of it …
MAX_DENOMINATOR = 10**6  # … with q at most this
POINTS = tuple(sp.Rational(k, 16) for k in range(-12, 13))
TERM_DEGREES = {0: (0, 2, 4), 1: (1, 3), 2: (2,)}  # φ^(m) appears with x-monomials of these degrees (type-1, D)
_PRIME = {0: "phi", 1: "phi'", 2: "phi''"}
_CAP = 256  # φ cached in phi_odes


@dataclass(frozen=True, slots=True)
class Operator:
    """L = Σ c·z^i·∂^m: ``coefficients`` ((i, m, sympy.Rational), ...), nonzero, by (m, i) descending."""

    coefficients: tuple

    @property
    def order(self) -> int:
        return max(m for _, m, _ in self.coefficients)

    @property
    def degree(self) -> int:
        return max(i for i, _, _ in self.coefficients)

    def apply(self, derivatives: tuple) -> sp.Expr:
        """L φ as a sympy expression in z (``derivatives`` = (φ, φ', φ''))."""
        return sp.Add(*(c * Z**i * derivatives[m] for i, m, c in self.coefficients))

    def polynomial(self, m: int) -> sp.Expr:
        """The coefficient of ∂^m, a polynomial in z."""
        return sp.Add(*(c * Z**i for i, mm, c in self.coefficients if mm == m))

    def text(self) -> str:
        """``"z**2*phi'' + (z**3 - 2*z)*phi' + (2 - z**2)*phi = 0"`` (highest order first)."""
        parts = []
        for m in sorted({m for _, m, _ in self.coefficients}, reverse=True):
            p = self.polynomial(m)
            if p == 1:
                part = _PRIME[m]
            elif p == -1:
                part = "-" + _PRIME[m]
            elif p.is_Add:
                part = f"({p})*{_PRIME[m]}"
            else:
                part = f"{p}*{_PRIME[m]}"
            parts.append(part)
        text = parts[0]
        for part in parts[1:]:
            text += f" - {part[1:]}" if part.startswith("-") else f" + {part}"
        return text + " = 0"

    def __str__(self) -> str:
        return self.text()


def realizable_shapes(dim: int) -> list[tuple]:
    """The shapes S_s (module docstring) whose annihilators give type-1 relations, s = 0…3
    (s = 0 only at d = 1, where there is no w); each a tuple of (i, m) in echelon order."""
    shapes = []
    for s in range(4 if dim > 1 else 1):
        shape = tuple((k - s, m) for m in (0, 1, 2) for k in TERM_DEGREES[m] if k >= s)
        shapes.append((s, shape))
    return shapes


def _values(derivatives: tuple):
    """φ, φ', φ'' at ``POINTS`` (mpmath, ``DIGITS``), or None where one is not a finite real."""
    with mpmath.workdps(DIGITS + 10):
        functions = [sp.lambdify(Z, d, modules="mpmath") for d in derivatives]
        rows = []
        for point in POINTS:
            z = mpmath.mpf(point.p) / point.q
            row = []
            for f in functions:
                try:
                    value = mpmath.mpmathify(f(z))
                except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                    return None
                if isinstance(value, mpmath.mpc):
                    if abs(value.imag) > mpmath.mpf(10) ** (-DIGITS):
                        return None
                    value = value.real
                if not mpmath.isfinite(value):
                    return None
                row.append(value)
            rows.append((z, row))
        return rows


def _null_operators(values, columns) -> list[Operator]:
    """Rational operators spanning the numerical null space of [z^i φ^(m)] over ``columns``."""
    with mpmath.workdps(DIGITS + 10):
        a = mpmath.matrix([[z**i * row[m] for i, m in columns] for z, row in values])
        n = len(columns)
        norms = [mpmath.norm(a.column(j)) or mpmath.mpf(1) for j in range(n)]
        for j in range(n):
            for r in range(a.rows):
                a[r, j] /= norms[j]
        gram = a.T * a  # n × n: its eigenvalues are the squared singular values
        e, v = mpmath.eigsy(gram)
        top = max(e[j] for j in range(n))
        small = [j for j in range(n) if e[j] < top * mpmath.mpf(10) ** (-2 * NULL_DIGITS)]
        if not small:
            return []
        basis = [[v[c, j] / norms[c] for c in range(n)] for j in small]  # null vectors, original columns
        return [op for op in (_rational(vector, columns) for vector in _echelon(basis)) if op is not None]


def _echelon(rows: list) -> list:
    """Reduced echelon form of ``rows`` (k vectors) eliminating from the last column backwards:
    each result has coefficient 1 at its own pivot and 0 at the others' and after its pivot."""
    rows = [list(r) for r in rows]
    n = len(rows[0])
    free, pivots = list(range(len(rows))), []
    for j in range(n - 1, -1, -1):
        if not free:
            break
        r = max(free, key=lambda i: abs(rows[i][j]))
        scale = max(abs(x) for x in rows[r])
        if abs(rows[r][j]) <= scale * mpmath.mpf(10) ** (-NULL_DIGITS):
            continue
        pivot = rows[r][j]
        rows[r] = [x / pivot for x in rows[r]]
        for i in range(len(rows)):
            if i != r:
                factor = rows[i][j]
                rows[i] = [x - factor * y for x, y in zip(rows[i], rows[r])]
        free.remove(r)
        pivots.append((j, r))
    return [rows[r] for _, r in sorted(pivots)]


def _rational(vector, columns) -> Operator | None:
    coefficients = []
    for value, (i, m) in zip(vector, columns):
        if abs(value) < mpmath.mpf(10) ** (-RATIONAL_DIGITS):
            continue
        guess = Fraction(mpmath.nstr(value, DIGITS, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)).limit_denominator(
            MAX_DENOMINATOR
        )
        if abs(value - mpmath.mpf(guess.numerator) / guess.denominator) > mpmath.mpf(10) ** (-RATIONAL_DIGITS) * max(
            1, abs(value)
        ):
            return None
        coefficients.append((i, m, sp.Rational(guess.numerator, guess.denominator)))
    if not coefficients:
        return None
    common = math.lcm(*[int(c.q) for _, _, c in coefficients])
    divisor = math.gcd(*[int(c * common) for _, _, c in coefficients])
    scaled = [(i, m, c * common / divisor) for i, m, c in coefficients]
    return Operator(tuple(sorted(scaled, key=lambda t: (-t[1], -t[0]))))


def is_annihilated(derivatives: tuple, operator: Operator, seconds: float = SIMPLIFY_SECONDS) -> tuple[bool, bool]:
    """(proved, timed_out): whether sympy reduces L φ to exactly 0, under ``seconds`` of CPU time."""
    proved, late = run(_is_zero, operator.apply(derivatives), seconds=seconds, default=False)
    return bool(proved), late


def _is_zero(expr: sp.Expr) -> bool:
    expr = expr.xreplace({f: sp.Rational(f) for f in expr.atoms(sp.Float)})
    expanded = sp.expand(expr)
    if expanded == 0:
        return True
    exponential = sp.expand(expanded.rewrite(sp.exp))
    symbols = {e: sp.Dummy(positive=True) for e in exponential.atoms(sp.exp)}
    try:
        if sp.cancel(sp.together(exponential.xreplace(symbols))) == 0:
            return True
    except Exception:  # a form cancel cannot take: try simplify
        pass
    try:
        return sp.simplify(expanded) == 0
    except Exception:
        return False


def annihilators(
    derivatives: tuple, columns, deadline: float | None = None, timed_out: list | None = None, values=None
) -> list[Operator]:
    """The proved annihilators of φ with support in ``columns`` ((i, m) pairs, echelon order): a
    canonical basis (module docstring). An operator whose proof ran out of time is left out and
    ``"ode"`` appended to ``timed_out``; none is tried after ``deadline`` (:func:`~identcheck.util.budget.clock`).
    ``values``: φ's sampled values when already computed (:func:`_values`)."""
    values = _values(tuple(derivatives)) if values is None else values
    if values is None:
        return []
    out = []
    for operator in _null_operators(values, tuple(columns)):
        seconds = SIMPLIFY_SECONDS if deadline is None else min(SIMPLIFY_SECONDS, deadline - clock())
        if seconds <= 0:
            late = True
        else:
            proved, late = is_annihilated(derivatives, operator, seconds)
            if proved:
                out.append(operator)
        if late and timed_out is not None:
            timed_out.append("ode")
    return out


def guess_ode(derivatives: tuple, max_order: int = 2, max_degree: int = 3) -> Operator | None:
    """The smallest linear ODE with polynomial coefficients that φ satisfies, proved by sympy:
    the first order m = 1, 2 (≤ ``max_order``), then the first degree ≤ ``max_degree``, with an
    annihilator supported on {z^i ∂^k : k ≤ m, i ≤ degree}; None when there is none.

    >>> from identcheck.parse.activation import parse_activation
    >>> str(guess_ode(parse_activation("exp(z)").derivatives))
    "phi' - phi = 0"
    """
    values = _values(tuple(derivatives))
    if values is None:
        return None
    for order in range(1, min(max_order, 2) + 1):
        for degree in range(max_degree + 1):
            columns = tuple((i, m) for m in range(order + 1) for i in range(degree + 1))
            for operator in _null_operators(values, columns):
                if operator.order == order and is_annihilated(derivatives, operator)[0]:
                    return operator
    return None


_ODES: dict = {}  # (φ's derivatives, d > 1) → ((s, Operator), ...), for the answers that did not time out


def phi_odes(derivatives: tuple, dim: int) -> tuple[tuple, tuple]:
    """(((s, :class:`~identcheck.ode.Operator`), ...), timed-out names): the annihilators of φ of
    the shapes S_s that give type-1 relations at dimension ``dim`` (:func:`~identcheck.ode.realizable_shapes`),
    each proved by sympy, all under ``PROPERTIES_SECONDS`` (:mod:`budget`); cached per φ unless a
    proof ran out of time (then ``("ode",)`` is the second element)."""
    key = (tuple(derivatives), dim > 1)
    if key in _ODES:
        return _ODES[key], ()
    late: list = []
    deadline = clock() + PROPERTIES_SECONDS
    values = _values(key[0])
    odes = (
        ()
        if values is None
        else tuple(
            (s, operator)
            for s, shape in realizable_shapes(dim)
            for operator in annihilators(derivatives, shape, deadline, late, values)
        )
    )
    if late:
        return odes, ("ode",)
    if len(_ODES) >= _CAP:
        _ODES.pop(next(iter(_ODES)))
    _ODES[key] = odes
    return odes, ()


ODE = "ode"  # the family name of the relations an ODE of φ implies (its hypothesis: the equation)


def _monomial_term(b: Builder, alpha: tuple, m: int):
    """(derivative key, factor) with e·x^α·φ^(m) = factor·∂^key ū (module docstring), or None
    when no term of the set has that form."""
    idx = [j for j, power in enumerate(alpha) for _ in range(power)]
    if m == 0 and len(idx) == 0:
        return (), sp.Integer(1)
    if m == 0 and len(idx) == 2:
        j, k = idx
        return (m_name(j, k),), sp.Rational(1, weight(j, k))
    if m == 0 and len(idx) == 4:
        j, k, l, n = idx
        return b.key((m_name(j, k), m_name(l, n))), sp.Rational(1, weight(j, k) * weight(l, n))
    if m == 1 and len(idx) == 1:
        return (f"a{idx[0] + 1}",), sp.Integer(1)
    if m == 1 and len(idx) == 3:
        j, k, l = idx
        return b.key((m_name(j, k), f"a{l + 1}")), sp.Rational(1, weight(j, k))
    if m == 2 and len(idx) == 2:
        j, k = idx
        return (f"a{j + 1}", f"a{k + 1}"), sp.Integer(1)
    return None


def ode_templates_for(term_set, derivatives: tuple, probe, timed_out: list | None = None) -> list[Template]:
    """The ``ode`` family's templates on this probe (module docstring): for every proved
    annihilator L of shape S_s (:func:`phi_odes`), every component and every x^β with |β| = s,
    the relation x^β·(Lφ)(aᵀx)·e = 0 on that component's columns. ``timed_out`` (a list) gets
    ``"ode"`` when a proof ran out of time."""
    odes, late = phi_odes(tuple(derivatives), term_set.dim)
    if timed_out is not None:
        timed_out.extend(late)
    b = Builder(term_set, probe)
    x, a = term_set.x, term_set.a_symbols()
    z = sum(aj * xj for aj, xj in zip(a, x))
    for c in range(len(probe.components)):
        for s, operator in odes:
            for beta in itertools.combinations_with_replacement(range(term_set.dim), s):
                multiplier = sp.Mul(*(x[j] for j in beta))
                relation: dict = {}
                complete = True  # False at a monomial the term set does not have
                for i, m, coeff in operator.coefficients:
                    for alpha, value in sp.Poly(sp.expand(multiplier * z**i), *x).terms():
                        term = _monomial_term(b, alpha, m)
                        if term is None:
                            complete = False
                            break
                        key, factor = term
                        relation[key] = relation.get(key, 0) + coeff * value * factor
                    if not complete:
                        break
                if complete and relation:
                    b.add(ODE, operator.text(), [(c, relation)])
    return [
        Template(t.family, t.hypothesis, tuple(sorted(t.coefficients, key=lambda cv: cv[0]))) for t in b.templates
    ]  # in term order
