r"""Real solutions of a coefficient system: a numerical search, then an exact solution from it.

The unknowns of one *case* (:mod:`.decide`) are the weights p_2 … p_m (p_1 = 1: the equations
are homogeneous of degree 1 in p) and the moves Δθ_ij not fixed by the case (one move of atom 1
is normalised to ±1). The search minimises ‖E(z)‖ by ``scipy.optimize.least_squares`` from
seeded random starts (moves from N(0, 1) and U(−3, 3) in turn, weights e^{U(−2, 2)}),
with p_i = exp(u_i), u_i ∈ [−LOG_WEIGHT, LOG_WEIGHT] and moves in [−MOVE_BOUND, MOVE_BOUND].
A point with ‖E‖ ≤ ``SOLVED`` is a numerical solution; the smallest ‖E‖ found is reported
either way — evidence, never a proof.

**Exact solution.** The moves are fixed one at a time, smallest first, to simple rationals near
their values (0, then k/den for den = 1, 2, 3, 4, 6, 8, 12), re-solving the others numerically
after each; a value is kept when the re-solved residual stays ≤ ``SOLVED``. The equations being
linear in p, with every move rational the weights solve a rational linear system exactly. The
candidate is then substituted into the equations in exact arithmetic: all zero, every p_i > 0 and
some move ≠ 0 is a proof that a non-trivial real solution exists. When the moves cannot all be
made rational (an isolated irrational point), :mod:`.algebraic` writes the rest through one root
of an irreducible polynomial and verifies that exactly; failing both, the numerical solution
stays evidence.
"""

from __future__ import annotations

import time
from fractions import Fraction

import numpy as np
import sympy as sp
from scipy.optimize import least_squares

__all__ = ["Search", "exact_solution", "search"]

LOG_WEIGHT = 6.0
MOVE_BOUND = 4.0
SOLVED = 1e-11
STARTS = 24
DENOMINATORS = (1, 2, 3, 4, 6, 8, 12)


class Search:
    """A numerical search's outcome (working state): the best point, its residual norm and
    ``starts``, how many starts ran (0: the deadline had passed — no evidence either way)."""

    def __init__(self, point, residual, unknowns, starts=1):
        self.point = point
        self.residual = residual
        self.unknowns = unknowns
        self.starts = starts

    @property
    def ran(self) -> bool:
        """Whether the search ran and its residual is a number (evidence, solved or not)."""
        return self.starts > 0 and bool(np.isfinite(self.residual))

    @property
    def solved(self) -> bool:
        return self.point is not None and self.residual <= SOLVED


def _compile(equations, unknowns):
    """The equations and their Jacobian as numpy functions (no docstring: lambdify would print the
    expressions into it, as costly as the compilation)."""
    f = sp.lambdify(unknowns, list(equations), modules="numpy", docstring_limit=0)
    jac = sp.Matrix(list(equations)).jacobian(list(unknowns))
    j = sp.lambdify(unknowns, jac, modules="numpy", docstring_limit=0)
    return f, j


def _solve(f, j, start, lower, upper, is_weight):
    """least_squares in (u for weights, raw moves) from ``start``; returns (point, residual norm)."""

    def to_raw(z):
        return np.where(is_weight, np.exp(z), z)

    def residual(z):
        return np.asarray(f(*to_raw(z)), dtype=float)

    def jacobian(z):
        raw = to_raw(z)
        jac = np.asarray(j(*raw), dtype=float).reshape(-1, len(z))
        return jac * np.where(is_weight, raw, 1.0)[None, :]

    z0 = np.where(is_weight, np.log(np.clip(start, 1e-12, None)), start)
    z0 = np.clip(z0, lower + 1e-9, upper - 1e-9)
    try:
        fit = least_squares(
            residual, z0, jac=jacobian, bounds=(lower, upper), xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=400
        )
    except (ValueError, FloatingPointError):
        return None, np.inf
    raw = to_raw(fit.x)
    return raw, float(np.linalg.norm(residual(fit.x)))


