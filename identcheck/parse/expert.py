"""Parse an expert h(x; θ) of a mixture of experts, without executing it (docs/conditions/deepseekmoe.md).

An expert is text in the input vector ``x`` (components ``x1 .. xd``) and named parameters,
read with the whitelist of :mod:`~identcheck.parse.grammar` (numbers, ``+ - * / **``, the unary
functions of :data:`~identcheck.parse.grammar.FUNCTIONS`, constants ``pi``, ``e``) plus one binary
form, ``dot(p, x)`` = Σ_i p⁽ⁱ⁾ x_i:

- a parameter used as ``dot(p, x)`` is a d-vector p = (p⁽¹⁾, …, p⁽ᵈ⁾), every other free name a
  scalar; every free name is a parameter, and ``params`` (``--param NAME=VALUE``) fixes a scalar
  one to an exact constant;
- refused, with one line naming the expert: a vector parameter used outside ``dot``, ``x``
  outside ``dot`` (its components are ``x1 .. xd``), an expert without parameters, functions
  that are not differentiable as often as the condition needs (``order``: 2 for Definition 1
  of arXiv 2505.10860, 1 for its Definition 2), complex values, and every refusal of φ's grammar.

**For simulation only** (``simulation=True``: numeric's fits of a declared model, docs/declaration.md),
``relu(s)`` = max(0, s) is accepted too, as ``sympy.Max(0, s)`` (its derivative, Heaviside(s), is the
almost-everywhere derivative the array code uses); the expert then lists it in
:attr:`Expert.simulation_only`, and identcheck's conditions and checks, which never pass the flag,
refuse it as before.

Whether h and its derivatives are finite and real where the probes evaluate them is checked by
the condition on its probes (:mod:`~identcheck.terms.expert_sets`).

Besides h itself the parser builds its **template**: h with every function call f(s) — and every
power s**n of an s that depends on x and on parameters — replaced by an arbitrary function F_k(s)
(a sympy ``Function``; ``e2*gelu(dot(e1, x))`` → e2·F1(e1ᵀx), ``k2*(dot(k1, x) + k0)**3`` →
k2·F1(k1ᵀx + k0)). A relation that still holds there is shared by every expert of that template
(:mod:`~identcheck.families.reach`).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import Mapping

import sympy as sp

from ..errors import IdentcheckError, Param
from ..util.limits import MAX_DIM
from .grammar import CONSTANTS, FUNCTIONS, MAX_NESTING, MAX_NODES, MAX_TEXT_LENGTH, NOT_SMOOTH, _Builder, parse_param

__all__ = ["Expert", "parse_expert", "ORDER_WORDS"]

ORDER_WORDS = {1: "differentiable", 2: "twice differentiable"} | {n: f"{n} times differentiable" for n in range(3, 10)}
_NON_SMOOTH = (sp.Abs, sp.sign, sp.Heaviside, sp.Piecewise, sp.Max, sp.Min, sp.floor, sp.ceiling, sp.DiracDelta)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
_ADVICE_TAIL = "+ - * / ** and functions such as exp, sigmoid"
_PHI_ADVICE = f"use numbers, z, {_ADVICE_TAIL}"  # grammar._Builder's advice, worded for φ
_NORM_ADVICE = "write ‖x − m‖² out: (x1 - m1)**2 + (x2 - m2)**2 + …"
#: what a practitioner types for a vector operation, and how the grammar spells it
_VECTOR_FUNCTIONS = {
    "sum": "write pᵀx as dot(p, x)",
    "inner": "write pᵀx as dot(p, x)",
    "matmul": "write pᵀx as dot(p, x)",
    "norm": _NORM_ADVICE,
}


@dataclass(frozen=True)
class Expert:
    """A parsed expert h(x; θ).

    Attributes
    ----------
    text : str
        As the reports show it (fixed parameters appended, ``[k0=1/2]``).
    expression : str
        The text with fixed parameters written in as exact numbers: parsing it again gives the
        same expert (the JSON's ``expression``).
    dim : int
    x : tuple of sympy.Symbol
        x1 .. xd.
    h : sympy.Expr
        h, in ``x`` and ``params``.
    template : sympy.Expr
        h with each function call replaced by an arbitrary function (equal to ``h`` when h
        calls no function).
    names : tuple of str
        The parameters, in order of first appearance.
    vectors : frozenset of str
        Those used as ``dot(p, x)``.
    params : tuple of sympy.Symbol
        The flat parameter vector θ: a scalar's symbol, or a vector's d symbols, in ``names`` order.
    labels : tuple of str
        One per entry of ``params``: ``e2``, ``e1⁽¹⁾``.
    """

    text: str
    expression: str
    dim: int
    x: tuple
    h: sp.Expr
    template: sp.Expr
    names: tuple
    vectors: frozenset
    params: tuple
    labels: tuple
    as_written: str | None = field(default=None, compare=False)
    template_powers: int = field(default=0, repr=False, compare=False)  # powers s**n the template made arbitrary
    derivatives: tuple = field(default=(), repr=False, compare=False)  # no φ placeholders (compile.py)
    written_numbers: tuple = field(default=(), repr=False, compare=False)  # the reports' interface of an Activation
    simulation_only: tuple = ()  # the non-smooth functions accepted for simulation (``relu``), sorted

    @property
    def expr(self) -> str:
        """What the check driver records as the result's ``expression``: :attr:`expression`, which
        parses back to this expert (a φ's is its sympy form; an expert's sympy form would lose dot)."""
        return self.expression

    def check_domain(self, bound: float) -> None:
        """Nothing to do here: the conditions check h's derivatives on their probes when built."""

    def numpy_derivative(self, m):  # pragma: no cover - no φ placeholders are ever compiled
        raise NotImplementedError("an expert has no activation placeholders")

    @property
    def template_text(self) -> str:
        """The template as text: each function call's name replaced by F1, F2, … (``e2*F1(dot(e1, x))``)."""
        counter = iter(range(1, 1 + len(self.expression)))
        names = "|".join(sorted(map(re.escape, FUNCTIONS), key=len, reverse=True))
        text = re.sub(rf"\b({names})\s*\(", lambda m: f"F{next(counter)}(", self.expression)
        return text if self.template_powers == 0 else f"{sp.sstr(self.template)} (dot written out)"


def parse_expert(
    text, dim: int = 2, params: Mapping[str, object] | None = None, order: int = 2, *, simulation: bool = False
) -> Expert:
    """Parse ``text`` into an :class:`Expert` in dimension ``dim``; ``order``: the derivatives the
    condition takes (its refusals name it); ``simulation``: accept ``relu`` (see the module's docstring).

    >>> parse_expert("e2*tanh(dot(e1, x))", 2).labels
    ('e2', 'e1⁽¹⁾', 'e1⁽²⁾')
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise IdentcheckError(param="dim", value=dim, reason=f"must be an integer from 1 to {MAX_DIM}")
    if not isinstance(text, str):
        raise IdentcheckError(param="expert", value=text, reason="expected a string such as 'e2*gelu(dot(e1, x))'")
    text = text.strip()
    values = {}
    for name, value in (params or {}).items():
        values[name] = value if isinstance(value, sp.Rational) else parse_param(f"{name}={value}")[1]
    if not text:
        raise IdentcheckError(param="expert", value="", reason="empty expression")
    if len(text) > MAX_TEXT_LENGTH:
        raise IdentcheckError(
            param="expert", value=text, shown=f"{text[:40]!r}...", reason=f"longer than {MAX_TEXT_LENGTH} characters"
        )
    if max((text[: i + 1].count("(") - text[: i + 1].count(")") for i in range(len(text))), default=0) > MAX_NESTING:
        raise IdentcheckError(param="expert", value=text, reason=f"nested deeper than {MAX_NESTING} brackets")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise IdentcheckError(param="expert", value=text, reason=f"not a valid expression ({exc.msg})") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise IdentcheckError(param="expert", value=text, reason=f"too large (more than {MAX_NODES} syntax nodes)")
    concrete = _ExpertBuilder(text, values, dim, order, generic=False, simulation=simulation)
    expr = concrete.build(tree.body)
    generic = _ExpertBuilder(text, values, dim, order, generic=True, simulation=simulation)
    template = generic.build(tree.body)
    unused = [name for name in values if name not in concrete.used]
    if unused:
        raise IdentcheckError(
            param="params",
            key=unused[0],
            shown=str((params or {})[unused[0]]).strip(),  # as given: --param c=1e-3 reads back as typed
            reason=(Param("expert", text), f" does not use {unused[0]!r}"),
        )
    _validate(text, expr.replace(sp.Max, lambda *args: sp.Add(*args)) if concrete.relus else expr, order)
    names = tuple(concrete.order)
    if not names:
        raise IdentcheckError(
            param="expert",
            value=text,
            reason="has no parameters: every free name is a parameter, and there is none left to identify",
        )
    symbols: list = []
    labels: list[str] = []
    for name in names:
        if name in concrete.vectors:
            symbols.extend(concrete.vectors[name])
            labels.extend(f"{name}⁽{str(i + 1).translate(_SUPERSCRIPT)}⁾" for i in range(dim))
        else:
            symbols.append(concrete.scalars[name])
            labels.append(name)
    if len({s.name for s in symbols}) < len(symbols):
        raise IdentcheckError(
            param="expert",
            value=text,
            reason="a scalar parameter's name collides with a vector's component names (NAME_i); rename it",
        )
    used = [k for k in values if k in concrete.used]
    shown, expression, as_written = text, text, None
    if used:
        shown += " [" + ", ".join(f"{k}={values[k]}" for k in used) + "]"
        written = " [" + ", ".join(f"{k}={str((params or {})[k]).strip()}" for k in used) + "]"
        as_written = None if text + written == shown else text + written
        for k in used:
            expression = re.sub(rf"\b{re.escape(k)}\b", f"({values[k]})", expression)
    return Expert(
        text=shown,
        expression=expression,
        dim=dim,
        x=concrete.x,
        h=expr,
        template=template,
        names=names,
        vectors=frozenset(concrete.vectors),
        params=tuple(symbols),
        labels=tuple(labels),
        as_written=as_written,
        template_powers=generic.powers,
        simulation_only=("relu",) if concrete.relus else (),
    )


def _validate(text: str, expr: sp.Expr, order: int) -> None:
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        raise IdentcheckError(param="expert", value=text, reason="not finite (it contains an infinity or 0/0)")
    bad = [type(a).__name__ for a in expr.atoms(*_NON_SMOOTH)]
    if bad:
        raise IdentcheckError(
            param="expert",
            value=text,
            reason=f"contains {bad[0]}, which is not {ORDER_WORDS[order]} everywhere; the condition needs that",
        )
    if expr.has(sp.I):
        raise IdentcheckError(param="expert", value=text, reason="complex-valued; the condition needs a real expert")


class _ExpertBuilder(_Builder):
    """φ's whitelist reader (:mod:`grammar`) with the expert's names: x1..xd, parameters, dot(p, x)."""

    def __init__(self, text, params, dim, order, generic, simulation=False):
        super().__init__(text, params)
        self.dim, self.order_needed, self.generic, self.simulation = dim, order, generic, simulation
        self.relus = 0  # relu calls accepted for simulation
        self.x = tuple(sp.Symbol(f"x{i + 1}", real=True) for i in range(dim))
        self.scalars: dict = {}
        self.vectors: dict = {}
        self.order: list = []
        self.functions: dict = {}
        self.powers = 0  # powers s**n made arbitrary functions in the template

    def fail(self, why):
        if isinstance(why, str):  # φ's grammar advises φ's vocabulary (z); an expert's is x, parameters, dot
            why = why.replace(_PHI_ADVICE, f"use numbers, x1..x{self.dim}, parameters, dot(p, x), {_ADVICE_TAIL}")
            if why == "attribute access ('.') is not allowed":
                why += "; call a function by its name: tanh(...), not np.tanh(...)"
        raise IdentcheckError(param="expert", value=self.text, reason=why)

    def name(self, name: str):
        if name.startswith("__"):
            self.fail(f"names starting with '__' are not allowed ({name!r})")
        if name == "x":
            self.fail(f"x is the input vector: use it as dot(p, x), or its components x1..x{self.dim}")
        match = re.fullmatch(r"x(\d+)", name)
        if match:
            k = int(match.group(1))
            if not 1 <= k <= self.dim:
                self.fail(f"{name} is not a component of x in dimension d = {self.dim} (x1..x{self.dim})")
            return self.x[k - 1]
        if name in self.params:
            self.used.add(name)
            return self.params[name]
        if name in CONSTANTS:
            return CONSTANTS[name]
        if name in FUNCTIONS or name in NOT_SMOOTH or name == "dot":
            self.fail(f"{name!r} is a function; call it as {name}(...)")
        if name == "z":
            self.fail("z is not a variable of an expert: the input is x (x1..xd, dot(p, x))")
        if not re.fullmatch(r"[A-Za-z_]\w*", name) or len(name) > 20:
            self.fail(f"unknown name {name!r}")
        if name in self.vectors:
            self.fail(f"{name!r} is a vector parameter (used as dot({name}, x)) and is used outside dot")
        if name not in self.scalars:
            self.scalars[name] = sp.Symbol(name, real=True)
            self.order.append(name)
        return self.scalars[name]

    def call(self, node: ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "dot":
            return self.dot(node)
        if isinstance(node.func, ast.Name):
            name = node.func.id
            if name in _VECTOR_FUNCTIONS:
                self.fail(f"unknown function {name!r}: {_VECTOR_FUNCTIONS[name]}")
            if name == "relu" and self.simulation:
                return self.relu(node)
            if name.lower() in NOT_SMOOTH:
                self.fail(
                    f"{name} {NOT_SMOOTH[name.lower()]}; the condition needs an expert "
                    f"{ORDER_WORDS[self.order_needed]} in its parameters"
                )
        if not self.generic:
            return super().call(node)
        index = self.functions.setdefault(
            id(node), len(self.functions) + 1
        )  # pre-order: F1, F2, … left to right in the text
        super().call(node)  # its checks
        return sp.Function(f"F{index}", real=True)(self.build(node.args[0]))

    def relu(self, node: ast.Call):
        """relu(s) = max(0, s), accepted for simulation; an arbitrary F_k(s) in the template."""
        if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
            self.fail("relu() takes exactly one positional argument")
        self.relus += 1
        if self.generic:
            index = self.functions.setdefault(id(node), len(self.functions) + 1)
            return sp.Function(f"F{index}", real=True)(self.build(node.args[0]))
        return sp.Max(0, self.build(node.args[0]))

    def binop(self, node: ast.BinOp):
        """A power s**n of an x-dependent, parameter-dependent s is a function call for the template."""
        if isinstance(node.op, ast.MatMult):
            self.fail("operator '@' is not allowed: write pᵀx as dot(p, x)")
        if not (self.generic and isinstance(node.op, ast.Pow)):
            return super().binop(node)
        index = self.functions.setdefault(id(node), len(self.functions) + 1)
        expr = super().binop(node)
        base = self.build(node.left)
        inputs = base.free_symbols & set(self.x)
        if expr.is_Pow and inputs and base.free_symbols - inputs and expr.exp.is_number:
            self.powers += 1
            return sp.Function(f"F{index}", real=True)(base)
        del self.functions[id(node)]
        return expr

    def dot(self, node: ast.Call):
        args = node.args
        if node.keywords or len(args) != 2 or not all(isinstance(a, ast.Name) for a in args):
            self.fail(f"dot takes two names: dot(p, x), p a parameter ({_NORM_ADVICE})")
        names = [a.id for a in args if isinstance(a, ast.Name)]  # all are: checked above
        if names.count("x") != 1:
            components = [n for n in names if re.fullmatch(r"x\d+", n)]
            why = f"{components[0]} is a component of x; dot takes the whole vector x" if components else ""
            self.fail(
                f"dot({', '.join(names)}): one argument must be x, the other a parameter" + (f" ({why})" if why else "")
            )
        p = names[1 - names.index("x")]
        if p in self.params:
            self.fail(f"{p!r} is a vector in dot({p}, x); --param fixes scalar parameters only")
        if p in self.scalars:
            self.fail(f"{p!r} is used as a vector in dot({p}, x) and as a scalar elsewhere")
        if re.fullmatch(r"x\d*", p) or p in CONSTANTS or p in FUNCTIONS or p == "z" or p.startswith("__"):
            self.fail(f"dot({p}, x): {p!r} cannot be a parameter")
        if p not in self.vectors:
            self.vectors[p] = tuple(sp.Symbol(f"{p}_{i + 1}", real=True) for i in range(self.dim))
            self.order.append(p)
        return sp.Add(*(c * xi for c, xi in zip(self.vectors[p], self.x)))
