r"""A declared part's expert h(x; η) and its exact gradient ∂h/∂η as numpy code, built once.

The expression comes from the declaration (:func:`identcheck.declaration.atom_functions`); sympy
differentiates it and ``lambdify(..., cse=True)`` writes one numpy function returning
(h, ∂h/∂η_1, …, ∂h/∂η_E), with common subexpressions computed once. It is evaluated for all k
atoms of a part at once by broadcasting: x components of shape (n,), parameters of shape (k, 1),
results of shape (k, n) (atoms first, as everywhere in :mod:`numeric.model`); a second function
returns h alone, for the evaluations that need no gradient.

``relu(s) = max(0, s)`` (sympy ``Max(0, s)``) is simulated with its almost-everywhere derivative:
sympy writes d relu(s)/ds as Heaviside(s), which the generated code evaluates as the step
1[s > 0] (numpy's ``maximum`` and a comparison; sympy's own printing of Heaviside is a three-way
``select``, 1.7× slower for the whole function below). The set s = 0 has probability zero under continuous inputs.

**Linear experts.** When h is linear in η, h = Σ_e η_e φ_e(x) (every second derivative in η is
zero and h(x; 0) = 0), :attr:`ExpertCode.linear` is true and :meth:`ExpertCode.features` gives
Φ(x) = (φ_1(x) … φ_E(x)), of shape (E, n): the EM's expert step is then a weighted least-squares
solve in closed form (:mod:`numeric.fitting.em`).

**Outer experts.** A nested part's outer expert h(x; η, u) is a function of its inner mixture's
value u (:mod:`numeric.model.nested`): :func:`compile_outer` writes h, ∂h/∂η and ∂h/∂u, with u
an array (k, n) beside the parameters; h = u (multi-head attention, Setting I) runs no code.

**Why generated code, not automatic differentiation.** No automatic-differentiation library is a
dependency of this project (jax and torch are not installed; docs/numeric.md's comparison with
PyTorch autograd on the paper's models found the plain numpy code 2.8–5.7× faster). The generated
function is plain numpy arithmetic on arrays: for DeepSeekMoE's routed η2·relu(η1 x) at n = 10⁵,
k = 3 it takes 7.5 ms for h and both derivatives, against 8.6 ms for the same expressions written
by hand in numpy and 12.6 ms with sympy's own Heaviside (best of 50, 2 cores at load 3.5), so an
AD tape — which computes the same products and adds its own bookkeeping — could at best match it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from scipy.special import expit

__all__ = ["ExpertCode", "OuterExpertCode", "compile_expert", "compile_outer"]

_RELU = sp.Function("relu_")
_STEP = sp.Function("step_")


class sigmoid_(sp.Function):  # noqa: N801 - the generated code calls it by this name
    """σ(s) = 1/(1 + e^{−s}) as one function: scipy's ``expit`` (no overflow), σ' = σ(1 − σ)
    (not e^{−s}/(1 + e^{−s})²)."""

    def fdiff(self, argindex=1):
        value = sigmoid_(self.args[0])
        return value * (1 - value)


_NUMPY_EXTRAS = {
    "sigmoid_": expit,
    "relu_": lambda s: np.maximum(s, 0.0),
    "step_": lambda s: np.greater(s, 0.0),  # a boolean array: products with it are floats
}


@dataclass(frozen=True)
class ExpertCode:
    """h(x; η) of one part as array code.

    Attributes
    ----------
    params : tuple of str
        The expert's flat parameter names (sympy symbol names, e.g. ``eta2``, ``eta1_1``).
    linear : bool
        h = Σ_e η_e φ_e(x) (see the module's docstring).
    """

    params: tuple
    linear: bool
    dim: int
    function: Any = field(repr=False)
    value_function: Any = field(repr=False)
    scores: tuple = ()  # per score argument: (its parameters' indices, its inputs' indices)

    def _arguments(self, X: np.ndarray, eta: np.ndarray) -> list:
        """The generated code's arguments: x's components (n,), η's (k, 1), each score Σ_j η_j x_j (k, n)."""
        everything = tuple(range(self.dim))
        scores = [eta[:, list(p)] @ (X.T if j == everything else X[:, list(j)].T) for p, j in self.scores]
        return [*(X[:, j] for j in range(self.dim)), *(eta[:, e, None] for e in range(eta.shape[1])), *scores]

    def value_and_gradient(self, X: np.ndarray, eta: np.ndarray):
        """h of shape (k, n) and ∂h/∂η of shape (k, E, n), for inputs X (n, d) and parameters eta (k, E)."""
        k, n, E = eta.shape[0], X.shape[0], eta.shape[1]
        out = self.function(*self._arguments(X, eta))
        grad = np.empty((k, E, n))
        for e, g in enumerate(out[1:]):
            grad[:, e, :] = g
        return _full(out[0], k, n), grad

    def value_and_gradients(self, X: np.ndarray, eta: np.ndarray):
        """h of shape (k, n) and the E derivatives ∂h/∂η_e as the generated code returns them, each
        broadcastable to (k, n) (a derivative free of x or of η keeps its smaller shape)."""
        out = self.function(*self._arguments(X, eta))
        return _full(out[0], eta.shape[0], X.shape[0]), out[1:]

    def value(self, X: np.ndarray, eta: np.ndarray) -> np.ndarray:
        """h of shape (k, n)."""
        out = self.value_function(*self._arguments(X, eta))
        return _full(out, eta.shape[0], X.shape[0])

    def features(self, X: np.ndarray) -> np.ndarray:
        """Φ(x) of shape (E, n) for a linear expert (∂h/∂η does not depend on η)."""
        if not self.linear:
            raise ValueError("features: the expert is not linear in its parameters")
        return self.value_and_gradient(X, np.zeros((1, len(self.params))))[1][0]


@dataclass(frozen=True)
class OuterExpertCode:
    """A nested part's outer expert h(x; η, u) of its inner mixture's value u (:mod:`numeric.model.nested`):
    h, ∂h/∂η and ∂h/∂u as array code; ``identity`` when h = u (no code runs)."""

    params: tuple
    identity: bool
    dim: int
    function: Any = field(repr=False)
    value_function: Any = field(repr=False)

    def value_and_gradient(self, X: np.ndarray, eta: np.ndarray, u: np.ndarray):
        """h (k, n), ∂h/∂η (k, E, n) and ∂h/∂u (k, n; None when h = u) for inputs X (n, d),
        parameters eta (k, E) and inner values u (k, n)."""
        k, n, E = u.shape[0], u.shape[1], eta.shape[1]
        if self.identity:
            return u, np.empty((k, 0, n)), None
        out = self.function(*(X[:, j] for j in range(self.dim)), *(eta[:, e, None] for e in range(E)), u)
        grad = np.empty((k, E, n))
        for e, g in enumerate(out[1:-1]):
            grad[:, e, :] = g
        return _full(out[0], k, n), grad, _full(out[-1], k, n)

    def value(self, X: np.ndarray, eta: np.ndarray, u: np.ndarray) -> np.ndarray:
        """h (k, n)."""
        if self.identity:
            return u
        x = (X[:, j] for j in range(self.dim))
        out = self.value_function(*x, *(eta[:, e, None] for e in range(eta.shape[1])), u)
        return _full(out, u.shape[0], u.shape[1])


def compile_outer(expert: sp.Expr, x: tuple, params: tuple, inner: sp.Symbol) -> OuterExpertCode:
    """The array code of an outer expert in inputs ``x``, parameters ``params`` and the inner value ``inner``."""
    names = tuple(p.name for p in params)
    if expert == inner:
        return OuterExpertCode(names, True, len(x), None, None)
    expert = _sigmoids(expert)
    outputs = [_array_form(e) for e in [expert, *(sp.diff(expert, p) for p in [*params, inner])]]
    arguments = [*x, *params, inner]
    function = sp.lambdify(arguments, outputs, modules=[_NUMPY_EXTRAS, "scipy", "numpy"], cse=True)
    value = sp.lambdify(arguments, outputs[0], modules=[_NUMPY_EXTRAS, "scipy", "numpy"], cse=True)
    return OuterExpertCode(names, False, len(x), function, value)


def _full(value, k: int, n: int) -> np.ndarray:
    value = np.asarray(value, dtype=float)
    return value if value.shape == (k, n) else np.ascontiguousarray(np.broadcast_to(value, (k, n)))


def compile_expert(expert: sp.Expr, x: tuple, params: tuple) -> ExpertCode:
    """The array code of ``expert`` in inputs ``x`` and parameters ``params`` (sympy symbols)."""
    expert = _sigmoids(expert)
    gradient = [sp.diff(expert, p) for p in params]
    linear = all(sp.diff(g, q) == 0 for g in gradient for q in params) and expert.subs({p: 0 for p in params}) == 0
    sums = _linear_scores(expert, x, params)
    symbols = [sp.Symbol(f"score_{m}_", real=True) for m in range(len(sums))]
    outputs = [_array_form(e).subs(dict(zip(sums, symbols))) for e in [expert, *gradient]]
    arguments = [*x, *params, *symbols]
    function = sp.lambdify(arguments, outputs, modules=[_NUMPY_EXTRAS, "scipy", "numpy"], cse=True)
    value = sp.lambdify(arguments, outputs[0], modules=[_NUMPY_EXTRAS, "scipy", "numpy"], cse=True)
    scores = tuple(
        (tuple(params.index(p) for p, _ in terms), tuple(x.index(xj) for _, xj in terms))
        for terms in (_terms(s, x, params) for s in sums)
    )
    return ExpertCode(tuple(p.name for p in params), bool(linear), len(x), function, value, scores)


def _terms(expression: sp.Expr, x: tuple, params: tuple):
    """The (η_j, x_j) pairs of a sum Σ_j η_j x_j, or None when ``expression`` is not one."""
    if not isinstance(expression, sp.Add):
        return None
    pairs = []
    for term in expression.args:
        factors: tuple = term.args if isinstance(term, sp.Mul) else ()
        if len(factors) != 2:
            return None
        p, xj = factors if factors[0] in params else (factors[1], factors[0])
        if p not in params or xj not in x:
            return None
        pairs.append((p, xj))
    return pairs


def _linear_scores(expression: sp.Expr, x: tuple, params: tuple) -> list:
    """The distinct sums Σ_j η_j x_j of two or more products of one parameter and one input in
    ``expression`` (``dot(a, x)`` for d ≥ 2): the generated code takes each as an argument, computed
    by one matrix product for all atoms (a broadcast sum of d products costs d + (d − 1) passes and
    as many temporaries over the (k, n) array)."""
    found: list = []
    for e in sp.preorder_traversal(expression):
        if e not in found and _terms(e, x, params) is not None:
            found.append(e)
    return found


def _sigmoids(expression: sp.Expr) -> sp.Expr:
    """Every 1/(1 + e^{u}) as sigmoid_(−u), before differentiation (so that σ' is written from σ)."""

    def is_sigmoid(e) -> bool:
        if not (isinstance(e, sp.Pow) and e.exp == -1 and isinstance(e.base, sp.Add) and len(e.base.args) == 2):
            return False
        return sp.S.One in e.base.args and any(isinstance(a, sp.exp) for a in e.base.args)

    def as_sigmoid(e):
        power = next(a for a in e.base.args if isinstance(a, sp.exp))
        return sigmoid_(-power.args[0])

    return expression.replace(is_sigmoid, as_sigmoid)


def _array_form(expression: sp.Expr) -> sp.Expr:
    """``Max(0, s)`` as relu_(s) and ``Heaviside(s)`` as step_(s): the a.e. derivative's cheap code."""
    expression = expression.replace(lambda e: isinstance(e, sp.Heaviside), lambda e: _STEP(e.args[0]))
    return expression.replace(
        lambda e: isinstance(e, sp.Max) and len(e.args) == 2 and 0 in e.args,
        lambda e: _RELU(next(a for a in e.args if a != 0)),
    )