def search(equations, unknowns, weights, deadline: float, seed: int = 0) -> Search:
    """The best of :data:`STARTS` seeded starts (stopping at the first solution or at ``deadline``,
    a ``time.monotonic`` value)."""
    unknowns = tuple(unknowns)
    if not equations:
        return Search(np.ones(len(unknowns)), 0.0, unknowns)
    if not unknowns:  # every unknown fixed by the case: the equations are numbers
        residual = float(np.linalg.norm([float(sp.sympify(e)) for e in equations]))
        return Search(np.ones(0), residual, unknowns)
    f, j = _compile(equations, unknowns)
    is_weight = np.array([u in weights for u in unknowns])
    lower = np.where(is_weight, -LOG_WEIGHT, -MOVE_BOUND)
    upper = -lower
    rng = np.random.default_rng(seed)
    best = Search(None, np.inf, unknowns, starts=0)
    starts = 0
    for index in range(STARTS):
        if time.monotonic() > deadline:
            break
        starts += 1
        moves = rng.normal(0, 1, len(unknowns)) if index % 2 == 0 else rng.uniform(-3, 3, len(unknowns))
        start = np.where(is_weight, np.exp(rng.uniform(-2, 2, len(unknowns))), moves)
        point, norm = _solve(f, j, start, lower, upper, is_weight)
        if point is not None and norm < best.residual:
            best = Search(point, norm, unknowns)
        if best.solved:
            break
    best.starts = starts
    return best


def _rationals_near(value: float):
    if abs(value) < 0.25:
        yield sp.Integer(0)
    seen = set()
    for den in DENOMINATORS:
        c = sp.Rational(round(value * den), den)
        if c not in seen and c != 0:
            seen.add(c)
            yield c


def exact_solution(equations, found: Search, weights, deadline: float, state: dict | None = None) -> dict | None:
    """An exact solution near ``found`` (module docstring), as {symbol: Rational}, or None;
    ``state``, when given, receives the moves made rational (``fixed``) and the re-solved point
    (``values``), for :func:`~identcheck.model.algebraic.algebraic_solution`."""
    unknowns = list(found.unknowns)
    values = dict(zip(unknowns, found.point))
    fixed: dict = {}
    moves = sorted((u for u in unknowns if u not in weights), key=lambda u: abs(values[u]))
    for move in moves:
        if time.monotonic() > deadline:
            return None
        free = [u for u in unknowns if u not in fixed and u != move]
        for candidate in _rationals_near(values[move]):
            trial = {**fixed, move: candidate}
            reduced = [e.xreplace(trial) for e in equations]
            reduced = [e for e in reduced if e != 0]
            if not reduced:
                fixed = trial
                break
            if not free:
                continue
            f, j = _compile(reduced, free)
            is_weight = np.array([u in weights for u in free])
            lower = np.where(is_weight, -LOG_WEIGHT, -MOVE_BOUND)
            start = np.array([values[u] for u in free])
            point, norm = _solve(f, j, start, lower, -lower, is_weight)
            if point is not None and norm <= SOLVED:
                fixed = trial
                values.update(zip(free, point))
                break
    if state is not None:
        state.update(fixed=fixed, values=values)
    if any(u not in fixed for u in moves):
        return None
    return _weights_exactly(equations, fixed, [u for u in unknowns if u in weights], values)


def _weights_exactly(equations, fixed, weight_unknowns, values) -> dict | None:
    """With every move rational, the weights from the linear system (a free weight rounded to a
    nearby rational); None unless every weight comes out positive."""
    reduced = [sp.expand(e.xreplace(fixed)) for e in equations]
    reduced = [e for e in reduced if e != 0]
    solution = dict(fixed)
    if weight_unknowns and reduced:
        solved = sp.solve(reduced, weight_unknowns, dict=True)
        if not solved:
            return None
        general = solved[0]
        free = [w for w in weight_unknowns if w not in general]
        pick = {w: _simple(values[w]) for w in free}
        for w in weight_unknowns:
            solution[w] = sp.nsimplify(general[w].xreplace(pick)) if w in general else pick[w]
    elif weight_unknowns:
        solution.update({w: _simple(values[w]) for w in weight_unknowns})
    elif reduced:
        return None
    if any(not (solution[w].is_Rational and solution[w] > 0) for w in weight_unknowns):
        return None
    return solution


def _simple(value: float) -> sp.Rational:
    fraction = Fraction(float(value)).limit_denominator(12)
    return sp.Rational(fraction.numerator, fraction.denominator)
