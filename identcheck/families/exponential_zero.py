"""An exact zero test for rational functions of exponentials, computed in flint (docs/method.md §4).

An expression built by sums, products and integer powers from

- rational numbers and the variables x_1 … x_d,
- exponentials exp(p(x)) of polynomials p = Σ_β c_β x^β with rational coefficients
  (and e = exp(1)), and
- any other subexpression f, taken as a whole (a placeholder φ^(m)(w), a log, √2, a parameter
  symbol, an exponential of anything else),

is read as a rational function over ℚ in new indeterminates: x_j ↦ X_j; exp(p) ↦ Π_β T_β^(L·c_β)
(L the common denominator of every exponential's coefficients, T_β standing for exp(x^β/L): an
integer exponent, negative ones in the denominator); each other subexpression f ↦ an
indeterminate F_f, structurally equal subexpressions sharing one. Substituting X_j → x_j,
T_β → exp(x^β/L), F_f → f is a ring homomorphism from polynomials in these indeterminates to
functions of x, and it maps the rational function back to the expression. So when the rational
function is 0 — its numerator, over a common denominator, is the zero polynomial — the expression
is identically 0 wherever it is defined. This is the argument of the sympy route
(:func:`~identcheck.families.proofs.is_exact_zero`, step 2) with the arithmetic done in flint's
sparse multivariate polynomials over ℚ (``fmpq_mpoly``) instead of sympy's ``together`` and
``cancel``, and without expanding first.

:func:`zero_in_flint` answers True (0), None ("not shown": the rational function is not 0 with
this reading of the subexpressions — two equal ones written differently are different
indeterminates — or the expression has a part it does not read, e.g. a zero denominator; the
caller then tries sympy's routes) or False, when those routes cannot do better either: an
expression whose only other parts are placeholders φ^(m)(w) at polynomial arguments w written
out (w equal to its ``expand``), with no exponential of a constant (no e, no exp(c + …)), is read
by sympy's ``expand`` and ``cancel`` with the same indeterminates — x, one T_β per monomial of
the exponentials' arguments (a power of flint's, which changes no identity), the placeholders —
so a rational function that is not 0 here is not 0 there.
"""

from __future__ import annotations

import math
from functools import lru_cache, reduce

import flint
import sympy as sp

from ..terms.type1 import _PhiDerivative

__all__ = ["zero_in_flint", "MAX_EXPONENT"]

#: The largest power read — of a T_β (L·|c_β|) or an integer power in the expression: past it the
#: expression is left to sympy, whose Python code a proof's budget can stop; flint's multiplications
#: and gcds at degree 10⁸ take a minute inside one C call. The catalog's largest T-power is 144.
MAX_EXPONENT = 4096


class _Unreadable(Exception):
    """A part of the expression this reading does not cover (the test then says "not shown")."""


def zero_in_flint(expr: sp.Expr, x) -> bool | None:
    """True when ``expr`` is exactly 0 in this reading (module docstring); False when it is not and
    sympy's ``expand`` and ``cancel`` read it the same way (so they cannot show it either); None
    when not shown otherwise."""
    x = tuple(x)
    if not x or not expr.is_commutative or expr.has(sp.zoo, sp.nan, sp.oo, sp.S.NegativeInfinity):
        return None  # nothing to read the exponentials in; or not a function of x at all
    try:
        reading = _Reading(x)
        reading.collect(expr)
        reading.name_indeterminates()
        numerator, _ = reading.convert(expr)
    except (_Unreadable, ZeroDivisionError, sp.PolynomialError, sp.GeneratorsError):
        return None
    if numerator.is_zero():
        return True
    return False if reading.faithful else None


