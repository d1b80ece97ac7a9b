"""The type-2 term set (Setting II, docs/method.md §8) of one head, built symbolically.

One head: gating matrices M_1..M_N (symmetric, M_N = 0 fixed) and K channels with experts
a_{i,k}. With q_i = xᵀM_i x,

    E = Σ_i exp(q_i),   f^k = Σ_i exp(q_i) a_{i,k}ᵀx / E,
    u(x; M, a) = exp(xᵀMx)·aᵀx (the linear expert),   v^k(x; M) = exp(xᵀMx)·f^k(x),

and the set, per channel k, is

    φ(f^k)                                                       (m = 0)
    ∂^r v^k/∂M^r (x; M_i) · φ'(f^k)/E,             1 ≤ |r| ≤ 2     (m = 1)
    ∂^t u/∂M^t1∂a^t2 (x; M_i, a_{i,k}) · φ'(f^k)/E, 1 ≤ |t| ≤ 2, |t2| ≠ 2   (m = 1)
    ∂u(M_{i1}, a_{i1,k}) · ∂u(M_{i2}, a_{i2,k}) · φ''(f^k)/E²,  first-order, unordered pairs   (m = 2)
    ∂v^k/∂M^{r1}(M_{i1}) · ∂v^k/∂M^{r2}(M_{i2}) · φ''(f^k)/E²,  |r1| = |r2| = 1              (m = 2)

and, only with ``mixed_products`` (an extension beyond the paper's set, labelled so), the
mixed products ∂u·∂v^k · φ''(f^k)/E² that the full second-order Taylor expansion of φ(f^k)
also produces. M-derivatives are taken at M_1..M_{N−1} only: M_N = 0 is fixed, not estimated.

Each term is (φ-free factor) × φ^(m)(f^k); terms of one channel and one m share the φ factor
and form a *group*. Two terms of a group that are the same function up to a constant (for
every φ) are merged, as for type-1 (:mod:`~identcheck.terms.merge`). Relations *within* a group hold for every φ —
the linear
expert's own PDE Σ_l a_l ∂²u/∂M_jk∂a_l = ∂u/∂M_jk is one — and are handled by the check
(:mod:`~identcheck.conditions.type2`), which judges φ on a set reduced by them and reports the literal verdict beside.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from ..errors import IdentcheckError
from .merge import merge_proportional
from .type1 import a_variable, derivative_label, m_variable, phi_placeholder, symmetric_matrix

__all__ = ["Type2Term", "Type2TermSet", "on_channel", "type2_term_set"]

MAX_GATES = 4
MAX_CHANNELS = 4


@dataclass(frozen=True, slots=True)
class Type2Term:
    """One term: ``factor · φ^(phi_order)(f^channel)``.

    ``kind`` is one of "phi", "v", "u", "uu", "vv", "uv" (the extension). ``key`` says which term
    it is by structure — families match terms by it, never by label:
    ``("phi", k)``, ``("v", k, i, names)``, ``("u", k, i, names)`` (gate i, the parameters
    differentiated as typed variables of that gate: ``("M", 0, 1)`` for M_12, ``("a", 0)`` for a_1,
    :func:`~identcheck.terms.type1.m_variable`), and for the products ``(kind, k, (i1, names1), (i2, names2))``.
    Channels and gates are 0-based.
    """

    label: str
    channel: int
    phi_order: int
    kind: str
    factor: sp.Expr = field(repr=False)
    key: tuple = field(repr=False, default=())

    @property
    def group(self) -> tuple:
        return (self.channel, self.phi_order)


def on_channel(key: tuple, channel: int) -> tuple:
    """The key of the same term on another channel."""
    return (key[0], channel, *key[2:])


@dataclass(frozen=True, eq=False)
class Type2TermSet:
    """The distinct type-2 terms of one head configuration shape (d, N, K).

    ``index`` maps the key of every term, merged ones included, to (position in ``terms``,
    factor): that term equals factor × ``terms[position]`` (as :class:`~identcheck.terms.type1.TermSet`
    does for derivatives). ``experts[i][k]`` are the symbols of a_{i,k}.
    """

    dim: int
    n_gates: int
    n_channels: int
    mixed_products: bool
    x: tuple = field(repr=False)
    params: tuple = field(repr=False)
    terms: tuple = field(repr=False)
    merges: tuple = field(repr=False)
    channel_outputs: tuple = field(repr=False)  # f^k as sympy expressions
    n_derivatives: int = 0
    index: dict = field(repr=False, default_factory=dict)
    experts: tuple = field(repr=False, default=())

    @property
    def labels(self) -> list[str]:
        return [t.label for t in self.terms]

    def exprs(self) -> list:
        """Each term with φ^(m)(f^k) as a placeholder (for compiling)."""
        return [t.factor * phi_placeholder(t.phi_order)(self.channel_outputs[t.channel]) for t in self.terms]

    def factor_exprs(self) -> list:
        """The φ-free factors only."""
        return [t.factor for t in self.terms]

    def numeric_params(self, M, a) -> dict:
        """Map parameter symbols to the values of one head: M (N, d, d) with M[N-1] = 0, a (N, K, d)."""
        d, N, K = self.dim, self.n_gates, self.n_channels
        values = [M[i][j][l] for i in range(N - 1) for j in range(d) for l in range(j, d)]
        values += [a[i][k][l] for i in range(N) for k in range(K) for l in range(d)]
        return dict(zip(self.params, values))


def _pair_name(j, l):
    return f"{j + 1}{l + 1}"


@lru_cache(maxsize=None)
def type2_term_set(dim: int = 2, n_gates: int = 2, n_channels: int = 2, mixed_products: bool = False) -> Type2TermSet:
    """Build the type-2 set for one head with ``n_gates`` gating matrices and ``n_channels`` channels."""
    for name, value, top in (
        ("dim", dim, 3),
        ("n_gates", n_gates, MAX_GATES),
        ("n_channels", n_channels, MAX_CHANNELS),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not (2 if name == "n_gates" else 1) <= value <= top:
            low = 2 if name == "n_gates" else 1
            raise IdentcheckError(param=name, value=value, reason=f"must be an integer from {low} to {top} for type-2")
    d, N, K = dim, n_gates, n_channels
    x = sp.symbols(f"x1:{d + 1}", real=True)
    xv = sp.Matrix(x)
    m_syms = {}  # (i, j, l) -> symbol, i < N-1 (0-based gates)
    for i in range(N - 1):
        for j in range(d):
            for l in range(j, d):
                m_syms[(i, j, l)] = sp.Symbol(f"M{i + 1}_{_pair_name(j, l)}", real=True)
    a_syms = {
        (i, k, l): sp.Symbol(f"a{i + 1}{k + 1}_{l + 1}", real=True)
        for i in range(N)
        for k in range(K)
        for l in range(d)
    }
    params = tuple(m_syms.values()) + tuple(a_syms.values())

    def matrix(i):
        if i == N - 1:
            return sp.zeros(d, d)
        return symmetric_matrix({(j, l): m_syms[(i, j, l)] for j in range(d) for l in range(j, d)}, d)

    exps = [sp.exp(sp.expand((xv.T * matrix(i) * xv)[0])) if i < N - 1 else sp.Integer(1) for i in range(N)]
    E = sum(exps)
    s = {(i, k): sum(a_syms[(i, k, l)] * x[l] for l in range(d)) for i in range(N) for k in range(K)}
    f = tuple(sum(exps[i] * s[(i, k)] for i in range(N)) / E for k in range(K))

    def m_names(i):  # (local name for labels, symbol, typed key)
        return (
            [(f"M_{_pair_name(j, l)}", m_syms[(i, j, l)], m_variable(j, l)) for j in range(d) for l in range(j, d)]
            if i < N - 1
            else []
        )

    def a_names(i, k):
        return [(f"a_{l + 1}", a_syms[(i, k, l)], a_variable(l)) for l in range(d)]

    terms: list[Type2Term] = []
    for k in range(K):
        kk = k + 1
        terms.append(Type2Term(f"φ(f{kk})", k, 0, "phi", sp.Integer(1), ("phi", k)))
        # v-derivatives, m = 1
        first_v = []
        for i in range(N - 1):
            names = m_names(i)
            for order in (1, 2):
                for combo in itertools.combinations_with_replacement(range(len(names)), order):
                    expr = exps[i]
                    for c in combo:
                        expr = sp.diff(expr, names[c][1])
                    label = derivative_label(f"v{kk}", tuple(f"M{i + 1}" + names[c][0][1:] for c in combo))
                    part = (i, tuple(names[c][2] for c in combo))
                    terms.append(Type2Term(f"{label}·φ'(f{kk})/E", k, 1, "v", expr * f[k] / E, ("v", k, *part)))
                    if order == 1:
                        first_v.append((label, expr * f[k], part))
        # u-derivatives, m = 1 (|t2| != 2)
        first_u = []
        for i in range(N):
            u = exps[i] * s[(i, k)]
            names = m_names(i) + a_names(i, k)
            for order in (1, 2):
                for combo in itertools.combinations_with_replacement(range(len(names)), order):
                    if sum(1 for c in combo if names[c][2][0] == "a") == 2:
                        continue
                    expr = u
                    for c in combo:
                        expr = sp.diff(expr, names[c][1])
                    label = derivative_label(f"u[{i + 1},{kk}]", tuple(names[c][0] for c in combo))
                    part = (i, tuple(names[c][2] for c in combo))
                    terms.append(Type2Term(f"{label}·φ'(f{kk})/E", k, 1, "u", expr / E, ("u", k, *part)))
                    if order == 1:
                        first_u.append((label, expr, part))
        # products, m = 2
        for (l1, e1, p1), (l2, e2, p2) in itertools.combinations_with_replacement(first_u, 2):
            terms.append(Type2Term(f"{l1}·{l2}·φ''(f{kk})/E²", k, 2, "uu", e1 * e2 / E**2, ("uu", k, p1, p2)))
        for (l1, e1, p1), (l2, e2, p2) in itertools.combinations_with_replacement(first_v, 2):
            terms.append(Type2Term(f"{l1}·{l2}·φ''(f{kk})/E²", k, 2, "vv", e1 * e2 / E**2, ("vv", k, p1, p2)))
        if mixed_products:
            for (l1, e1, p1), (l2, e2, p2) in itertools.product(first_u, first_v):
                label = f"{l1}·{l2}·φ''(f{kk})/E² [extension]"
                terms.append(Type2Term(label, k, 2, "uv", e1 * e2 / E**2, ("uv", k, p1, p2)))
    kept, merges, placement = merge_proportional(
        [t.label for t in terms], [t.group for t in terms], [t.factor for t in terms], (*x, *params)
    )
    distinct = [terms[i] for i in kept]
    index = {t.key: place for t, place in zip(terms, placement)}
    return Type2TermSet(
        dim=d,
        n_gates=N,
        n_channels=K,
        mixed_products=mixed_products,
        x=tuple(x),
        params=params,
        terms=tuple(distinct),
        merges=tuple(merges),
        channel_outputs=f,
        n_derivatives=len(terms),
        index=index,
        experts=tuple(tuple(tuple(a_syms[(i, k, l)] for l in range(d)) for k in range(K)) for i in range(N)),
    )
