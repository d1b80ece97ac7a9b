"""Compile symbolic terms once, then evaluate them as arrays: float64 (numpy) or arb balls.

A term set's expressions involve the inputs x, one component's parameters θ and the
placeholders φ^(m)(s). Compiling replaces each placeholder by a plain symbol P_m, so that

    column(x; θ) = F(x, θ, P_0, P_1, P_2),      P_m = φ^(m)(aᵀx),

and F is built once per term set (``sympy.lambdify`` with common-subexpression elimination for
numpy; for python-flint's ``arb`` ball arithmetic, Python source generated from the sympy tree,
one arb operation per line, with nothing of the expression's text in it: only slot names,
integer exponents and method names from a fixed table). φ's own
derivatives are compiled once per activation. No sympy object is touched while evaluating.

The arb path is the high-precision one used to settle borderline ranks (see :mod:`rank`):
the sample points and the probe parameters are binary numbers, so they enter exactly and
every entry is computed to the requested precision.
"""

from __future__ import annotations

from collections import OrderedDict
from contextlib import contextmanager
from functools import lru_cache
from typing import Callable, Sequence

import flint
import numpy as np
import sympy as sp

from ..parse.grammar import lambdify_modules
from .type1 import TermSet, _PhiDerivative

__all__ = ["CompiledTerms", "arb_closure", "arb_precision", "compile_terms", "phi_functions"]

#: operands per generated line: a sum or product longer than this is folded in steps (the same
#: left-to-right order: ((a + b) + c) …); Python's compiler fails near 3,000 operands on one line
FOLD_CHUNK = 256
MEMO_ENTRIES = 64  # (points, θ, digits) whose φ-free subexpressions are kept, per compiled term set


@contextmanager
def arb_precision(digits: int):
    """Run a block with python-flint working at ``digits`` decimal digits (restored after)."""
    saved = flint.ctx.prec
    flint.ctx.prec = int(digits * 3.3219280948873626) + 16
    try:
        yield
    finally:
        flint.ctx.prec = saved


def _arb_number(value: sp.Expr):
    if value.is_Integer:
        return flint.arb(int(value))
    if value.is_Rational:
        return flint.arb(flint.fmpq(int(value.p), int(value.q)))
    if value is sp.pi:
        return flint.arb.pi()
    if value is sp.E:
        return flint.arb.const_e()
    if value.is_Float:
        return flint.arb(str(value))
    raise NotImplementedError(f"no arb value for {value!r}")


#: sympy function → the python-flint ``arb`` method computing it (the generated code calls it by name)
_ARB_METHODS = {
    sp.exp: "exp",
    sp.log: "log",
    sp.sin: "sin",
    sp.cos: "cos",
    sp.tan: "tan",
    sp.sinh: "sinh",
    sp.cosh: "cosh",
    sp.tanh: "tanh",
    sp.atan: "atan",
    sp.asinh: "asinh",
    sp.erf: "erf",
    sp.erfc: "erfc",
}


class _Emitter:
    """Three-address code for a generated function: one arb operation per line,
    ``t<k> = <operand> <op> <operand> …`` or ``t<k> = <operand>.<method>()``.

    Operands are local names only: ``v<i>`` (inputs), ``f<i>`` (kept φ-free steps), ``t<k>``,
    ``c<k>`` (numeric constants, computed per call at the precision in force then). No text of
    the expression reaches the source — only these names, integer exponents and method names
    from :data:`_ARB_METHODS` — so the compiled code does nothing but arb arithmetic. Sums and
    products are folded left to right (((a + b) + c)), as the tree's order gives them. A subtree
    that occurs twice is computed once: the same operations on the same balls give the same
    ball, so this changes no bit of any result.
    """

    def __init__(self, names: dict, numbers: dict, counter: list):
        self.names = dict(names)  # sympy node → operand name
        self.numbers = numbers  # sympy number → constant index (shared by the functions of a closure)
        self.counter = counter
        self.lines: list[str] = []

    def name(self, expr: sp.Expr) -> str:
        if expr in self.names:
            return self.names[expr]
        if expr.is_Number or expr in (sp.pi, sp.E):
            if expr not in self.numbers:
                self.numbers[expr] = len(self.numbers)
            return f"c{self.numbers[expr]}"
        if expr.is_Add or expr.is_Mul:
            operator = " + " if expr.is_Add else " * "
            operands = [self.name(a) for a in expr.args]
            while len(operands) > FOLD_CHUNK:  # Python's parser recurses per operand: fold long ones in steps
                head = self._line(operator.join(operands[:FOLD_CHUNK]))
                operands = [head, *operands[FOLD_CHUNK:]]
            code = operator.join(operands)
        elif expr.is_Pow:
            base, exponent = expr.args
            b = self.name(base)
            if exponent.is_Integer:
                code = f"{b} ** {int(exponent)}"
            elif exponent == sp.Rational(1, 2):
                code = f"{b}.sqrt()"
            elif exponent == sp.Rational(-1, 2):
                code = f"{b}.rsqrt()"
            else:
                e = self.name(exponent)
                code = f"({e} * {b}.log()).exp()"
        elif expr.func in _ARB_METHODS:
            code = f"{self.name(expr.args[0])}.{_ARB_METHODS[expr.func]}()"
        else:
            raise NotImplementedError(f"no arb evaluation for {expr.func}")
        target = self._line(code)
        self.names[expr] = target
        return target

    def _line(self, code: str) -> str:
        target = f"t{self.counter[0]}"
        self.counter[0] += 1
        self.lines.append(f"    {target} = {code}\n")
        return target


