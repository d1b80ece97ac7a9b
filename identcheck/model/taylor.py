r"""The Taylor terms of one atom: ∂^κ F(v; θ*) for |κ| ≤ r, and a cell's expansion.

For a Voronoi cell of m fitted atoms (p_i, θ_i = θ* + Δθ_i) around one true atom (p*, θ*),

    Σ_i p_i F(θ_i) − p* F(θ*) = Δp·F(θ*) + Σ_i p_i Σ_{1 ≤ |κ| ≤ r} Δθ_i^κ / κ! · ∂^κ F(θ*) + o(‖Δθ‖^r),

Δp = Σ_i p_i − p* an unknown of order 0 (Ho & Nguyen, arXiv 1501.02497, the expansion behind
their Theorem 3.2). κ runs over multi-indices in **term order**: by total degree |κ|, then
lexicographically with the first parameter's exponent largest first — a monomial order
(κ < κ' ⇒ κ + e_j < κ' + e_j), which is what lets a relation proved for every θ be differentiated
into relations of the next order that only involve earlier terms (:mod:`.basis`).

The derivatives are kept as ratios G_κ = ∂^κ F / F, built by the recurrence

    G_0 = 1,   G_{κ + e_j} = ∂G_κ/∂θ_j + G_κ · L_j,   L_j = ∂ log F / ∂θ_j,

with log F split over F's factors (exp(u) contributes u): for the Gaussian family the G_κ are
polynomials in (x, y) and 1/ν, where plain differentiation of exp(…) would swell. Each G_κ is
built once, symbolically in θ (for proofs of relations that hold for every θ) and at θ*; the
columns ∂^κ F(θ*) = F(θ*)·G_κ(θ*) are compiled once to numpy and to arb ball arithmetic.

When a log-derivative L_j divides by an exponential (F a sum of quotients of exponentials: a
nested softmax, φ = exp or sigmoid inside an inner mixture), the G_κ are rational functions of
exponentials whose ``expand`` costs more than everything else (tens of seconds per column at
order 2 for multi-head attention), and it buys nothing for the columns: such a column is
**direct**, ∂^κ F = ∂_j ∂^{κ−e_j} F differentiated as it stands, substituted at θ* and compiled.
A relation of a direct atom is proved on the derivatives themselves
(:meth:`Derivatives.difference`).
"""

from __future__ import annotations

import math
import time
from itertools import product

import flint
import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter, SciPyPrinter

from ..parse.grammar import lambdify_modules
from ..terms.compile import arb_closure
from ..util.budget import run
from .atom import AtomFunction

__all__ = [
    "Derivatives",
    "OutOfTime",
    "arb_function",
    "derivatives_of",
    "expansion_monomial",
    "multi_indices",
    "numpy_function",
    "term_key",
]

#: lambdify's own printer settings, with the terms printed in the expression's stored order (sorting
#: the terms of every sum for printing costs more than the rest of the compilation)
PRINTER_SETTINGS = {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True, "order": "none"}
CACHED = 4096  # compiled columns kept before the cache is emptied
CACHED_ATOMS = 64  # atoms' Derivatives kept before that cache is emptied
_compiled: dict = {}  # (variables, expression) → numpy function
_compiled_arb: dict = {}  # (variables, expression) → arb closure
_derivatives: dict = {}  # AtomFunction → Derivatives


class OutOfTime(Exception):
    """A column was asked for after the :class:`Derivatives`' deadline."""


def term_key(kappa: tuple) -> tuple:
    """The sort key of the term order (module docstring)."""
    return (sum(kappa), tuple(-k for k in kappa))


def multi_indices(count: int, order: int, lowest: int = 0) -> list[tuple]:
    """Every κ ∈ N^count with lowest ≤ |κ| ≤ order, in term order.

    >>> multi_indices(2, 2)
    [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (0, 2)]
    """
    out = [k for k in product(range(order + 1), repeat=count) if lowest <= sum(k) <= order]
    return sorted(out, key=term_key)


