"""Where φ is real-analytic: its real singular points, decided per function of the grammar.

A φ read by :mod:`~identcheck.parse.grammar` is built from numbers, z, ``+ − · / **`` and the
functions of :data:`~identcheck.parse.grammar.FUNCTIONS`. Sums, products and compositions of
real-analytic functions are real-analytic, so φ is real-analytic at every z where each of its
sub-expressions is. Per function of the grammar:

- real-analytic on all of ℝ: exp, sin, cos, sinh, cosh, erf, erfc, atan, asinh (entire or analytic
  on the real line), tanh = sinh/cosh (cosh > 0), and the composites sigmoid = 1/(1 + e^{−t}),
  softplus = log(1 + e^t), gelu, silu/swish (denominators and log arguments > 0 on ℝ);
- log(g): singular where g = 0 (a branch point; where g < 0 φ is not real);
- g**r with r a negative integer (a division 1/g): a pole where g = 0; g**r with r not an
  integer (sqrt(g)): a branch point where g = 0; base**g(z) with g not a number: exp(g·log base),
  singular where base = 0 (a positive constant base is exp(g·log base), analytic);
- tan(g): poles where cos(g) = 0.

So the real singular set S is contained in the union of the real zeros of those *critical*
expressions (solved by ``sympy.solveset`` over ℝ, each within :data:`SOLVE_SECONDS` of CPU). S is
kept as finitely many exact points and arithmetic progressions q + k·p, k ∈ ℤ (tan's poles). On
every open interval J of ℝ ∖ S each critical expression is analytic and non-zero, hence of one
sign, so φ is analytic on J (and real on J when it is real at one point of J: an analytic
function's imaginary part vanishing on a sub-interval vanishes on J). A function outside this list
(never produced by the grammar), a zero set sympy does not return as points or progressions, or a
time-out: *undecided*, and nothing is claimed from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import sympy as sp

from ..util.budget import run
from .grammar import Z

__all__ = ["SOLVE_SECONDS", "Singularities", "real_singularities"]

#: CPU seconds for one ``solveset`` of a critical expression
SOLVE_SECONDS = 2.0
#: at most this many singular points are listed inside a range (tan's poles at a tiny period: undecided)
MAX_POINTS = 10_000

_ANALYTIC = (sp.exp, sp.sin, sp.cos, sp.sinh, sp.cosh, sp.tanh, sp.atan, sp.asinh, sp.erf, sp.erfc)


@dataclass(frozen=True, slots=True)
class Singularities:
    """A superset of φ's real singular points: ``points`` (floats, sorted) and ``progressions``
    ((q, p): the points q + k·p, k ∈ ℤ, p > 0); ``decided`` False when it could not be found
    (``reason`` says why; nothing may then be inferred from it)."""

    decided: bool
    points: tuple = ()
    progressions: tuple = ()
    reason: str = ""

    @property
    def empty(self) -> bool:
        """φ is real-analytic on all of ℝ (decided, no singular point)."""
        return self.decided and not self.points and not self.progressions

    @property
    def radius(self) -> float:
        """min |s| over the singular points (∞ when there is none): φ is analytic on (−radius, radius)."""
        nearest = [abs(s) for s in self.points]
        for q, p in self.progressions:
            k = round(-q / p)
            nearest += [abs(q + j * p) for j in (k - 1, k, k + 1)]
        return min(nearest, default=math.inf)

    def neighbours(self, value: float) -> tuple[float, float] | None:
        """The open interval of ℝ ∖ S that holds ``value`` (ends ±∞), or None when ``value`` is in S."""
        below, above = -math.inf, math.inf
        candidates = list(self.points)
        for q, p in self.progressions:
            k = math.floor((value - q) / p)
            candidates += [q + j * p for j in (k - 1, k, k + 1, k + 2)]
        for s in candidates:
            if s == value:
                return None
            if s < value:
                below = max(below, s)
            else:
                above = min(above, s)
        return below, above

    def describe(self) -> str:
        """``'φ is real-analytic on ℝ'``, or its nearest singular point, or why it is undecided."""
        if not self.decided:
            return f"where φ is real-analytic was not decided ({self.reason})"
        if self.empty:
            return "φ is real-analytic on ℝ"
        r = self.radius
        return f"φ is real-analytic on (−{r:.6g}, {r:.6g}): a real singular point at |z| = {r:.6g} ({self.reason})"

    def to_dict(self) -> dict:
        return {
            "decided": self.decided,
            "real_analytic_on_R": self.empty,
            "radius": None if not self.decided or self.empty else self.radius,
            "text": self.describe(),
        }


def real_singularities(expr: sp.Expr) -> Singularities:
    """The real singular points of ``expr`` (in :data:`~identcheck.parse.grammar.Z`), a superset, or undecided.

    Examples
    --------
    >>> real_singularities(sp.tanh(Z)).empty
    True
    >>> real_singularities(sp.log(Z + 2)).points
    (-2.0,)
    """
    expr = sp.sympify(expr)
    if expr not in _FOUND:
        found = _find(expr)
        if "within" in found.reason:  # a time-out is not kept: another call, with more budget, may decide
            return found
        _FOUND[expr] = found
    return _FOUND[expr]


_FOUND: dict = {}  # expression → its Singularities, decided or undecided for a reason that stays


def _find(expr: sp.Expr) -> Singularities:
    critical: list[tuple[sp.Expr, str]] = []
    why = _walk(expr, critical)
    if why is not None:
        return Singularities(False, reason=why)
    points: set[float] = set()
    progressions: set[tuple[float, float]] = set()
    names = []
    for g, kind in critical:
        found, timed_out = run(sp.solveset, g, Z, sp.S.Reals, seconds=SOLVE_SECONDS)
        if timed_out or found is None:
            return Singularities(False, reason=f"the real zeros of {g} were not found within {SOLVE_SECONDS:g} s")
        why = _read(found, points, progressions)
        if why is not None:
            return Singularities(False, reason=f"the real zeros of {g}: {why}")
        if found != sp.S.EmptySet:
            names.append(f"{kind} where {g} = 0")
    return Singularities(True, tuple(sorted(points)), tuple(sorted(progressions)), "; ".join(names))


def _walk(expr, critical: list) -> str | None:
    """Append ``expr``'s critical expressions (with their kind) to ``critical``; a reason when undecided."""
    if Z not in expr.free_symbols:
        return None  # a constant
    if expr == Z:
        return None
    if isinstance(expr, (sp.Add, sp.Mul)) or isinstance(expr, _ANALYTIC):
        return _children(expr, critical)
    if isinstance(expr, sp.log):
        critical.append((expr.args[0], "branch point"))
        return _children(expr, critical)
    if isinstance(expr, sp.tan):
        critical.append((sp.cos(expr.args[0]), "pole"))
        return _children(expr, critical)
    if isinstance(expr, sp.Pow):
        base, exponent = expr.args
        if exponent.is_Integer and exponent >= 0:
            pass
        elif exponent.is_Integer:
            critical.append((base, "pole"))
        elif Z in base.free_symbols:
            critical.append((base, "branch point"))
        elif not (base.is_positive is True):
            return f"a power of the constant {base} ≤ 0 with exponent {exponent}"
        return _children(expr, critical)
    return f"{type(expr).__name__} is not a function of the grammar"


def _children(expr, critical: list) -> str | None:
    for arg in expr.args:
        why = _walk(arg, critical)
        if why is not None:
            return why
    return None


def _read(found, points: set, progressions: set) -> str | None:
    """Add a ``solveset`` answer's points and progressions; a reason when it is of another kind."""
    if found == sp.S.EmptySet:
        return None
    if isinstance(found, sp.Union):
        for part in found.args:
            why = _read(part, points, progressions)
            if why is not None:
                return why
        return None
    if isinstance(found, sp.FiniteSet):
        for s in found:
            value = complex(sp.N(s, 30))
            if value.imag != 0 or not math.isfinite(value.real):
                return f"{s} is not a finite real number"
            points.add(value.real)
        return None
    if isinstance(found, sp.ImageSet) and found.base_sets == (sp.S.Integers,):
        (n,), body = found.lamda.variables, found.lamda.expr
        poly = sp.Poly(body, n)
        if poly.degree() != 1 or not all(c.is_number for c in poly.all_coeffs()):
            return f"{found} is not an arithmetic progression"
        slope, offset = poly.all_coeffs()
        p = abs(float(slope))
        progressions.add((math.remainder(float(offset), p), p))
        return None
    return f"{type(found).__name__} is neither points nor progressions"
