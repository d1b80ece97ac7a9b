"""Parse a gate activation φ without executing it, and check that the conditions apply to it.

φ comes as text (``"sigmoid(z + 1)"``), as a sympy expression in one symbol, or as an
:class:`Activation` already parsed. Text is read with :func:`ast.parse` — which only parses —
and the tree is walked against a whitelist: numbers, the variable ``z``, named constants
(``pi``, ``e`` and the user's ``--param`` values), ``+ - * / **`` and the unary functions in
:data:`FUNCTIONS`. Anything else (attribute access, lambdas, subscripts, unknown or dunder
names, keyword arguments, …) is refused with an :class:`IdentcheckError`. ``sympify`` is never
called on user text, because it runs Python.

The strong-identifiability conditions differentiate φ twice, so φ must be real and C² on the
domain the probes reach, z = aᵀx ∈ [−Z, Z] (Z = the largest ‖a‖₁ over the probes, x ∈ [−1, 1]^d).
:meth:`Activation.check_domain` tests φ, φ', φ'' there: sympy's ``continuous_domain`` where it
answers, and always a dense grid of values (finite and real).
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

import numpy as np
import sympy as sp

from .errors import IdentcheckError

__all__ = ["Activation", "FUNCTIONS", "Z", "parse_activation", "parse_param"]

#: The variable of φ. Real, so that sqrt(z**2) becomes Abs(z) and is caught as non-smooth.
Z = sp.Symbol("z", real=True)


def _sigmoid(t):
    return 1 / (1 + sp.exp(-t))


#: Unary functions a φ may use, mapped to the sympy expression they stand for.
FUNCTIONS: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "exp": sp.exp,
    "log": sp.log,
    "sqrt": sp.sqrt,
    "sin": sp.sin,
    "cos": sp.cos,
    "tan": sp.tan,
    "sinh": sp.sinh,
    "cosh": sp.cosh,
    "tanh": sp.tanh,
    "atan": sp.atan,
    "arctan": sp.atan,
    "asinh": sp.asinh,
    "erf": sp.erf,
    "erfc": sp.erfc,
    "sigmoid": _sigmoid,
    "softplus": lambda t: sp.log(1 + sp.exp(t)),
    "gelu": lambda t: t / 2 * (1 + sp.erf(t / sp.sqrt(2))),
    "silu": lambda t: t * _sigmoid(t),
    "swish": lambda t: t * _sigmoid(t),
}

#: Names refused with a reason: the conditions need a C² φ.
NOT_SMOOTH = {
    "abs": "is not differentiable at 0",
    "relu": "is not differentiable at 0",
    "relu6": "is not differentiable at 0 and 6",
    "leaky_relu": "is not differentiable at 0",
    "max": "is not differentiable where its arguments cross",
    "min": "is not differentiable where its arguments cross",
    "sign": "is discontinuous at 0",
    "heaviside": "is discontinuous at 0",
    "step": "is discontinuous at 0",
    "floor": "is discontinuous at the integers",
    "ceil": "is discontinuous at the integers",
    "round": "is discontinuous at the half-integers",
    "elu": "has a second derivative that jumps at 0 (it is C¹ only)",
    "hardtanh": "is not differentiable at ±1",
    "hard_sigmoid": "is not differentiable at its kinks",
    "hardswish": "is not twice differentiable at its kinks",
    "piecewise": "is not smooth at its breakpoints",
}

CONSTANTS = {"pi": sp.pi, "e": sp.E}

MAX_TEXT_LENGTH = 500
MAX_NODES = 300
MAX_NESTING = 40
MAX_EXPONENT = 100  # |p| in base**p when p is a number
MAX_LOG10_CONSTANT = 300  # numeric constants beyond 10**300 are refused

_NODE_NAMES = {
    ast.Attribute: "attribute access ('.')",
    ast.Lambda: "lambda",
    ast.Subscript: "indexing ('[]')",
    ast.Compare: "comparison",
    ast.BoolOp: "'and'/'or'",
    ast.IfExp: "'if ... else'",
    ast.List: "a list",
    ast.Tuple: "a tuple",
    ast.Dict: "a dict",
    ast.Set: "a set",
    ast.ListComp: "a comprehension",
    ast.GeneratorExp: "a generator",
    ast.Starred: "'*' unpacking",
    ast.JoinedStr: "an f-string",
    ast.NamedExpr: "':='",
}
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)
_OPERATOR_SYMBOLS = {
    ast.BitXor: "'^' (write powers as **)",
    ast.Mod: "'%'",
    ast.FloorDiv: "'//'",
    ast.MatMult: "'@'",
    ast.LShift: "'<<'",
    ast.RShift: "'>>'",
    ast.BitAnd: "'&'",
    ast.BitOr: "'|'",
    ast.Invert: "'~'",
    ast.Not: "'not'",
}
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
    """

    text: str
    expr: sp.Expr
    derivatives: tuple = field(repr=False)
    _numpy: tuple = field(repr=False, compare=False, default=())

    def numpy_derivative(self, m: int) -> Callable[[np.ndarray], np.ndarray]:
        """φ^(m) as a vectorized numpy function of an array of z (same shape out)."""
        return self._numpy[m]

    def check_domain(self, bound: float) -> None:
        """Raise :class:`IdentcheckError` unless φ, φ', φ'' are real and finite on [−bound, bound]."""
        interval = sp.Interval(-sp.nsimplify(bound), sp.nsimplify(bound))
        grid = np.concatenate([np.linspace(-bound, bound, 4001), [0.0]])
        names = ("phi", "phi'", "phi''")
        for m, deriv in enumerate(self.derivatives):
            where = _first_gap(deriv, interval)
            if where is not None:
                raise IdentcheckError(
                    f"phi={self.text!r}: {names[m]} is not continuous and real on the probed "
                    f"domain z in [{-bound:g}, {bound:g}] (it fails on {where}); the condition "
                    "needs a real, twice continuously differentiable phi there"
                )
            with np.errstate(all="ignore"):
                values = np.asarray(self._numpy[m](grid))
            bad = ~np.isfinite(values) | (np.abs(np.imag(values)) > 0)
            if bad.any():
                z0 = grid[np.argmax(bad)]
                raise IdentcheckError(
                    f"phi={self.text!r}: {names[m]} is not real and finite on the probed domain "
                    f"z in [{-bound:g}, {bound:g}] (at z = {z0:g} it is {values[np.argmax(bad)]})"
                )
        with np.errstate(all="ignore"):
            slope = np.asarray(self._numpy[1](grid), dtype=float)
        if np.all(slope == 0):
            raise IdentcheckError(f"phi={self.text!r} is constant on the probed domain")