def expansion_monomial(deltas, kappa: tuple) -> sp.Expr:
    """Δθ^κ / κ! in the symbols ``deltas``."""
    value = sp.Integer(1)
    for d, k in zip(deltas, kappa):
        value *= d**k / sp.Integer(math.factorial(k))
    return value


def numpy_function(variables: tuple, expr: sp.Expr):
    """``expr`` compiled to a numpy function of ``variables``, once per distinct (variables, expression)
    — the same column recurs across an atom's checks (order 2, then the full order; a tied atom's
    held and relaxed systems) and across the joint test. The docstring lambdify would print the
    expression into is left out (printing it cost as much as the compilation)."""
    key = (tuple(variables), expr)
    function = _compiled.get(key)
    if function is None:
        modules = lambdify_modules(expr)
        printer = (SciPyPrinter if "scipy" in modules else NumPyPrinter)(dict(PRINTER_SETTINGS, user_functions={}))
        function = sp.lambdify(variables, expr, modules=modules, printer=printer, docstring_limit=0)
        if len(_compiled) >= CACHED:
            _compiled.clear()
        _compiled[key] = function
    return function


def arb_function(variables: tuple, expr: sp.Expr):
    """``expr`` compiled to arb ball arithmetic (:func:`~identcheck.terms.compile.arb_closure`), once per
    distinct (variables, expression), as :func:`numpy_function`."""
    key = (tuple(variables), expr)
    function = _compiled_arb.get(key)
    if function is None:
        function = arb_closure([expr], list(variables))
        if len(_compiled_arb) >= CACHED:
            _compiled_arb.clear()
        _compiled_arb[key] = function
    return function


def derivatives_of(atom: AtomFunction, deadline: float | None = None) -> "Derivatives":
    """The :class:`Derivatives` of ``atom``, shared by every check of that atom (its columns built and
    compiled once), with ``deadline`` set for the caller."""
    d = _derivatives.get(atom)
    if d is None:
        if len(_derivatives) >= CACHED_ATOMS:
            _derivatives.clear()
        d = _derivatives[atom] = Derivatives(atom)
    d.deadline = deadline
    return d


def _log_terms(expr: sp.Expr) -> sp.Expr:
    """log F as a sum over F's factors; exp(u) gives u, b**e gives e·log(b)."""
    factors = expr.args if isinstance(expr, sp.Mul) else (expr,)
    total = sp.Integer(0)
    for factor in factors:
        if isinstance(factor, sp.exp):
            total += factor.args[0]
        elif isinstance(factor, sp.Pow) and not factor.base.has(sp.exp):
            total += factor.exp * sp.log(factor.base)
        elif factor.is_number:
            continue
        else:
            total += sp.log(factor)
    return total


def _exp_quotient(expr: sp.Expr) -> bool:
    """Whether ``expr`` divides by something holding an exponential (a quotient of exponentials)."""
    return any(isinstance(e, sp.Pow) and e.exp.is_negative and e.base.has(sp.exp) for e in sp.preorder_traversal(expr))


