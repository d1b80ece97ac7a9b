r"""Declared functions: a name for a φ of identcheck's activation grammar, called by the experts.

``[functions]`` maps a name to φ's text in z, ``phi = "sigmoid(z)"``; an expert calls it as
``phi(s)``, s any expression of the expert grammar, and means φ(s):

    phi(dot(a, x))  with  phi = "tanh(z)"   is   tanh(a⁽¹⁾x1 + … + a⁽ᵈ⁾xd).

φ is read by :func:`~identcheck.parse.activation.parse_activation` — the whitelist of
docs/usage.md, never evaluated; relu and other kinks are refused there as for a condition's φ
(a relu expert is written out, ``relu(…)``, for simulation). The call is expanded in the syntax tree:
φ's tree with every z replaced by the argument's, then read by the expert grammar, so the expert's
sympy form is exactly φ(s). The declared text (``"phi(dot(a, x))"``) and φ's text are the content
(:mod:`.canonical`): swapping φ — editing the one line, or :func:`~.reader.parse_declaration`'s
``functions={"phi": "tanh(z)"}`` — is another model with another digest.

Refused in one line naming the key: a name that is not an identifier or is one of the grammar's
own (a function, a constant, ``x``, ``z``, ``dot``, ``inner``), a φ the activation grammar refuses,
a declared function no expert calls, a call with other than one argument, the name used uncalled.
"""

from __future__ import annotations

import ast
import copy

from ..errors import IdentcheckError
from ..parse.activation import parse_activation
from ..parse.grammar import CONSTANTS, FUNCTIONS, NOT_SMOOTH
from .keys import Table, fail, identifier
from .nested import INNER

__all__ = ["expand", "read_functions"]

_RESERVED = {"x", "z", "dot", "relu", INNER} | set(FUNCTIONS) | set(NOT_SMOOTH) | set(CONSTANTS)


def read_functions(table: Table, overrides: dict | None = None) -> tuple[tuple[str, str], ...]:
    """The declared functions as sorted (name, text) pairs, each φ parsed; ``overrides`` replaces
    declared texts (a name not declared is refused)."""
    declared = {}
    for name in table.data:
        key = table.key(name)
        identifier(name, key)
        if name in _RESERVED or name.startswith("x"):
            fail(key, reason="a name of the expert grammar itself; choose another, e.g. phi")
        declared[name] = table.text(name)
    for name, text in (overrides or {}).items():
        if name not in declared:
            why = "not a declared function" + (f"; declared: {', '.join(declared)}" if declared else "")
            fail(f"functions.{name}", text, why)
        declared[name] = text
    table.done()
    for name, text in declared.items():
        try:
            parse_activation(text)
        except IdentcheckError as exc:
            fail(table.key(name), text, exc.reason)
    return tuple(sorted(declared.items()))


def expand(text: str, functions: dict[str, str], key: str) -> tuple[str, set[str]]:
    """``text`` with every call of a declared function written out, and the names it called;
    ``key`` names the expert in a refusal. Text that does not parse is returned unchanged (the
    expert grammar says why)."""
    if not functions:
        return text, set()
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError:
        return text, set()
    bodies = {name: ast.parse(phi.strip(), mode="eval").body for name, phi in functions.items()}
    called: set[str] = set()

    class Expand(ast.NodeTransformer):
        def visit_Call(self, node):
            if not (isinstance(node.func, ast.Name) and node.func.id in bodies):
                return self.generic_visit(node)
            name = node.func.id
            if node.keywords or len(node.args) != 1 or isinstance(node.args[0], ast.Starred):
                fail(key, text, f"{name}() takes exactly one argument, as φ(z) does")
            called.add(name)
            return _Substitute(self.visit(node.args[0])).visit(copy.deepcopy(bodies[name]))

        def visit_Name(self, node):
            if node.id in bodies:
                fail(key, text, f"{node.id!r} is a declared function; call it as {node.id}(...)")
            return node

    expanded = Expand().visit(tree)
    return (ast.unparse(expanded) if called else text), called


class _Substitute(ast.NodeTransformer):
    """φ's tree with z replaced by the argument's tree."""

    def __init__(self, argument):
        self.argument = argument

    def visit_Name(self, node):
        return copy.deepcopy(self.argument) if node.id == "z" else node