def _first_gap(expr: sp.Expr, interval: sp.Interval):
    """A point of ``interval`` where sympy says ``expr`` is not continuous, or None."""
    from sympy.calculus.util import continuous_domain

    try:
        domain = continuous_domain(expr, Z, interval)
    except Exception:  # sympy cannot decide for this expression: the numeric grid still runs
        return None
    gap = interval - domain
    return None if gap is sp.S.EmptySet else gap


def parse_param(text: str) -> tuple[str, sp.Rational]:
    """Parse ``NAME=VALUE`` (VALUE an integer, decimal, 1e-3 or p/q) into (name, exact value).

    >>> parse_param("b=0.5")
    ('b', 1/2)
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise IdentcheckError(f"--param {text!r}: expected NAME=VALUE, e.g. b=1")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name.startswith("__"):
        raise IdentcheckError(f"--param {text!r}: {name!r} is not a valid parameter name")
    if name == "z" or name in FUNCTIONS or name in CONSTANTS or name in NOT_SMOOTH:
        raise IdentcheckError(f"--param {text!r}: {name!r} is reserved (the variable, a constant or a function)")
    if len(value) > 60 or not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?(/\d+)?", value):
        raise IdentcheckError(f"--param {text!r}: value {value!r} is not a number (use e.g. 1, -0.5, 1e-3, 2/3)")
    numerator, _, denominator = value.partition("/")
    fraction = Fraction(numerator)
    if denominator:
        if int(denominator) == 0:
            raise IdentcheckError(f"--param {text!r}: division by zero")
        fraction /= int(denominator)
    if _out_of_range(fraction):
        raise IdentcheckError(f"--param {text!r}: value out of range")
    return name, sp.Rational(fraction.numerator, fraction.denominator)


def parse_activation(phi, params: Mapping[str, object] | None = None) -> Activation:
    """Turn ``phi`` (text, sympy expression or Activation) into a validated :class:`Activation`.

    Parameters
    ----------
    phi : str or sympy.Expr or Activation
        The activation, in the variable ``z``.
    params : mapping of str to number, optional
        Values of named constants in ``phi`` (``{"b": 1}`` for ``"sigmoid(z + b)"``).

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
    params = {k: _exact(k, v) for k, v in (params or {}).items()}
    if isinstance(phi, Activation):
        return phi
    if isinstance(phi, str):
        text = phi.strip()
        expr = _parse_text(text, params)
        shown = text
        used = [k for k in params if re.search(rf"\b{re.escape(k)}\b", text)]
        if used:
            shown += " [" + ", ".join(f"{k}={params[k]}" for k in used) + "]"
    elif isinstance(phi, sp.Basic):
        expr, shown = _from_sympy(phi, params)
    else:
        raise IdentcheckError(f"phi={phi!r}: expected a string or a sympy expression, got {type(phi).__name__}")
    return _validated(shown, expr)


