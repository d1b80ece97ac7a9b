"""Parse a gate activation φ without executing it, and check that the conditions apply to it.

φ comes as text (``"sigmoid(z + 1)"``), as a sympy expression in one symbol, or as an
:class:`Activation` already parsed. Text is read against a whitelist, never evaluated
(:mod:`~identcheck.parse.grammar`).

The strong-identifiability conditions differentiate φ twice, so φ must be real and C² on the
domain the probes reach, z = aᵀx ∈ [−Z, Z] (Z = the largest ‖a‖₁ over the probes, x ∈ [−1, 1]^d).
:meth:`Activation.check_domain` tests φ, φ', φ'' there: sympy's ``continuous_domain`` where it
answers, and always a dense grid of values (finite and real).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np
import sympy as sp
from sympy.calculus.util import continuous_domain

from ..errors import IdentcheckError, Param
from ..util.budget import SIMPLIFY_SECONDS, clock, run
from .grammar import FUNCTIONS, Z, lambdify_modules, parse_param, parse_text, written_numbers

__all__ = ["Activation", "FUNCTIONS", "Z", "parse_activation", "parse_param"]

#: |φ'(z)| above this at a float64 sample shows φ is not constant (no sympy needed)
NONZERO_SAMPLE = 1e-9

_NON_SMOOTH_ATOMS = (
    sp.Abs,
    sp.sign,
    sp.Heaviside,
    sp.Piecewise,
    sp.Max,
    sp.Min,
    sp.floor,
    sp.ceiling,
    sp.DiracDelta,
)


@dataclass(frozen=True)
class Activation:
    """A parsed, validated φ with its first two derivatives.

    Attributes
    ----------
    text : str
        How φ is shown in reports (the user's text, with parameter values appended).
    expr : sympy.Expr
        φ(z) with parameters substituted; its only free symbol is :data:`Z`.
    derivatives : tuple of sympy.Expr
        (φ, φ', φ'').
    as_written : str or None
        The user's text with the parameter values as they were written (``b=1e-300``) where
        that differs from ``text``, whose values are exact (``b=1/1000…0``); None otherwise.
        For the text reports only: JSON and errors show ``text``.
    written_numbers : tuple of (sympy.Rational, str)
        The decimal constants written in φ's text and its parameter values, each with its exact
        value (``(851/500, '1.702')``), so that a report shows a rational derived from φ as written.
        For the text reports only.
    """

    text: str
    expr: sp.Expr
    derivatives: tuple = field(repr=False)
    _numpy: tuple = field(repr=False, compare=False, default=())
    as_written: str | None = field(repr=False, compare=False, default=None)
    written_numbers: tuple = field(repr=False, compare=False, default=())

    def numpy_derivative(self, m: int) -> Callable[[np.ndarray], np.ndarray]:
        """φ^(m) as a vectorized numpy function of an array of z (same shape out)."""
        return self._numpy[m]

    def check_domain(self, bound: float) -> None:
        """Raise :class:`IdentcheckError` unless φ, φ', φ'' are real and finite on [−bound, bound]."""
        interval = sp.Interval(-sp.nsimplify(bound), sp.nsimplify(bound))
        grid = np.concatenate([np.linspace(-bound, bound, 4001), [0.0]])
        names = ("phi", "phi'", "phi''")
        symbolic_until = clock() + SIMPLIFY_SECONDS  # one budget (CPU time, as every budget) for sympy's three answers
        for m, deriv in enumerate(self.derivatives):
            where = _first_gap(deriv, interval, symbolic_until - clock())
            if where is not None:
                raise IdentcheckError(
                    param="phi",
                    value=self.text,
                    reason=f"{names[m]} is not continuous and real on the probed "
                    f"domain z in [{-bound:g}, {bound:g}] (it fails for {set_text(where)}); the condition "
                    "needs a real, twice continuously differentiable phi there",
                )
            with np.errstate(all="ignore"):
                values = np.asarray(self._numpy[m](grid))
            bad = ~np.isfinite(values) | (np.abs(np.imag(values)) > 0)
            if bad.any():
                z0 = grid[np.argmax(bad)]
                raise IdentcheckError(
                    param="phi",
                    value=self.text,
                    reason=f"{names[m]} is not real and finite on the probed domain "
                    f"z in [{-bound:g}, {bound:g}] (at z = {z0:g} it is {values[np.argmax(bad)]})",
                )
        with np.errstate(all="ignore"):
            slope = np.asarray(self._numpy[1](grid), dtype=float)
        if np.all(slope == 0):
            raise IdentcheckError(param="phi", value=self.text, reason="constant on the probed domain")


def set_text(where: sp.Set) -> str:
    """A set of z as a message shows it, never sympy's repr: ``z in [-1.75, 0)``, ``z = -0.785398, 0.785398``.

    Endpoints and points as decimals (6 significant digits), brackets saying which ends belong.
    """
    if isinstance(where, sp.Interval):
        left, right = ("(" if where.left_open else "["), (")" if where.right_open else "]")
        return f"z in {left}{_number(where.start)}, {_number(where.end)}{right}"
    if isinstance(where, sp.FiniteSet) and all(v.is_real for v in where):
        return "z = " + ", ".join(_number(v) for v in sorted(where, key=float))
    if isinstance(where, sp.Union):
        return " and ".join(set_text(part) for part in where.args)
    return "points sympy describes only implicitly"


def _number(value: sp.Expr) -> str:
    return f"{float(value):.6g}"


def _first_gap(expr: sp.Expr, interval: sp.Interval, seconds: float):
    """A point of ``interval`` where sympy says ``expr`` is not continuous, or None.

    sympy's answer is asked under a budget (:mod:`budget`): on deep compositions its assumption
    queries can run for minutes. Running out, like sympy failing, leaves the numeric grid of
    :meth:`Activation.check_domain` as the check.
    """
    if seconds <= 0:
        return None
    try:
        domain, timed_out = run(continuous_domain, expr, Z, interval, seconds=seconds, default=None)
    except Exception:  # sympy cannot decide for this expression: the numeric grid still runs
        return None
    if timed_out:
        return None
    gap = interval - domain
    return None if gap is sp.S.EmptySet else gap


def parse_activation(phi, params: Mapping[str, object] | None = None) -> Activation:
    """Turn ``phi`` (text, sympy expression or Activation) into a validated :class:`Activation`.

    Parameters
    ----------
    phi : str or sympy.Expr or Activation
        The activation, in the variable ``z``.
    params : mapping of str to number or str, optional
        Values of named constants in ``phi`` (``{"b": 1}`` for ``"sigmoid(z + b)"``); a value may
        also be text as on the command line (``"1e-300"``, ``"2/3"``), read exactly. Reports show
        a value as it was written; the exact value is used, and is what the JSON records.

    Raises
    ------
    IdentcheckError
        On anything that is not a real, non-constant, smooth expression in ``z``; the message is
        one line naming the input.

    Examples
    --------
    >>> parse_activation("sigmoid(z + b)", {"b": 1}).expr
    1/(exp(-z - 1) + 1)
    """
    written = {k: v.strip() if isinstance(v, str) else str(v) for k, v in (params or {}).items()}
    exact = {k: _exact(k, v) for k, v in (params or {}).items()}
    as_written = None
    numbers: tuple = ()
    if isinstance(phi, Activation):
        return phi
    if isinstance(phi, str):
        text = phi.strip()
        expr = parse_text(text, exact, written)
        numbers = written_numbers(text) + tuple(
            (exact[k], written[k]) for k in exact if not exact[k].is_Integer and written[k] != str(exact[k])
        )
        shown = text
        used = [k for k in exact if re.search(rf"\b{re.escape(k)}\b", text)]
        if used:
            shown += " [" + ", ".join(f"{k}={exact[k]}" for k in used) + "]"
            as_written = text + " [" + ", ".join(f"{k}={written[k]}" for k in used) + "]"
    elif isinstance(phi, sp.Basic):
        expr, shown = _from_sympy(phi, exact)
    else:
        raise IdentcheckError(
            param="phi", value=phi, reason=f"expected a string or a sympy expression, got {type(phi).__name__}"
        )
    try:
        activation = _validated(shown, expr, None if as_written == shown else as_written)
        return dataclasses.replace(activation, written_numbers=numbers) if numbers else activation
    except RecursionError:  # sympy differentiates recursively: deep compositions exhaust the stack
        raise IdentcheckError(
            param="phi",
            value=shown,
            reason="too deeply nested for sympy to differentiate (it ran out of recursion depth); "
            "use fewer nested calls",
        ) from None


def _exact(name: str, value) -> sp.Rational:
    if isinstance(value, sp.Basic) and value.is_Rational:
        return value
    if isinstance(value, str):
        return parse_param(f"{name}={value}")[1]
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, sp.Basic)):
        raise IdentcheckError(param="params", key=name, value=value, reason="expected a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise IdentcheckError(param="params", key=name, value=value, reason="not a finite number")
    return sp.nsimplify(value, rational=True) if not isinstance(value, int) else sp.Integer(value)


def _from_sympy(expr: sp.Basic, params: Mapping[str, sp.Rational]):
    symbols = {s.name: s for s in expr.free_symbols}
    unused = [k for k in params if k not in symbols]
    if unused:
        raise IdentcheckError(
            param="params", key=unused[0], shown=str(params[unused[0]]), reason=f"phi={expr} does not use {unused[0]!r}"
        )
    subs = {symbols[k]: v for k, v in params.items() if k in symbols}
    rest = [s for s in expr.free_symbols if s.name not in params]
    if len(rest) > 1:
        names = ", ".join(sorted(s.name for s in rest))
        raise IdentcheckError(
            param="phi", value=expr, shown=str(expr), reason=f"free symbols {names}; all but z need values (params)"
        )
    if rest:
        subs[rest[0]] = Z
    return sp.sympify(expr).xreplace(subs), str(expr)


def _validated(shown: str, expr: sp.Expr, as_written: str | None = None) -> Activation:
    expr = sp.sympify(expr)
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise IdentcheckError(param="phi", value=shown, reason="not finite (it contains an infinity or 0/0)")
    extra = expr.free_symbols - {Z}
    if extra:
        names = ", ".join(sorted(s.name for s in extra))
        raise IdentcheckError(
            param="phi",
            value=shown,
            reason=(f"free symbols {names} need values: set ", Param("params", key="NAME", shown="VALUE")),
        )
    bad = [type(a).__name__ for a in expr.atoms(*_NON_SMOOTH_ATOMS)]
    if bad:
        raise IdentcheckError(
            param="phi",
            value=shown,
            reason=f"contains {bad[0]}, which is not twice differentiable everywhere; "
            "the condition needs a real, C² phi",
        )
    if expr.has(sp.I):
        raise IdentcheckError(param="phi", value=shown, reason="complex-valued; the condition needs a real phi")
    if not expr.has(Z):
        raise IdentcheckError(param="phi", value=shown, reason="constant; the condition needs a phi that depends on z")
    first = sp.diff(expr, Z)
    derivatives = (expr, first, sp.diff(first, Z))
    numpy_functions = tuple(_numpy_function(d) for d in derivatives)
    if derivatives[1] == 0 or _simplifies_to_zero(derivatives[1], numpy_functions[1]):
        raise IdentcheckError(param="phi", value=shown, reason="constant; the condition needs a phi that depends on z")
    return Activation(text=shown, expr=expr, derivatives=derivatives, _numpy=numpy_functions, as_written=as_written)


def _simplifies_to_zero(expr: sp.Expr, numeric: Callable[[np.ndarray], np.ndarray]) -> bool:
    """φ' ≡ 0? Cheap float64 samples first (any clearly nonzero finite value settles it), then sympy.

    The samples use the compiled function, not ``evalf``: on deep compositions sympy's evalf of
    the (exponentially long, as a tree) derivative takes seconds.
    """
    with np.errstate(all="ignore"):
        try:
            samples = np.asarray(numeric(np.array([-0.731, -0.113, 0.257, 0.619, 1.333])), dtype=complex)
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            samples = np.zeros(0, dtype=complex)
    if np.any(np.isfinite(samples) & (np.abs(samples) > NONZERO_SAMPLE)):
        return False
    try:  # under a budget (:mod:`budget`); running out counts as "not shown zero"
        value, _ = run(sp.simplify, expr, seconds=SIMPLIFY_SECONDS, default=None)
        return value == 0
    except Exception:  # sympy could not decide: the numeric domain check still runs
        return False


def _numpy_function(expr: sp.Expr):
    compiled = sp.lambdify(Z, expr, modules=lambdify_modules(expr), cse=True)  # cse: deep compositions stay small

    def evaluate(z):
        z = np.asarray(z, dtype=float)
        return np.broadcast_to(np.asarray(compiled(z)), z.shape)

    return evaluate