def _unpack(names, source: str) -> str:
    return f"    {', '.join(names)}, = {source}\n" if names else ""


def arb_closure(
    exprs: Sequence[sp.Expr], symbols: Sequence[sp.Symbol], n_fixed: int | None = None
) -> Callable[..., list]:
    """Compile ``exprs`` into ``f(rows, memo=None) -> list of output lists`` (arb), one per input row.

    Each row is a list of arb values aligned with ``symbols``. Common subexpressions are computed
    once per row, numeric constants once per call (at the precision in force then).

    The first ``n_fixed`` symbols (default: all) are the *fixed* inputs — x and θ, not φ's values.
    The subexpressions that involve only them are computed first; with a ``memo`` (a dict kept
    by the caller for one set of fixed inputs and one precision) they are computed once and
    reused by later calls with other values of the remaining symbols — the same operations on
    the same numbers, so the results are identical to recomputing them.

    The expressions become two generated Python functions, one line per arb operation
    (:class:`_Emitter`; the φ-free steps in the first), compiled once per term set: evaluating
    them costs the arb operations and little else (a tree of closures paid Python calls per node).
    """
    replacements, reduced = sp.cse(list(exprs))
    n_fixed = len(symbols) if n_fixed is None else n_fixed
    known = set(symbols[:n_fixed])
    fixed_pairs, varying_pairs = [], []
    for symbol, sub in replacements:
        if sub.free_symbols <= known:
            known.add(symbol)
            fixed_pairs.append((symbol, sub))
        else:
            varying_pairs.append((symbol, sub))
    inputs = {s: f"v{i}" for i, s in enumerate(symbols)}
    numbers: dict = {}
    counter = [0]
    fixed = _Emitter(inputs, numbers, counter)
    kept = []
    for symbol, sub in fixed_pairs:
        kept.append(fixed.name(sub))
        fixed.names[symbol] = kept[-1]
    varying = _Emitter({**inputs, **{s: f"f{i}" for i, (s, _) in enumerate(fixed_pairs)}}, numbers, counter)
    for symbol, sub in varying_pairs:
        varying.names[symbol] = varying.name(sub)
    outputs = [varying.name(e) for e in reduced]
    unpack_inputs = _unpack(list(inputs.values()), "v")
    unpack_constants = _unpack([f"c{i}" for i in range(len(numbers))], "c")
    source = (
        "def fixed(v, c):\n"
        + unpack_inputs
        + unpack_constants
        + "".join(fixed.lines)
        + f"    return [{', '.join(kept)}]\n"
        "def varying(v, f, c):\n"
        + unpack_inputs
        + _unpack([f"f{i}" for i in range(len(kept))], "f")
        + unpack_constants
        + "".join(varying.lines)
        + f"    return [{', '.join(outputs)}]\n"
    )
    namespace: dict = {"__builtins__": {}}
    exec(compile(source, "<arb_closure>", "exec"), namespace)  # generated names only (see _Emitter)
    fixed_fn, varying_fn = namespace["fixed"], namespace["varying"]
    number_list = list(numbers)

    def evaluate(rows, memo=None):
        c = [_arb_number(n) for n in number_list]
        results = []
        for r, row in enumerate(rows):
            if memo is not None and r in memo:
                kept_values = memo[r]
            else:
                kept_values = fixed_fn(row, c)
                if memo is not None:
                    memo[r] = kept_values
            results.append(varying_fn(row, kept_values, c))
        return results

    return evaluate


@lru_cache(maxsize=256)
def phi_functions(derivatives: tuple):
    z = sp.Symbol("z", real=True)
    return [arb_closure([d], [z]) for d in derivatives]


