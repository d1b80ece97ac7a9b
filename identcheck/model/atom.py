r"""One atom of a mixing measure: the per-atom function F(v; θ) and the true atom θ*.

A model is written as a mixing measure G = Σ_i p_i δ_{θ_i} over atoms with one per-atom function
F (Ho & Nguyen, arXiv 1501.02497 and 1609.02655):

    f_G(v) = Σ_i p_i F(v; θ_i),

v = x for a regression function (F = gate factor × expert), v = (x, y) for a density
(F = gate factor × expert density, e.g. exp(β1ᵀx)·N(y | h(x; η), ν) for a softmax gate whose
weight p_i = exp(β0_i) has been factored out). The weights p_i > 0 are not part of θ.

:class:`AtomFunction` holds F as a sympy expression in named variable and parameter symbols,
the true atom θ* (exact rationals: the Taylor terms are evaluated there, and relations whose
coefficients depend on θ* are proved there exactly) and a sampling box for each variable (the
open set on which linear independence is judged). A density is better sampled in a **tube**
around the true expert, y = c(x) + w·u with u uniform in (−1, 1): the open set
{|y − c(x)| < w}, where N(y | h*, ν*) is not negligible (a steep expert over a wide box leaves
most of the box's (x, y) pairs at densities below float64's range). :func:`atom_function` validates the input at
the boundary, one check per line, and raises :class:`~identcheck.errors.IdentcheckError`.

:func:`gaussian_density` is N(y | h, ν) with ν the variance, the form every Gaussian MoE uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp

from ..errors import IdentcheckError

__all__ = ["AtomFunction", "MAX_CELL", "MAX_ORDER", "atom_function", "exact", "gaussian_density"]

MAX_ORDER = 8  # Taylor order r supported
MAX_CELL = 4  # atoms per Voronoi cell m supported
MAX_PARAMS = 8  # parameters per atom
DEFAULT_BOX = (-1, 1)


@dataclass(frozen=True, slots=True)
class AtomFunction:
    """The per-atom function and the true atom.

    Attributes
    ----------
    expr : sympy.Expr
        F(v; θ).
    variables : tuple of sympy.Symbol
        v, the function's arguments (x, or (x, y) for a density).
    params : tuple of sympy.Symbol
        θ, in the order the report uses (the term order of the derivatives follows it).
    truth : tuple of sympy.Rational
        θ*, aligned with ``params``.
    box : tuple of (Rational, Rational)
        The sampling interval of each variable (the open set where independence is judged).
    name : str
        A label for reports.
    """

    expr: sp.Expr = field(repr=False)
    variables: tuple
    params: tuple
    truth: tuple
    box: tuple
    name: str = ""
    tube: tuple | None = None  # (variable index, centre c(x) as an expression, half-width w as a Rational)

    @property
    def at_truth(self) -> dict:
        """``{θ_j: θ*_j}``."""
        return dict(zip(self.params, self.truth))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "function": sp.sstr(self.expr),
            "variables": [v.name for v in self.variables],
            "params": list(self.labels),
            "truth": {p.name: sp.sstr(t) for p, t in zip(self.params, self.truth)},
            "box": {v.name: [sp.sstr(lo), sp.sstr(hi)] for v, (lo, hi) in zip(self.variables, self.box)},
        }


def exact(value) -> sp.Rational:
    """A number as an exact rational: a float as written (0.4 → 2/5), a sympy number as it is."""
    if isinstance(value, sp.Basic):
        if not value.is_Rational:
            raise IdentcheckError(param="truth", value=value, reason="must be a rational number")
        return sp.Rational(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise IdentcheckError(param="truth", value=value, reason="must be a number")
    fraction = Fraction(repr(float(value))) if isinstance(value, float) else Fraction(value)
    return sp.Rational(fraction.numerator, fraction.denominator)


def atom_function(expr, variables, params, truth, box=None, name: str = "", tube=None) -> AtomFunction:
    """Validate and build an :class:`AtomFunction`.

    ``truth`` maps each parameter (symbol or its name) to its value, or lists the values in the
    order of ``params``; ``box`` maps variables (symbols or names) to (low, high), default
    [−1, 1] for each; ``tube`` = (variable, centre expression in the other variables, half-width)
    samples that variable around the centre instead of on its box.

    >>> x, b, e = sp.symbols("x b e", real=True)
    >>> atom = atom_function(sp.exp(b * x) * e * x, [x], [b, e], {"b": 1, "e": 0.5})
    >>> atom.truth
    (1, 1/2)
    """
    variables = tuple(variables)
    params = tuple(params)
    if not isinstance(expr, sp.Expr):
        raise IdentcheckError(param="expr", value=expr, reason="must be a sympy expression")
    if not variables:
        raise IdentcheckError(param="variables", value=variables, reason="give at least one variable")
    if not params:
        raise IdentcheckError(param="params", value=params, reason="give at least one parameter")
    if len(params) > MAX_PARAMS:
        raise IdentcheckError(param="params", value=len(params), reason=f"at most {MAX_PARAMS} parameters per atom")
    for s in variables + params:
        if not isinstance(s, sp.Symbol):
            raise IdentcheckError(param="params", value=s, reason="variables and parameters must be sympy symbols")
    if len(set(variables + params)) != len(variables + params):
        raise IdentcheckError(param="params", value=params, reason="variables and parameters must be distinct")
    extra = expr.free_symbols - set(variables) - set(params)
    if extra:
        names = sorted(s.name for s in extra)
        reason = f"symbols {names} are neither variables nor parameters"
        raise IdentcheckError(param="expr", value=sp.sstr(expr), reason=reason)
    unused = [p.name for p in params if p not in expr.free_symbols]
    if unused:
        raise IdentcheckError(param="params", value=unused, reason="not used by the function")
    values = _truth(params, truth)
    intervals = _box(variables, box)
    at = dict(zip(params, values))
    value = expr.xreplace(at)
    if value == 0:
        shown = dict(zip([p.name for p in params], values))
        raise IdentcheckError(param="truth", value=shown, reason="F is 0 there")
    if expr.has(sp.Heaviside, sp.Abs, sp.Max, sp.Min, sp.sign, sp.Piecewise):
        reason = "not smooth: the Taylor expansion needs F smooth in θ"
        raise IdentcheckError(param="expr", value=sp.sstr(expr), reason=reason)
    return AtomFunction(expr, variables, params, values, intervals, name, _tube(variables, tube))


def _tube(variables, tube):
    if tube is None:
        return None
    variable, centre, width = tube
    names = [v.name for v in variables]
    name = variable.name if isinstance(variable, sp.Symbol) else str(variable)
    if name not in names:
        raise IdentcheckError(param="tube", value=name, reason="not a variable of the function")
    index = names.index(name)
    centre = centre if isinstance(centre, sp.Basic) else exact(centre)
    if centre.free_symbols - (set(variables) - {variables[index]}):
        reason = "the centre must be a function of the other variables"
        raise IdentcheckError(param="tube", value=sp.sstr(centre), reason=reason)
    width = exact(width)
    if not width > 0:
        raise IdentcheckError(param="tube", value=width, reason="the half-width must be positive")
    return (index, centre, width)


def _truth(params, truth) -> tuple:
    if isinstance(truth, dict):
        by_name = {(k.name if isinstance(k, sp.Symbol) else str(k)): v for k, v in truth.items()}
        missing = [p.name for p in params if p.name not in by_name]
        if missing:
            raise IdentcheckError(param="truth", value=sorted(by_name), reason=f"missing {missing}")
        unknown = sorted(set(by_name) - {p.name for p in params})
        if unknown:
            raise IdentcheckError(param="truth", value=unknown, reason="not parameters of the atom")
        return tuple(exact(by_name[p.name]) for p in params)
    truth = tuple(truth)
    if len(truth) != len(params):
        raise IdentcheckError(param="truth", value=truth, reason=f"expected {len(params)} values, one per parameter")
    return tuple(exact(v) for v in truth)


def _box(variables, box) -> tuple:
    given = {} if box is None else {(k.name if isinstance(k, sp.Symbol) else str(k)): v for k, v in box.items()}
    unknown = sorted(set(given) - {v.name for v in variables})
    if unknown:
        raise IdentcheckError(param="box", value=unknown, reason="not variables of the function")
    out = []
    for v in variables:
        lo, hi = (exact(t) for t in given.get(v.name, DEFAULT_BOX))
        if not lo < hi:
            raise IdentcheckError(param="box", key=v.name, value=(lo, hi), reason="needs low < high")
        out.append((lo, hi))
    return tuple(out)


def gaussian_density(y: sp.Symbol, mean: sp.Expr, variance: sp.Expr) -> sp.Expr:
    """N(y | mean, variance) = exp(−(y − mean)²/(2·variance)) / √(2π·variance)."""
    return sp.exp(-((y - mean) ** 2) / (2 * variance)) / sp.sqrt(2 * sp.pi * variance)
