r"""Decide a coefficient system: only the trivial solution, a non-trivial one, or inconclusive.

Unknowns: p_1 … p_m > 0 and Δθ_i ∈ R^q; a solution is non-trivial when not all Δθ_i are 0. Every
equation is Σ_i p_i C_b(Δθ_i), homogeneous of degree 1 in p, so p_1 = 1. In order:

1. **Sum of squares.** An equation whose C_b is a positive or negative semidefinite quadratic
   form Q (or c·Δθ_j^{2k}, c ≠ 0 of either sign) gives Σ_i p_i Q(Δθ_i) = 0 with every term of one
   sign, so Q(Δθ_i) = 0 for every i: Δθ_i lies in ker Q, and a
   parameter j with e_jᵀ ker Q = 0 is **forced** (Δθ_ij = 0 for all i, every m). The sum of all
   such forms, each taken with the sign that makes it positive semidefinite (the kernel of the sum
   is the intersection of the kernels), is used, forced moves are substituted, and the step
   repeats. Strongly identifiable atoms (every second derivative a basis term) give
   ½ Σ_i p_i ‖Δθ_i‖² = 0 at order 2: trivial for every m, by this argument alone (exact
   arithmetic, sympy).
2. **Cases.** Every non-trivial solution has some Δθ_{1j} ≠ 0 after relabelling the atoms; for each
   unforced j the case Δθ_{1j} ≠ 0 is normalised by the grading's scaling to Δθ_{1j} = 1 (odd
   weight) or ±1 (even weight) (:mod:`.grading`; ungraded: a variable t with t·Δθ_{1j} = 1).
3. **Search** each case numerically (:mod:`.solutions`); a solution found is made exact and
   verified in rational arithmetic, or, when no rational point is near, written through a root of
   an irreducible polynomial and verified exactly modulo it (:mod:`.algebraic`): a proof of a
   non-trivial solution.
4. **Absence** in a case without solution found: a Gröbner basis (sympy, grevlex, with z_i·p_i = 1
   excluding p_i = 0) equal to {1} means no complex solution; otherwise the lex basis's eliminant
   in the last weight, its real roots isolated exactly (``Poly.intervals``): none positive means no
   solution with that p > 0. Either is a proof that Δθ_{·j} is forced.
5. All cases closed by proofs ⇒ only the trivial solution (proof). Otherwise what the search
   found is numerical evidence, labelled so, and the decision names what was tried. A case whose
   search did not run (the deadline had passed) gives no evidence at all: the decision is then
   inconclusive with ``residual`` None ("search not run (no time)"), never evidence of absence.

Each decision runs within ``seconds`` of CPU time (Gröbner bases under
:func:`identcheck.util.budget.run`, the search against a deadline).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy as sp

from ..util.budget import run
from .algebraic import algebraic_solution
from .solutions import exact_solution, search
from .system import CoefficientSystem

__all__ = ["DECIDE_SECONDS", "INCONCLUSIVE", "NON_TRIVIAL", "SystemDecision", "TRIVIAL", "decide_system"]

TRIVIAL = "only the trivial solution"
NON_TRIVIAL = "a non-trivial solution"
INCONCLUSIVE = "inconclusive"
DECIDE_SECONDS = 20.0
EXACT_ATTEMPTS = 3  # numerical solutions tried for an exact one, per case
GROEBNER_SHARE = 0.6  # of what is left when a case's Gröbner basis starts


@dataclass(frozen=True, slots=True)
class SystemDecision:
    """The outcome for one (m, r).

    ``status`` is :data:`TRIVIAL`, :data:`NON_TRIVIAL` or :data:`INCONCLUSIVE`; ``proved`` whether
    it rests on a proof (else it is the search's evidence: ``status`` says what the search
    suggests, ``residual`` its smallest ‖E‖, None when some case was not searched: no evidence);
    ``method`` how it was decided; ``forced`` the
    parameters proved forced (Δθ_ij = 0 for every i); ``solution`` an exact non-trivial solution
    ({name: value}); ``tried`` one line per step."""

    m: int
    order: int
    status: str
    proved: bool
    method: str
    forced: tuple
    solution: dict | None
    residual: float | None
    tried: tuple
    seconds: float

    def to_dict(self) -> dict:
        return {
            "m": self.m,
            "order": self.order,
            "status": self.status,
            "proved": self.proved,
            "method": self.method,
            "forced": list(self.forced),
            "solution": None if self.solution is None else {k: sp.sstr(v) for k, v in self.solution.items()},
            "residual": self.residual,
            "tried": list(self.tried),
            "seconds": round(self.seconds, 3),
        }


def _squares(system: CoefficientSystem, forced: set) -> set:
    """Parameters forced by positive semidefinite equations (step 1), given ``forced``."""
    d = system.deltas[0]
    zero = {d[j]: 0 for j in forced}
    live = [d[j] for j in range(len(d)) if j not in forced]
    total = sp.zeros(len(live), len(live))
    found = set()
    for c in system.polynomials:
        c = sp.expand(c.xreplace(zero))
        if c == 0:
            continue
        poly = sp.Poly(c, *live)
        if len(poly.terms()) == 1:
            ((powers, coefficient),) = poly.terms()
            if sum(1 for e in powers if e) == 1 and all(e % 2 == 0 for e in powers):
                found.add(d.index(live[next(i for i, e in enumerate(powers) if e)]))
            continue
        if poly.is_homogeneous and poly.total_degree() == 2:
            q = sp.hessian(c, live) / 2
            if q.is_positive_semidefinite:
                total += q
            elif q.is_negative_semidefinite:  # −Q(Δθ_i) summed with p_i > 0: the same argument
                total -= q
    if total != sp.zeros(len(live), len(live)):
        kernel = total.nullspace()
        for i, symbol in enumerate(live):
            if all(v[i] == 0 for v in kernel):
                found.add(d.index(symbol))
    return found - forced


def _forced_by_squares(system: CoefficientSystem) -> set:
    forced: set = set()
    while True:
        more = _squares(system, forced)
        if not more:
            return forced
        forced |= more


def _case(system: CoefficientSystem, forced: set, j: int, sign: int | None):
    """(equations, unknowns, weights) of the case Δθ_1j = ``sign`` (None: Δθ_1j left free)."""
    zero = {system.deltas[i][k]: 0 for i in range(system.m) for k in forced}
    substitution = {**zero, system.weights[0]: 1}
    if sign is not None:
        substitution[system.deltas[0][j]] = sign
    equations = [sp.expand(e.xreplace(substitution)) for e in system.equations]
    equations = [e for e in equations if e != 0]
    weights = system.weights[1:]
    moves = [
        s for i in range(system.m) for k, s in enumerate(system.deltas[i]) if k not in forced and s not in substitution
    ]
    return equations, list(weights) + moves, set(weights)


def _groebner_closed(equations, unknowns, weights, seconds: float, pinned=None):
    """Whether the case has no solution with every weight > 0, proved (step 4); None if undecided."""
    extra = []
    variables = list(unknowns)
    for w in sorted(weights, key=str):
        z = sp.Symbol(f"z_{w.name}")
        extra.append(z * w - 1)
        variables.append(z)
    if pinned is not None:
        t = sp.Symbol("t_pin")
        extra.append(t * pinned - 1)
        variables.append(t)
    polys = list(equations) + extra

    def grevlex():
        return sp.groebner(polys, *variables, order="grevlex")

    basis, timed_out = run(grevlex, seconds=seconds, default=None)
    if timed_out or basis is None:
        return None, "Gröbner basis (grevlex): out of time"
    if list(basis.exprs) == [1]:
        return True, "Gröbner basis {1}: no complex solution"
    if not weights:
        return None, "Gröbner basis ≠ {1}, no weight to eliminate to"
    last = sorted(weights, key=str)[-1]
    order = [v for v in variables if v != last] + [last]

    def lex():
        return sp.groebner(polys, *order, order="lex")

    basis, timed_out = run(lex, seconds=seconds, default=None)
    if timed_out or basis is None:
        return None, "Gröbner basis (lex): out of time"
    univariate = [g for g in basis.exprs if g.free_symbols == {last}]
    if not univariate:
        return None, "Gröbner basis ≠ {1}, no eliminant in a weight (positive-dimensional)"
    intervals = sp.Poly(univariate[0], last).intervals()
    if all(hi <= 0 for (lo, hi), _ in intervals):
        return True, f"eliminant in {last.name} has no positive real root (exact isolation)"
    return None, f"eliminant in {last.name} has a positive real root"


def decide_system(system: CoefficientSystem, seconds: float = DECIDE_SECONDS) -> SystemDecision:
    """Decide ``system`` (module docstring) within ``seconds``."""
    start_cpu, start = time.process_time(), time.monotonic()
    deadline = start + seconds
    labels = system.labels
    tried = []
    if any(e.has(sp.Float) for e in system.equations):  # an unproved relation read in float64
        tried.append("coefficients in floating point (an unproved relation): no exact step")
        return _search_only(system, tried, deadline, start_cpu)
    forced = _forced_by_squares(system)
    if forced:
        tried.append(f"sum of squares: forced {', '.join(labels[j] for j in sorted(forced))}")
    open_params = [j for j in range(len(labels)) if j not in forced]

    def done(status, proved, method, solution=None, residual=None, extra=()):
        names = tuple(labels[j] for j in sorted(forced | set(extra)))
        return SystemDecision(
            system.m,
            system.order,
            status,
            proved,
            method,
            names,
            solution,
            residual,
            tuple(tried),
            time.process_time() - start_cpu,
        )

    if not open_params:
        return done(TRIVIAL, True, "sum of squares")
    cases = []
    for j in open_params:
        weights = system.grading.weights
        signs = (1,) if weights is not None and weights[j] % 2 else (1, -1)
        for sign in signs:
            cases.append((j, sign))
    closed: set = set()
    best = None
    pending = []
    unsearched = 0  # cases whose search did not run (no time): no evidence from them
    for j, sign in cases:
        equations, unknowns, weights = _case(system, forced, j, sign)
        if not unknowns and equations and all(e.is_number for e in equations):  # nonzero numbers: no solution
            closed.add((j, sign))
            tried.append(f"case d{labels[j]}_1 = {sign}: every move fixed, an equation a nonzero number")
            continue
        found = search(equations, unknowns, weights, deadline, seed=j)
        if not found.ran:
            unsearched += 1
            tried.append(f"case d{labels[j]}_1 = {sign}: search not run (no time)")
            continue
        if found.solved:
            for attempt in range(EXACT_ATTEMPTS):  # another numerical solution may round to an exact one
                candidate = found
                if attempt:  # a fresh search; ``found`` stays the solution already found
                    candidate = search(equations, unknowns, weights, deadline, seed=1000 * (attempt + 1) + j)
                    if not candidate.solved:
                        break
                state: dict = {}
                exact = exact_solution(equations, candidate, weights, deadline, state)
                solution = None if exact is None else _full_solution(system, forced, j, sign, exact)
                if solution is not None and _verify(system, solution):
                    tried.append(f"case d{labels[j]}_1 = {sign}: exact solution found and verified")
                    return done(NON_TRIVIAL, True, "exact solution", solution=_named(solution))
                algebraic = None
                if exact is None and "fixed" in state and deadline - time.monotonic() > 1:
                    seconds = GROEBNER_SHARE * (deadline - time.monotonic())
                    algebraic = algebraic_solution(equations, state["fixed"], state["values"], weights, seconds)
                if algebraic is not None:
                    tried.append(f"case d{labels[j]}_1 = {sign}: exact algebraic solution found and verified")
                    named = _named(_full_solution(system, forced, j, sign, {})) | algebraic.named()
                    return done(NON_TRIVIAL, True, "exact algebraic solution", solution=named)
            tried.append(
                f"case d{labels[j]}_1 = {sign}: numerical solution, ‖E‖ = {found.residual:.1e} (not made exact)"
            )
            best = found if best is None or not best.solved else best
            continue
        if best is None or found.residual < best.residual:
            best = found
        if system.grading.graded:
            pending.append((j, sign, equations, unknowns, weights, found.residual, None))
        else:  # no scaling: the case is Δθ_1j ≠ 0, a variable t with t·Δθ_1j = 1
            free_equations, free_unknowns, _ = _case(system, forced, j, None)
            pending.append((j, sign, free_equations, free_unknowns, weights, found.residual, system.deltas[0][j]))
    results: dict = {}  # ungraded: one pinned case per parameter serves both signs
    for j, sign, equations, unknowns, weights, residual, pin in pending:
        if pin is not None and j in results:
            if results[j]:
                closed.add((j, sign))
            continue
        left = deadline - time.monotonic()
        if left <= 0.5:
            tried.append(f"case d{labels[j]}_1 = {sign}: no time left for a Gröbner basis")
            continue
        outcome, why = _groebner_closed(equations, unknowns, weights, GROEBNER_SHARE * left, pin)
        tried.append(f"case d{labels[j]}_1 = {sign}: search ‖E‖ ≥ {residual:.1e}; {why}")
        if pin is not None:
            results[j] = outcome
        if outcome:
            closed.add((j, sign))
    proved_forced = {j for j in open_params if all((j, s) in closed for jj, s in cases if jj == j)}
    if len(closed) == len(cases):
        return done(TRIVIAL, True, "Gröbner bases and real roots", extra=proved_forced)
    if best is not None and best.solved:
        return done(NON_TRIVIAL, False, "numerical search (evidence)", residual=best.residual, extra=proved_forced)
    if unsearched:  # ``residual`` None: not even evidence of absence
        return done(INCONCLUSIVE, False, f"out of time ({unsearched} of {len(cases)} cases not searched)")
    return done(
        INCONCLUSIVE,
        False,
        "numerical search found no solution (evidence of absence)",
        residual=None if best is None else best.residual,
        extra=proved_forced,
    )


def _search_only(system: CoefficientSystem, tried: list, deadline: float, start_cpu: float) -> SystemDecision:
    """Evidence only: the search of every case, no exact step."""
    best = None
    unsearched = 0
    for j in range(len(system.labels)):
        equations, unknowns, weights = _case(system, set(), j, 1)
        found = search(equations, unknowns, weights, deadline, seed=j)
        if not found.ran:
            unsearched += 1
            tried.append(f"case d{system.labels[j]}_1 = 1: search not run (no time)")
            continue
        best = found if best is None or found.residual < best.residual else best
        if found.solved:
            break
    solved = best is not None and best.solved
    status, method = (NON_TRIVIAL, "numerical search (evidence)") if solved else (INCONCLUSIVE, "numerical search")
    residual = None if best is None or (unsearched and not solved) else best.residual  # None: no evidence
    seconds = time.process_time() - start_cpu
    return SystemDecision(system.m, system.order, status, False, method, (), None, residual, tuple(tried), seconds)


def _full_solution(system, forced, j, sign, exact) -> dict:
    values = {system.weights[0]: sp.Integer(1)}
    for i in range(system.m):
        for k in forced:
            values[system.deltas[i][k]] = sp.Integer(0)
    values[system.deltas[0][j]] = sp.Integer(sign)
    values.update(exact)
    return {s: values[s] for s in list(system.weights) + [d for ds in system.deltas for d in ds] if s in values}


def _named(solution: dict) -> dict:
    return {s.name: v for s, v in solution.items()}


def _verify(system: CoefficientSystem, solution: dict) -> bool:
    """Exact check: every equation 0, every weight > 0, some move ≠ 0."""
    if len(solution) != system.m * (1 + len(system.labels)):
        return False
    if any(sp.expand(e.xreplace(solution)) != 0 for e in system.equations):
        return False
    if any(not solution[w] > 0 for w in system.weights):
        return False
    return any(solution[d] != 0 for ds in system.deltas for d in ds)