class CompiledTerms:
    """Terms compiled once for evaluation at many points and parameter values.

    Parameters
    ----------
    exprs : sequence of sympy.Expr
        The terms, in the inputs ``x``, the parameters ``params`` and placeholders φ^(m)(s)
        (any arguments s: aᵀx for type-1, the channel outputs f^k for type-2).
    x, params : sequences of sympy.Symbol
    """

    def __init__(self, exprs: Sequence[sp.Expr], x: Sequence[sp.Symbol], params: Sequence[sp.Symbol]):
        atoms = sorted({a for e in exprs for a in e.atoms(_PhiDerivative)}, key=sp.default_sort_key)
        arguments = []
        for atom in atoms:
            if atom.args[0] not in arguments:
                arguments.append(atom.args[0])
        stand_ins = {atom: sp.Symbol(f"P{atom.order}_{arguments.index(atom.args[0])}") for atom in atoms}
        self._slots = [(atom.order, arguments.index(atom.args[0])) for atom in atoms]
        replaced = [e.xreplace(stand_ins) for e in exprs]
        self._n_terms = len(replaced)
        inputs = (*x, *params)
        values = tuple(stand_ins.values())
        self._numpy_arguments = sp.lambdify(inputs, arguments, modules=lambdify_modules(*arguments), cse=True)
        self._numpy = sp.lambdify((*inputs, *values), replaced, modules=lambdify_modules(*replaced), cse=True)
        self._arb_arguments = arb_closure(arguments, inputs)
        self._arb = arb_closure(replaced, (*inputs, *values), n_fixed=len(inputs))
        self._memo: OrderedDict = OrderedDict()

    @property
    def n_terms(self) -> int:
        return self._n_terms

    def float64(self, points: np.ndarray, components: Sequence[Sequence], activation) -> np.ndarray:
        """Evaluate every term for every parameter vector in ``components`` at ``points``.

        Parameters
        ----------
        points : ndarray, shape (n, d)
        components : sequence of parameter vectors, each aligned with ``params``
        activation : Activation

        Returns
        -------
        ndarray, shape (n, len(components) * n_terms)
        """
        n = points.shape[0]
        columns: list[np.ndarray] = []
        for theta in components:
            theta = [float(t) for t in theta]
            with np.errstate(all="ignore"):
                arguments = [
                    np.broadcast_to(np.asarray(z, dtype=float), (n,)) for z in self._numpy_arguments(*points.T, *theta)
                ]
                phis = [activation.numpy_derivative(m)(arguments[j]) for m, j in self._slots]
                values = self._numpy(*points.T, *theta, *phis)
            columns.extend(np.broadcast_to(np.asarray(v, dtype=float), (n,)) for v in values)
        return np.column_stack(columns)

    def arb(self, points: np.ndarray, components: Sequence[Sequence], activation, digits: int, keep: bool = True):
        """The same matrix as :meth:`float64`, as a ``flint.arb_mat`` at ``digits`` digits.

        ``keep=False``: do not keep the φ-free part for later calls (points that no other
        activation will use, e.g. a minor's rows chosen for one φ)."""
        phi = phi_functions(tuple(activation.derivatives)) if self._slots else []
        with arb_precision(digits):
            x_arb = [[flint.arb(float(v)) for v in row] for row in points]
            rows: list[list] = [[] for _ in range(points.shape[0])]
            for theta in components:
                theta_arb = [_arb_number(sp.sympify(t)) for t in theta]
                inputs = [[*xi, *theta_arb] for xi in x_arb]
                memo = self._fixed_memo(points, theta, digits) if keep else {}
                arguments = memo.get("arguments")
                if arguments is None:
                    arguments = memo["arguments"] = self._arb_arguments(inputs)
                by_slot = [[out[0] for out in phi[m]([[args[j]] for args in arguments])] for m, j in self._slots]
                phis = list(zip(*by_slot)) if by_slot else [()] * len(inputs)
                for row, values in zip(rows, self._arb([[*inp, *p] for inp, p in zip(inputs, phis)], memo)):
                    row.extend(values)
            return flint.arb_mat(rows)

    def _fixed_memo(self, points: np.ndarray, theta, digits: int) -> dict:
        """The φ-free part of an evaluation at these points, parameters and precision (kept for
        the next activation: a catalog checks many φ on the same probes)."""
        key = (points.shape, points.tobytes(), tuple(theta), digits)
        if key in self._memo:
            self._memo.move_to_end(key)
        else:
            self._memo[key] = {}
            while len(self._memo) > MEMO_ENTRIES:
                self._memo.popitem(last=False)
        return self._memo[key]


@lru_cache(maxsize=None)
def compile_terms(term_set: TermSet) -> CompiledTerms:
    """Compile a type-1 term set once per process."""
    return CompiledTerms([t.expr for t in term_set.terms], term_set.x, term_set.params)