def _out_of_range(fraction: Fraction) -> bool:
    """|log10|fraction|| beyond MAX_LOG10_CONSTANT (0 is in range); no float conversion."""
    if fraction == 0:
        return False
    bits = abs(fraction.numerator).bit_length() - fraction.denominator.bit_length()
    return abs(bits) * 0.30103 > MAX_LOG10_CONSTANT + 1


def _exact(name: str, value) -> sp.Rational:
    if isinstance(value, sp.Basic) and value.is_Rational:
        return value
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction, sp.Basic)):
        raise IdentcheckError(f"param {name}={value!r}: expected a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise IdentcheckError(f"param {name}={value!r}: not a finite number")
    return sp.nsimplify(value, rational=True) if not isinstance(value, int) else sp.Integer(value)


def _from_sympy(expr: sp.Basic, params: Mapping[str, sp.Rational]):
    symbols = {s.name: s for s in expr.free_symbols}
    subs = {symbols[k]: v for k, v in params.items() if k in symbols}
    rest = [s for s in expr.free_symbols if s.name not in params]
    if len(rest) > 1:
        names = ", ".join(sorted(s.name for s in rest))
        raise IdentcheckError(f"phi={expr}: free symbols {names}; all but z need values (params)")
    if rest:
        subs[rest[0]] = Z
    return sp.sympify(expr).xreplace(subs), str(expr)


def _parse_text(text: str, params: Mapping[str, sp.Rational]) -> sp.Expr:
    if not text:
        raise IdentcheckError("phi='': empty expression")
    if len(text) > MAX_TEXT_LENGTH:
        raise IdentcheckError(f"phi={text[:40]!r}...: longer than {MAX_TEXT_LENGTH} characters")
    depth = 0
    for ch in text:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if depth > MAX_NESTING:
            raise IdentcheckError(f"phi={text!r}: nested deeper than {MAX_NESTING} brackets")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise IdentcheckError(f"phi={text!r} is not a valid expression ({exc.msg})") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise IdentcheckError(f"phi={text!r}: too large ({nodes} syntax nodes, at most {MAX_NODES})")
    return _Builder(text, params).build(tree.body)


class _Builder:
    """Walks a whitelisted Python AST and builds the sympy expression it spells."""

    def __init__(self, text: str, params: Mapping[str, sp.Rational]):
        self.text = text
        self.params = params

    def fail(self, why: str):
        raise IdentcheckError(f"phi={self.text!r}: {why}")

    def build(self, node):
        if isinstance(node, ast.Constant):
            return self.constant(node)
        if isinstance(node, ast.Name):
            return self.name(node.id)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.USub):
                return -self.build(node.operand)
            if isinstance(node.op, ast.UAdd):
                return self.build(node.operand)
            self.fail(f"operator {_OPERATOR_SYMBOLS.get(type(node.op), type(node.op).__name__)} is not allowed")
        if isinstance(node, ast.BinOp):
            return self.binop(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        what = _NODE_NAMES.get(type(node), type(node).__name__)
        self.fail(f"{what} is not allowed; use numbers, z, + - * / ** and functions such as exp, sigmoid")

    def constant(self, node: ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            self.fail(f"{value!r} is not a number")
        if isinstance(value, complex):
            self.fail("complex numbers are not allowed (phi must be real)")
        source = ast.get_source_segment(self.text, node) or repr(value)
        if isinstance(value, float) and not math.isfinite(value):
            self.fail(f"{source} is not a finite number")
        fraction = Fraction(source.replace("_", ""))
        if _out_of_range(fraction):
            self.fail(f"the number {source[:20]} is out of range")
        return sp.Rational(fraction.numerator, fraction.denominator)

    def name(self, name: str):
        if name.startswith("__"):
            self.fail(f"names starting with '__' are not allowed ({name!r})")
        if name == "z":
            return Z
        if name in self.params:
            return self.params[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS or name in NOT_SMOOTH:
            self.fail(f"{name!r} is a function; call it as {name}(...)")
        if re.fullmatch(r"[A-Za-z_]\w*", name) and len(name) <= 20:
            self.fail(f"{name!r} has no value; pass it with --param {name}=VALUE (the variable is z)")
        self.fail(f"unknown name {name!r}")

    def binop(self, node: ast.BinOp):
        op = type(node.op)
        if op not in _BINOPS:
            self.fail(f"operator {_OPERATOR_SYMBOLS.get(op, op.__name__)} is not allowed")
        left, right = self.build(node.left), self.build(node.right)
        if op is ast.Add:
            return left + right
        if op is ast.Sub:
            return left - right
        if op is ast.Mult:
            return left * right
        if op is ast.Div:
            if right == 0:
                self.fail("division by zero")
            return left / right
        return self.power(left, right)

    def power(self, base, exponent):
        if exponent.is_number:
            if abs(exponent) > MAX_EXPONENT:
                self.fail(f"exponent {exponent} is too large (at most {MAX_EXPONENT} in absolute value)")
            if base.is_number:
                if base == 0 and exponent.is_negative:
                    self.fail("0 raised to a negative power")
                if base != 0:
                    size = float(abs(exponent)) * abs(math.log10(abs(complex(sp.N(base, 20)))))
                    if size > MAX_LOG10_CONSTANT:
                        self.fail(f"the constant {str(base)[:20]}**{exponent} is out of range")
        return base**exponent  # z in an exponent is allowed: the domain check judges it

    def call(self, node: ast.Call):
        if not isinstance(node.func, ast.Name):
            if isinstance(node.func, ast.Attribute):
                self.fail("attribute access ('.') is not allowed")
            self.fail("only named functions can be called")
        name = node.func.id
        if name.startswith("__"):
            self.fail(f"names starting with '__' are not allowed ({name!r})")
        if name in NOT_SMOOTH or name.lower() in NOT_SMOOTH:
            self.fail(f"{name} {NOT_SMOOTH[name.lower()]}; the condition needs a real, twice differentiable phi")
        if name not in FUNCTIONS:
            close = difflib.get_close_matches(name, list(FUNCTIONS), n=3)
            hint = f" (did you mean {', '.join(close)}?)" if close else ""
            self.fail(f"unknown function {name!r}{hint}; known: {', '.join(sorted(FUNCTIONS))}")
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            self.fail(f"{name}() takes exactly one positional argument")
        return FUNCTIONS[name](self.build(node.args[0]))


def _validated(shown: str, expr: sp.Expr) -> Activation:
    expr = sp.sympify(expr)
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise IdentcheckError(f"phi={shown!r} is not finite (it contains an infinity or 0/0)")
    extra = expr.free_symbols - {Z}
    if extra:
        names = ", ".join(sorted(s.name for s in extra))
        raise IdentcheckError(f"phi={shown!r}: free symbols {names} need values (--param NAME=VALUE)")
    bad = [type(a).__name__ for a in expr.atoms(*_NON_SMOOTH_ATOMS)]
    if bad:
        raise IdentcheckError(
            f"phi={shown!r} contains {bad[0]}, which is not twice differentiable everywhere; "
            "the condition needs a real, C² phi"
        )
    if expr.has(sp.I):
        raise IdentcheckError(f"phi={shown!r} is complex-valued; the condition needs a real phi")
    if not expr.has(Z):
        raise IdentcheckError(f"phi={shown!r} is constant; the condition needs a phi that depends on z")
    first = sp.diff(expr, Z)
    derivatives = (expr, first, sp.diff(first, Z))
    if derivatives[1] == 0 or _simplifies_to_zero(derivatives[1]):
        raise IdentcheckError(f"phi={shown!r} is constant; the condition needs a phi that depends on z")
    numpy_functions = tuple(_numpy_function(d) for d in derivatives)
    return Activation(text=shown, expr=expr, derivatives=derivatives, _numpy=numpy_functions)


def _simplifies_to_zero(expr: sp.Expr) -> bool:
    """φ' ≡ 0? Cheap numeric samples first (any clearly nonzero value settles it), then sympy."""
    for value in (-0.731, -0.113, 0.257, 0.619, 1.333):
        try:
            sample = complex(expr.evalf(20, subs={Z: value}))
        except (TypeError, ValueError):
            continue
        if abs(sample) > 1e-9:
            return False
    try:
        return sp.simplify(expr) == 0
    except Exception:  # sympy could not decide: the numeric domain check still runs
        return False


def _numpy_function(expr: sp.Expr):
    compiled = sp.lambdify(Z, expr, modules=["scipy", "numpy"])

    def evaluate(z):
        z = np.asarray(z, dtype=float)
        return np.broadcast_to(np.asarray(compiled(z)), z.shape)

    return evaluate
