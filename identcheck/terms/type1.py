"""The type-1 term set (Setting I, docs/method.md §1), built symbolically for a generic φ.

One component θ = (M, a), M symmetric d×d parametrised by its upper triangle (m_jk, j ≤ k):

    xᵀMx = Σ_j m_jj x_j² + 2 Σ_{j<k} m_jk x_j x_k,      ū(x; M, a) = exp(xᵀMx) · φ(aᵀx).

With the p = d(d+1)/2 + d free parameters, the component contributes

    T1(θ) = {ū} ∪ { ∂^{|t1|+|t2|} ū / ∂M^{t1} ∂a^{t2} : 1 ≤ |t1| + |t2| ≤ 2 },

that is 1 + p + p(p+1)/2 derivatives (21 at d = 2). φ is kept abstract: it is the function
``Phi0`` whose derivative is ``Phi1`` and so on, so every derivative comes out in the closed form

    exp(xᵀMx) · c · x^α · φ^(m)(aᵀx),        m = |t2|,  |α| = 2|t1| + |t2|.

**Merges.** Derivatives that are the same function up to a constant factor for *every* φ (same
x^α and m) are one term of the Taylor expansion, whose coefficients the expansion collects: at
d = 2, ∂²ū/∂M12∂a1 = 2·∂²ū/∂M11∂a2 and ∂²ū/∂M12² = 4·∂²ū/∂M11∂M22, so 21 → 18 distinct terms.
They are found as for every term set (:mod:`~identcheck.terms.merge`: a fingerprint proposes, an exact
ratio confirms), never assumed.

The linear expert of plain MHA, u(x; M, a) = exp(xᵀMx)·aᵀx, is the same construction with φ(z) = z.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from ..errors import IdentcheckError
from ..parse.activation import Z, parse_activation
from ..util.limits import MAX_DIM
from .merge import Merge, merge_proportional

__all__ = [
    "Merge",
    "Term",
    "TermSet",
    "a_variable",
    "derivative_label",
    "m_variable",
    "phi_placeholder",
    "substitute_phi",
    "symmetric_matrix",
    "type1_term_set",
    "type1_terms",
]


class _PhiDerivative(sp.Function):
    """φ^(order) as an undefined function whose derivative is φ^(order+1)."""

    order = 0
    nargs = 1

    def fdiff(self, argindex=1):
        return phi_placeholder(self.order + 1)(self.args[0])


@lru_cache(maxsize=None)
def phi_placeholder(order: int) -> type:
    """The sympy function class standing for φ^(order) (named ``Phi<order>``)."""
    return type(f"Phi{order}", (_PhiDerivative,), {"order": order})


@dataclass(frozen=True, slots=True)
class Term:
    """One distinct term of one component.

    Attributes
    ----------
    label : str
        e.g. ``'∂²ū/∂M11∂a2'``.
    derivative : tuple of str
        The parameters differentiated, sorted in parameter order (``()`` for ū itself).
    expr : sympy.Expr
        The term for a generic φ: ``exp(xᵀMx)·c·x^α·Phi<m>(aᵀx)``.
    reduced : sympy.Expr
        ``expr`` divided by exp(xᵀMx): ``c·x^α·Phi<m>(aᵀx)``.
    phi_order : int
        m, the derivative of φ the term carries.
    key : tuple
        The same derivative by structure, for code (:func:`m_variable`, :func:`a_variable`):
        ``(("M", 0, 1), ("a", 1))`` for ∂²/∂M12∂a2, ``()`` for ū; a column's key composes it with
        the component (type-1: ``(component, key)``).
    """

    label: str
    derivative: tuple
    expr: sp.Expr = field(repr=False)
    reduced: sp.Expr = field(repr=False)
    phi_order: int
    key: tuple = field(default=(), repr=False)


@dataclass(frozen=True, eq=False)
class TermSet:
    """The distinct terms of one component, with the map from every derivative to its term.

    Attributes
    ----------
    dim : int
        d, the input dimension.
    base : str
        The base function's name in labels (``'ū'`` for Setting I).
    x : tuple of sympy.Symbol
        The inputs x1..xd.
    quadratic : sympy.Expr
        xᵀMx in the parameter symbols.
    params : tuple of sympy.Symbol
        The free parameters (M11, M12, …, Mdd, a1, …, ad) in derivative order.
    terms : tuple of Term
        The distinct terms, in derivative order.
    merges : tuple of Merge
        The derivatives merged into an earlier one.
    index : dict
        derivative (tuple of parameter names) → (position in ``terms``, factor): that derivative
        equals factor × ``terms[position]``.
    n_derivatives : int
        1 + p + p(p+1)/2, before merging.
    """

    dim: int
    base: str
    x: tuple = field(repr=False)
    quadratic: sp.Expr = field(repr=False)
    params: tuple = field(repr=False)
    terms: tuple = field(repr=False)
    merges: tuple = field(repr=False)
    index: dict = field(repr=False)
    n_derivatives: int

    @property
    def labels(self) -> list[str]:
        return [t.label for t in self.terms]

    @property
    def param_names(self) -> list[str]:
        return [p.name for p in self.params]

    def m_symbols(self) -> sp.Matrix:
        """The symmetric matrix M in terms of its upper-triangle symbols."""
        d = self.dim
        by_name = {p.name: p for p in self.params}
        return sp.Matrix(d, d, lambda i, j: by_name[_m_name(min(i, j), max(i, j))])

    def a_symbols(self) -> tuple:
        return self.params[self.dim * (self.dim + 1) // 2 :]

    def numeric_params(self, M, a) -> dict:
        """Map parameter symbols to the values of one component (M symmetric d×d, a length d)."""
        d = self.dim
        values = {}
        for j in range(d):
            for k in range(j, d):
                values[_m_name(j, k)] = M[j][k]
        for j in range(d):
            values[f"a{j + 1}"] = a[j]
        return {p: values[p.name] for p in self.params}


def _m_name(j: int, k: int) -> str:
    return f"M{j + 1}{k + 1}"


def m_variable(j: int, k: int) -> tuple:
    """The typed key of the gating-matrix entry M_{j+1,k+1} (0-based, j ≤ k): ``("M", j, k)``.

    Every condition's column keys name the parameters differentiated this way (type-1, type-2,
    type1-full), so code reading a relation (numeric's witness paths) never parses a name."""
    return ("M", min(j, k), max(j, k))


def a_variable(j: int) -> tuple:
    """The typed key of the expert entry a_{j+1} (0-based): ``("a", j)``."""
    return ("a", j)


def symmetric_matrix(upper, dim: int) -> sp.Matrix:
    """The symmetric d×d matrix whose entry (j, k), j ≤ k, is ``upper[(j, k)]`` (0-based)."""
    return sp.Matrix(dim, dim, lambda i, j: upper[(min(i, j), max(i, j))])


def derivative_label(base: str, derivative: tuple) -> str:
    """``('M11', 'a2')`` → ``'∂²ū/∂M11∂a2'``; repeated parameters get a power."""
    if not derivative:
        return base
    order = len(derivative)
    groups = [(name, len(list(g))) for name, g in itertools.groupby(derivative)]
    below = "".join(f"∂{name}" + ("²" if count == 2 else "") for name, count in groups)
    top = "∂" if order == 1 else "∂²"
    return f"{top}{base}/{below}"


@lru_cache(maxsize=None)
def type1_term_set(dim: int, base: str = "ū") -> TermSet:
    """Build the type-1 term set of one component for a generic φ (cached per dimension).

    Parameters
    ----------
    dim : int
        Input dimension d, 1 ≤ d ≤ 6.
    base : str
        Name of the base function in labels.

    Returns
    -------
    TermSet
        At d = 2: 21 derivatives, 3 merges, 18 terms.
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise IdentcheckError(param="dim", value=dim, reason=f"must be an integer from 1 to {MAX_DIM}")
    x = sp.symbols(f"x1:{dim + 1}", real=True)
    m_params = [sp.Symbol(_m_name(j, k), real=True) for j in range(dim) for k in range(j, dim)]
    a_params = list(sp.symbols(f"a1:{dim + 1}", real=True))
    params = tuple(m_params + a_params)
    by_name = {p.name: p for p in params}
    variables = {_m_name(j, k): m_variable(j, k) for j in range(dim) for k in range(j, dim)}
    variables |= {a.name: a_variable(j) for j, a in enumerate(a_params)}
    M = symmetric_matrix({(j, k): by_name[_m_name(j, k)] for j in range(dim) for k in range(j, dim)}, dim)
    xv = sp.Matrix(x)
    quadratic = sp.expand((xv.T * M * xv)[0])
    exponential = sp.exp(quadratic)
    argument = sum(a * xi for a, xi in zip(a_params, x))
    base_expr = exponential * phi_placeholder(0)(argument)

    derivatives: list[tuple[str, ...]] = [()]
    derivatives += [(p.name,) for p in params]
    derivatives += [(p.name, q.name) for i, p in enumerate(params) for q in params[i:]]

    labels, groups, factors, reduced_terms = [], [], [], []
    for derivative in derivatives:
        expr = base_expr
        for name in derivative:
            expr = sp.diff(expr, by_name[name])
        reduced = sp.expand(expr / exponential)
        phis = sorted(reduced.atoms(_PhiDerivative), key=str)
        labels.append(derivative_label(base, derivative))
        groups.append(tuple(str(p) for p in phis))
        factors.append(reduced.xreplace({p: sp.Symbol(f"_Phi{p.order}") for p in phis}))
        reduced_terms.append(reduced)
    kept, merges, placement = merge_proportional(labels, groups, factors)
    terms = [
        Term(
            labels[i],
            derivatives[i],
            exponential * reduced_terms[i],
            reduced_terms[i],
            sum(1 for n in derivatives[i] if n.startswith("a")),
            tuple(variables[n] for n in derivatives[i]),
        )
        for i in kept
    ]
    index = dict(zip(derivatives, placement))
    return TermSet(
        dim=dim,
        base=base,
        x=tuple(x),
        quadratic=quadratic,
        params=params,
        terms=tuple(terms),
        merges=tuple(merges),
        index=index,
        n_derivatives=len(derivatives),
    )


def type1_terms(phi=None, dim: int = 2, params=None):
    """The labelled type-1 terms of one component (after merges), for a generic or given φ.

    Parameters
    ----------
    phi : str or sympy.Expr or Activation, optional
        The activation; without it φ^(m) appears as ``Phi<m>``.
    dim : int
        Input dimension d.
    params : mapping, optional
        Values of named constants in ``phi``.

    Returns
    -------
    list of (str, sympy.Expr)
        (label, expression) per term; with ``phi`` given, φ and its derivatives are substituted.
    """
    term_set = type1_term_set(dim)
    if phi is None:
        return [(t.label, t.expr) for t in term_set.terms]
    derivatives = parse_activation(phi, params).derivatives
    return [(t.label, substitute_phi(t.expr, derivatives)) for t in term_set.terms]


def substitute_phi(expr: sp.Expr, derivatives: tuple) -> sp.Expr:
    """Replace each placeholder φ^(m)(s) in ``expr`` by ``derivatives[m]`` evaluated at s."""
    return expr.replace(lambda e: isinstance(e, _PhiDerivative), lambda e: derivatives[e.order].subs(Z, e.args[0]))
