"""The text grammar of φ: its vocabulary and a whitelist reader that never evaluates.

Text is read with :func:`ast.parse` — which only parses — and the tree is walked against a
whitelist: numbers, the variable :data:`Z`, named constants (:data:`CONSTANTS` and the values
given in ``params``), ``+ - * / **`` and the unary functions in :data:`FUNCTIONS`. Anything else
(attribute access, lambdas, subscripts, unknown or dunder names, keyword arguments, …) is
refused with an :class:`IdentcheckError`; so are inputs past the size limits below. ``sympify``
is never called on user text, because it runs Python.
"""

from __future__ import annotations

import ast
import difflib
import math
import re
from fractions import Fraction
from typing import Callable, Mapping, NoReturn

import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from ..errors import IdentcheckError, Param

__all__ = [
    "CONSTANTS",
    "FUNCTIONS",
    "NOT_SMOOTH",
    "Z",
    "lambdify_modules",
    "parse_param",
    "parse_text",
    "written_numbers",
]

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


def parse_param(text: str) -> tuple[str, sp.Rational]:
    """Parse ``NAME=VALUE`` (VALUE an integer, decimal, 1e-3 or p/q) into (name, exact value).

    Parameters
    ----------
    text : str
        The ``--param`` text, e.g. ``"b=-0.5"``.

    Returns
    -------
    name : str
    value : sympy.Rational
        Exact: ``0.1`` is 1/10, not the nearest float.

    Raises
    ------
    IdentcheckError
        Not ``NAME=VALUE``, a name that is not an identifier, or a value that is not a number.

    Examples
    --------
    >>> parse_param("b=0.5")
    ('b', 1/2)
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise IdentcheckError(param="param", value=text, reason="expected NAME=VALUE, e.g. b=1")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or name.startswith("__"):
        raise IdentcheckError(param="param", value=text, reason=f"{name!r} is not a valid parameter name")
    if name == "z" or name in FUNCTIONS or name in CONSTANTS or name in NOT_SMOOTH:
        raise IdentcheckError(
            param="param", value=text, reason=f"{name!r} is reserved (the variable, a constant or a function)"
        )
    if len(value) > 60 or not re.fullmatch(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d{1,3})?(/\d+)?", value):
        raise IdentcheckError(
            param="param", value=text, reason=f"value {value!r} is not a number (use e.g. 1, -0.5, 1e-3, 2/3)"
        )
    numerator, _, denominator = value.partition("/")
    fraction = Fraction(numerator)
    if denominator:
        if int(denominator) == 0:
            raise IdentcheckError(param="param", value=text, reason="division by zero")
        fraction /= int(denominator)
    if _out_of_range(fraction):
        raise IdentcheckError(param="param", value=text, reason="value out of range")
    return name, sp.Rational(fraction.numerator, fraction.denominator)


def _out_of_range(fraction: Fraction) -> bool:
    """|log10|fraction|| beyond MAX_LOG10_CONSTANT (0 is in range); no float conversion."""
    if fraction == 0:
        return False
    bits = abs(fraction.numerator).bit_length() - fraction.denominator.bit_length()
    return abs(bits) * 0.30103 > MAX_LOG10_CONSTANT + 1


def written_numbers(text: str) -> tuple[tuple[sp.Rational, str], ...]:
    """The decimal numbers of ``text`` as written, with their exact values: ``(851/500, '1.702')``.

    For showing a constant as the user wrote it where the reports print a derived rational (a
    family hypothesis ``φ(−z) = φ(z) − 1.702*z``, not ``851*z/500``). Integers are left out (they
    print the same). ``text`` must already have passed :func:`parse_text`.
    """
    found: dict[sp.Rational, str] = {}
    for node in ast.walk(ast.parse(text, mode="eval")):
        if isinstance(node, ast.Constant) and isinstance(node.value, float):
            source = (ast.get_source_segment(text, node) or "").replace("_", "")
            if source:
                fraction = Fraction(source)
                found.setdefault(sp.Rational(fraction.numerator, fraction.denominator), source)
    return tuple(found.items())


def parse_text(text: str, params: Mapping[str, sp.Rational], written: Mapping[str, str] | None = None) -> sp.Expr:
    """The sympy expression ``text`` spells, with ``params`` substituted (each must be used; an unused one
    is named with its value as ``written``, the user's text, else the exact value)."""
    if not text:
        raise IdentcheckError(param="phi", value="", reason="empty expression")
    if len(text) > MAX_TEXT_LENGTH:
        raise IdentcheckError(
            param="phi", value=text, shown=f"{text[:40]!r}...", reason=f"longer than {MAX_TEXT_LENGTH} characters"
        )
    depth = 0
    for ch in text:
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(ch, 0)
        if depth > MAX_NESTING:
            raise IdentcheckError(param="phi", value=text, reason=f"nested deeper than {MAX_NESTING} brackets")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise IdentcheckError(param="phi", value=text, reason=f"not a valid expression ({exc.msg})") from None
    nodes = sum(1 for _ in ast.walk(tree))
    if nodes > MAX_NODES:
        raise IdentcheckError(param="phi", value=text, reason=f"too large ({nodes} syntax nodes, at most {MAX_NODES})")
    builder = _Builder(text, params)
    expr = builder.build(tree.body)
    unused = [name for name in params if name not in builder.used]
    if unused:
        name = unused[0]
        shown = (written or {}).get(name) or str(params[name])
        raise IdentcheckError(param="params", key=name, shown=shown, reason=f"phi={text!r} does not use {name!r}")
    return expr


class _Builder:
    """Walks a whitelisted Python AST and builds the sympy expression it spells."""

    def __init__(self, text: str, params: Mapping[str, sp.Rational]):
        self.text = text
        self.params = params
        self.used: set[str] = set()

    def fail(self, why) -> NoReturn:  # a reason: text, or a tuple of text and Param
        raise IdentcheckError(param="phi", value=self.text, reason=why)

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
        if source[:2].lower() in ("0x", "0o", "0b"):
            self.fail(f"{source} is not a decimal number (write numbers in decimal, e.g. 16)")
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
            self.used.add(name)
            return self.params[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS or name in NOT_SMOOTH:
            self.fail(f"{name!r} is a function; call it as {name}(...)")
        if re.fullmatch(r"[A-Za-z_]\w*", name) and len(name) <= 20:
            self.fail(
                (f"{name!r} has no value: set ", Param("params", key=name, shown="VALUE"), " (the variable is z)")
            )
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


def lambdify_modules(*exprs: sp.Expr) -> list[str]:
    """``modules`` for :func:`sympy.lambdify` of ``exprs``: NumPy alone when NumPy has every function
    in them, else SciPy's special functions first (erf, erfc: ``["scipy", "numpy"]``, as always).

    For an expression NumPy covers, both give the same code and the same NumPy functions
    (tests/identcheck/parse/test_activation.py compares the values); NumPy alone does not import
    scipy.special, a tenth of a second of every check's start-up (docs/performance.md, Start-up).
    """
    names = {type(f).__name__ for e in exprs for f in sp.sympify(e).atoms(sp.Function)}
    return ["numpy"] if names <= set(NumPyPrinter._kf) else ["scipy", "numpy"]
