"""Shared by the family tests: the functions written by hand with sympy (never through the term
sets or the member sets under test), and a Builder that records what a family proposes."""

import sympy as sp

from identcheck.families.base import Builder, Member
from identcheck.terms.probes import Component, Probe
from identcheck.terms.type1 import type1_term_set


class Recorder(Builder):
    """A :class:`Builder` that keeps each proposed relation on derivative keys, as the family wrote it."""

    def __init__(self, dim, components):
        super().__init__(type1_term_set(dim), Probe("test", tuple(Component(M, a) for M, a in components)))
        self.components = components
        self.added = []

    def add(self, family, hypothesis, parts):
        self.added.append((family, hypothesis, parts))


def u_bar(phi, dim):
    """ū = exp(xᵀMx)·φ(aᵀx) by hand: (ū, x, {name: symbol}) with the term set's parameter names."""
    x = sp.symbols(f"x1:{dim + 1}", real=True)
    names = {}
    quadratic = 0
    for j in range(dim):
        for k in range(j, dim):
            m = names.setdefault(f"M{j + 1}{k + 1}", sp.Symbol(f"M{j + 1}{k + 1}", real=True))
            quadratic += (1 if j == k else 2) * m * x[j] * x[k]
    a = [names.setdefault(f"a{j + 1}", sp.Symbol(f"a{j + 1}", real=True)) for j in range(dim)]
    return sp.exp(quadratic) * phi(sum(aj * xj for aj, xj in zip(a, x))), x, names


def type1_residual(phi, dim, components, parts):
    """Σ over parts (component, {derivative key: coefficient}) of coefficient·∂^key ū at the
    component's (M, a), simplified: 0 when the relation holds."""
    u, x, names = u_bar(phi, dim)
    total = 0
    for comp, relation in parts:
        M, a = components[comp]
        values = {names[f"a{j + 1}"]: a[j] for j in range(dim)}
        values |= {names[f"M{j + 1}{k + 1}"]: M[j][k] for j in range(dim) for k in range(j, dim)}
        by_name = {s.name: v for s, v in values.items()}
        for key, coefficient in relation.items():
            c = sp.sympify(coefficient)
            c = c.xreplace({s: by_name[s.name] for s in c.free_symbols})
            total += c * (sp.diff(u, *(names[n] for n in key)) if key else u).xreplace(values)
    return sp.simplify(total)


def member(atom, kind, names, coefficient, w=None):
    return Member(atom, kind, tuple(names), w, sp.Rational(coefficient))


def expert_residual(h, atoms, members, x):
    """Σ coefficient·member(atom) for an expert h written by hand (parameters as symbols named
    like the expert's), simplified: 0 when the relation holds."""
    symbols = {s.name: s for s in h.free_symbols}
    total = 0
    for m in members:
        if m.kind == "1":
            total += m.coefficient
            continue
        first = [sp.diff(h, symbols[n]) for n in m.names]
        value = {"d": first[0], "prod": first[0] * first[-1], "x": x[(m.w or 1) - 1] * first[0]}.get(m.kind)
        if m.kind == "dd":
            value = sp.diff(h, *(symbols[n] for n in m.names))
        total += m.coefficient * value.xreplace({symbols[n]: v for n, v in atoms[m.atom].items() if n in symbols})
    total = sp.simplify(total)
    if total != 0 and total.has(sp.log):  # log((1 + e^w)/(1 + e^−w)) = w: zero gradient in x and zero at 0
        gradient = [sp.simplify(sp.diff(total, xi)) for xi in x]
        if all(g == 0 for g in gradient) and sp.simplify(total.xreplace({xi: 0 for xi in x})) == 0:
            return sp.Integer(0)
    return total


class Atom:
    """An atom as the families read it: ``values`` in the expert's parameter order."""

    def __init__(self, expert, **values):
        self.values = tuple(sp.Rational(values[p.name]) for p in expert.params)
        self.by_name = {p.name: v for p, v in zip(expert.params, self.values)}

    def items(self):
        return self.by_name.items()
