r"""An exact algebraic solution where no rational one is near: a root of an irreducible polynomial.

When the moves of a numerical solution cannot all be made rational (:mod:`.solutions`), the ones
left free are isolated by the others: with the rational moves substituted, the remaining
unknowns u_1 … u_k (k ≤ :data:`MAX_FREE`, weights included) solve a zero-dimensional system. A lex
Gröbner basis (sympy, within the budget) in **shape position**,

    u_i − g_i(t)  (i < k, g_i ∈ Q[t]),      q(t) = 0   (t = u_k),

writes every solution through one root of q. The root is the real root of an irreducible factor
f of q nearest the numerical value, isolated exactly (``Poly.intervals``, rational intervals). The
solution is then **verified exactly**: every equation of the system, with u_i = g_i(t), is a
polynomial in t whose remainder modulo f is 0 (so it vanishes at every root of f, the chosen one
included); every weight g_i(t) is positive on the isolating interval, evaluated in ball arithmetic
(python-flint) after refining the interval until the ball excludes 0. No float enters the proof.
"""

from __future__ import annotations

import flint
import sympy as sp

from ..terms.compile import arb_precision
from ..util.budget import run

__all__ = ["MAX_FREE", "AlgebraicSolution", "algebraic_solution", "vanishes"]

MAX_FREE = 4
REFINE = (1e-12, 1e-30, 1e-60)
DIGITS = 80


class AlgebraicSolution:
    """A verified solution (working state turned into the decision's report): ``rational`` moves,
    the minimal polynomial ``f`` of t, t's isolating interval, and u_i = g_i(t)."""

    def __init__(self, rational: dict, variable, polynomial, interval, shapes: dict):
        self.rational = rational
        self.variable = variable
        self.polynomial = polynomial
        self.interval = interval
        self.shapes = shapes

    def root(self) -> sp.Expr:
        """t as an exact algebraic number (``CRootOf``: real roots are indexed from the smallest)."""
        lo, _ = self.interval
        index = self.polynomial.count_roots(-sp.oo, lo) if self.polynomial.degree() > 1 else 0
        return (
            sp.CRootOf(self.polynomial.as_expr(), self.variable, index)
            if self.polynomial.degree() > 1
            else (sp.solve(self.polynomial.as_expr(), self.variable)[0])
        )

    def named(self) -> dict:
        """{name: exact value}: the rational moves, t, and u_i = g_i(t)."""
        t = self.root()
        out = {s.name: v for s, v in self.rational.items()}
        out[self.variable.name] = t
        for u, g in self.shapes.items():
            out[u.name] = g.as_expr().xreplace({self.variable: t})
        return out


def algebraic_solution(equations, fixed: dict, values: dict, weights, seconds: float) -> AlgebraicSolution | None:
    """The verified algebraic solution near ``values`` with ``fixed`` rational moves, or None."""
    reduced = [sp.expand(e.xreplace(fixed)) for e in equations]
    reduced = [e for e in reduced if e != 0]
    free = sorted({s for e in reduced for s in e.free_symbols}, key=lambda s: (s in weights, s.name))
    if not reduced or not 1 <= len(free) <= MAX_FREE:
        return None
    last = free[-1]
    basis, timed_out = run(lambda: sp.groebner(reduced, *free, order="lex"), seconds=seconds, default=None)
    if timed_out or basis is None or list(basis.exprs) == [1]:
        return None
    univariate = [g for g in basis.exprs if g.free_symbols == {last}]
    if len(univariate) != 1:
        return None
    shapes = {}
    for g in basis.exprs:
        if g in univariate:
            continue
        lead = [u for u in free[:-1] if u in g.free_symbols]
        if not lead:
            return None
        u = lead[0]
        poly = sp.Poly(g, u)
        if poly.degree() != 1 or (poly.LC().free_symbols):
            return None
        shapes[u] = sp.Poly(sp.expand(-poly.TC() / poly.LC()), last)
    if set(shapes) != set(free[:-1]):
        return None
    root = _nearest_root(univariate[0], last, float(values[last]))
    if root is None:
        return None
    factor, interval = root
    t_poly = sp.Poly(last, last)
    substitution = {u: g.as_expr() for u, g in shapes.items()}
    if not vanishes(reduced, substitution, factor, last):
        return None
    shapes_all = {**shapes, last: t_poly}
    rational = dict(fixed)
    for w in weights:
        if w in shapes_all:
            if not _positive(shapes_all[w], factor, interval):
                return None
        elif w not in rational:
            rational[w] = sp.Integer(1)  # in no equation: any positive weight
    return AlgebraicSolution(rational, last, factor, interval, shapes)


def vanishes(equations, substitution: dict, factor, t) -> bool:
    """Whether every equation, with u_i = g_i(t) substituted, is 0 modulo ``factor`` (exact)."""
    return all(sp.Poly(sp.expand(e.xreplace(substitution)), t).rem(factor).is_zero for e in equations)


def _nearest_root(q, t, guess: float):
    """(irreducible factor f of q, isolating interval of its real root nearest ``guess``)."""
    best = None
    for factor, _ in sp.Poly(q, t).factor_list()[1]:
        for (lo, hi), _ in factor.intervals():
            distance = 0.0 if lo <= guess <= hi else min(abs(float(lo) - guess), abs(float(hi) - guess))
            if best is None or distance < best[0]:
                best = (distance, factor, (lo, hi))
    return None if best is None else (best[1], best[2])


def _positive(g, factor, interval) -> bool:
    """Whether g(t) > 0 at the root of ``factor`` in ``interval``, proved in ball arithmetic."""
    lo, hi = interval
    for eps in REFINE:
        if lo != hi:
            ((lo, hi), _) = factor.intervals(eps=sp.Rational(eps), inf=lo, sup=hi)[0]
        with arb_precision(DIGITS):
            ball = _arb(lo).union(_arb(hi))
            value = flint.arb(0)
            for coefficient in g.all_coeffs():
                value = value * ball + _arb(sp.Rational(coefficient))
            if value > 0:
                return True
            if value < 0:
                return False
    return False


def _arb(r: sp.Rational):
    return flint.arb(flint.fmpq(int(r.p), int(r.q)))