class Derivatives:
    """The ratios G_κ and columns ∂^κ F(θ*) of one atom, built on demand and cached (working
    state, not a result)."""

    def __init__(self, atom: AtomFunction, deadline: float | None = None):
        self.atom = atom
        self.deadline = deadline  # time.monotonic() after which no new column is built (OutOfTime)
        log_f = _log_terms(atom.expr)
        self._log_derivatives = [sp.expand(sp.diff(log_f, p)) for p in atom.params]
        self._ratios: dict = {(0,) * len(atom.params): sp.Integer(1)}
        self._at_truth: dict = {}
        self._numeric: dict = {}
        self._arb: dict = {}
        self.value_at_truth = atom.expr.xreplace(atom.at_truth)
        self.direct = any(_exp_quotient(L) for L in self._log_derivatives)  # module docstring
        self._derivatives: dict = {(0,) * len(atom.params): atom.expr}  # ∂^κ F(θ), as differentiated
        self._columns: dict = {}

    def ratio(self, kappa: tuple) -> sp.Expr:
        """G_κ(v; θ) = ∂^κ F / F, symbolic in θ."""
        kappa = tuple(kappa)
        if kappa in self._ratios:
            return self._ratios[kappa]
        j = next(i for i, k in enumerate(kappa) if k)
        parent = kappa[:j] + (kappa[j] - 1,) + kappa[j + 1 :]
        g = self.ratio(parent)
        value = sp.expand(sp.diff(g, self.atom.params[j]) + g * self._log_derivatives[j])
        self._ratios[kappa] = value
        return value

    def ratio_at_truth(self, kappa: tuple) -> sp.Expr:
        """G_κ(v; θ*)."""
        kappa = tuple(kappa)
        if kappa not in self._at_truth:
            self._at_truth[kappa] = sp.expand(self.ratio(kappa).xreplace(self.atom.at_truth))
        return self._at_truth[kappa]

    def derivative(self, kappa: tuple) -> sp.Expr:
        """∂^κ F(v; θ), differentiated as it stands (no expansion)."""
        kappa = tuple(kappa)
        if kappa not in self._derivatives:
            j = next(i for i, k in enumerate(kappa) if k)
            parent = kappa[:j] + (kappa[j] - 1,) + kappa[j + 1 :]
            self._derivatives[kappa] = sp.diff(self.derivative(parent), self.atom.params[j])
        return self._derivatives[kappa]

    def difference(self, kappa: tuple, combination, at_truth: bool) -> sp.Expr:
        """What a relation ∂^κ F = Σ c_β ∂^β F proves zero: G_κ − Σ c_β G_β (symbolic in θ, or at θ*
        with ``at_truth``); for a direct atom the same with the derivatives themselves (×F, no
        expansion: a derivative that sympy differentiates to 0 is proved 0 at once)."""
        if self.direct:
            term = self.column if at_truth else self.derivative
        else:
            term = self.ratio_at_truth if at_truth else self.ratio
        return term(kappa) - sp.Add(*(c * term(b) for b, c in combination))

    def column(self, kappa: tuple) -> sp.Expr:
        """∂^κ F(v; θ*) as an expression in the variables."""
        kappa = tuple(kappa)
        if not self.direct:
            return self.value_at_truth * self.ratio_at_truth(kappa)
        if kappa not in self._columns:
            self._columns[kappa] = self.derivative(kappa).xreplace(self.atom.at_truth)
        return self._columns[kappa]

    def evaluate(self, kappas, points: np.ndarray) -> np.ndarray:
        """The columns at ``points`` (n × len(variables)), float64: shape (n, len(kappas))."""
        out = np.empty((points.shape[0], len(kappas)))
        args = [points[:, i] for i in range(points.shape[1])]
        for c, kappa in enumerate(kappas):
            kappa = tuple(kappa)
            if kappa not in self._numeric:
                self._numeric[kappa] = numpy_function(self.atom.variables, self._column_in_time(kappa))
            out[:, c] = np.broadcast_to(self._numeric[kappa](*args), (points.shape[0],))
        return out

    def _column_in_time(self, kappa: tuple) -> sp.Expr:
        """:meth:`column`, stopped at the deadline (:func:`~identcheck.util.budget.run`: one column's
        symbolic work can outlast a whole budget) with :class:`OutOfTime`."""
        if self.deadline is None:
            return self.column(kappa)
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise OutOfTime(kappa)
        expr, timed_out = run(self.column, kappa, seconds=left, default=None)
        if timed_out:
            raise OutOfTime(kappa)
        return expr

    def evaluate_arb(self, kappas, points: np.ndarray) -> list:
        """The columns at ``points`` in arb balls (at the precision in force): a list of rows."""
        kappas = [tuple(k) for k in kappas]
        missing = [k for k in kappas if k not in self._arb]
        for kappa in missing:
            self._arb[kappa] = arb_function(self.atom.variables, self.column(kappa))
        rows = [[flint.arb(float(v)) for v in point] for point in points]
        columns = [[out[0] for out in self._arb[k](rows)] for k in kappas]
        return [[columns[c][r] for c in range(len(kappas))] for r in range(len(rows))]