class _Reading:
    """The indeterminates of one expression (first pass) and its rational function (second pass)."""

    def __init__(self, x: tuple):
        self.x = x
        self.exponents: dict = {}  # exp atom → {monomial β: rational c_β}
        self.monomials: dict = {}  # β → index among the T_β
        self.opaque: dict = {}  # subexpression → index among the F_f
        self.faithful = True  # sympy's expand and cancel would read it with the same indeterminates

    def collect(self, e) -> None:
        if e.is_Rational or e in self.x:
            return
        if e.is_Number:  # a float, an infinity or nan: not a rational function's coefficient
            raise _Unreadable(e)
        if e.is_Add or e.is_Mul:
            for arg in e.args:
                self.collect(arg)
        elif e.is_Pow and e.exp.is_Integer:
            if abs(e.exp) > MAX_EXPONENT:
                raise _Unreadable(e)  # a power flint would expand in one long C call
            self.collect(e.base)
        elif (isinstance(e, sp.exp) or e is sp.E) and e not in self.exponents:
            terms = self._exponent(e)
            if terms is None:
                self.opaque.setdefault(e, len(self.opaque))
                self.faithful = False
            else:
                self.exponents[e] = terms
                for beta in terms:
                    self.monomials.setdefault(beta, len(self.monomials))
                self.faithful = self.faithful and e is not sp.E and (0,) * len(self.x) not in terms
        elif not (isinstance(e, sp.exp) or e is sp.E):
            self.opaque.setdefault(e, len(self.opaque))
            self.faithful = self.faithful and self._written_out_placeholder(e)

    def _written_out_placeholder(self, e) -> bool:
        return isinstance(e, _PhiDerivative) and _written_out(e.args[0], self.x)

    def _exponent(self, e) -> dict | None:
        """{β: c_β} of an exponential's polynomial argument, or None when it is not one with rational coefficients."""
        if e is sp.E:
            return {(0,) * len(self.x): sp.Integer(1)}
        argument = e.args[0]
        if not argument.free_symbols <= set(self.x) or not argument.is_polynomial(*self.x):
            return None
        terms = dict(sp.Poly(argument, *self.x).terms())
        return terms if all(c.is_Rational for c in terms.values()) else None

    def name_indeterminates(self) -> None:
        """The polynomial ring of the indeterminates :meth:`collect` found (call before :meth:`convert`)."""
        names = [f"X{j}" for j in range(len(self.x))]
        names += [f"T{j}" for j in range(len(self.monomials))] + [f"F{j}" for j in range(len(self.opaque))]
        self.context = flint.fmpq_mpoly_ctx.get(tuple(names) or ("X0",), "lex")
        gens = self.context.gens()
        self.gens_x = dict(zip(self.x, gens))
        self.gens_t = gens[len(self.x) : len(self.x) + len(self.monomials)]
        self.gens_f = gens[len(self.x) + len(self.monomials) :]
        denominators = [c.q for terms in self.exponents.values() for c in terms.values()]
        self.common = reduce(math.lcm, denominators, 1)
        if any(abs(c * self.common) > MAX_EXPONENT for terms in self.exponents.values() for c in terms.values()):
            raise _Unreadable("an exponent past MAX_EXPONENT")  # flint's C code would not heed a budget's alarm
        self.one = self.context.constant(1)

    def convert(self, e):
        """(numerator, denominator) of ``e`` as ``fmpq_mpoly`` s."""
        one = self.one
        if e.is_Rational:
            return self.context.constant(flint.fmpq(int(e.p), int(e.q))), one
        if e in self.gens_x:
            return self.gens_x[e], one
        if e.is_Add:
            return reduce(_add, (self.convert(arg) for arg in e.args))
        if e.is_Mul:
            parts = [self.convert(arg) for arg in e.args]
            return reduce(lambda a, b: a * b, (n for n, _ in parts)), reduce(lambda a, b: a * b, (d for _, d in parts))
        if e.is_Pow and e.exp.is_Integer:
            numerator, denominator = self.convert(e.base)
            power = int(e.exp)
            if power < 0:
                if numerator.is_zero():
                    raise ZeroDivisionError("a zero base to a negative power")
                numerator, denominator, power = denominator, numerator, -power
            return numerator**power, denominator**power
        if e in self.exponents:
            numerator, denominator = one, one
            for beta, c in self.exponents[e].items():
                k = int(c * self.common)
                t = self.gens_t[self.monomials[beta]]
                if k > 0:
                    numerator = numerator * t**k
                elif k < 0:
                    denominator = denominator * t ** (-k)
            return numerator, denominator
        if e in self.opaque:
            return self.gens_f[self.opaque[e]], one
        raise _Unreadable(e)


@lru_cache(maxsize=4096)
def _written_out(w, x: tuple) -> bool:
    """w is a polynomial in x with rational coefficients, equal to its ``expand`` (a placeholder's
    argument as sympy's ``expand`` leaves it)."""
    if not w.is_polynomial(*x) or w != w.expand():
        return False
    return all(c.is_Rational for c in sp.Poly(w, *x).coeffs()) if x else bool(w.is_Rational)


def _add(a, b):
    """a + b as fractions over the smaller common denominator (their gcd divided out)."""
    (n1, d1), (n2, d2) = a, b
    if d1 == d2:
        return n1 + n2, d1
    if d2.is_one():
        return n1 + n2 * d1, d1
    if d1.is_one():
        return n1 * d2 + n2, d2
    g = d1.gcd(d2)
    e1, e2 = d1 / g, d2 / g  # exact: g divides both
    return n1 * e2 + n2 * e1, d1 * e2
