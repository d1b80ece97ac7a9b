"""Known relation families: which property of φ makes which terms dependent (SPEC §3.5).

Each family is a property of φ, checked exactly with sympy, that implies linear relations among
the type-1 terms ∂^t ū (ū = exp(xᵀMx)·φ(aᵀx)). For a probe, every implied relation becomes a
*template*: exact coefficients on labelled columns. A numerical null space is then explained by
the templates that lie in it; what is left is reported raw.

- **zero second derivative**, φ'' ≡ 0: each ∂²ū/∂a_j∂a_k ≡ 0.
- **Euler/homogeneity**, zφ' = kφ (φ = C·z^k; the identity's PDE (5) is k = 1):
  Σ_j a_j ∂ū/∂a_j − k·ū = 0, and its derivatives in every parameter (the relation holds for
  all θ, so may be differentiated); across components with one M and a₂ = λa₁:
  ∂^t ū(θ₂) = λ^(k−m) ∂^t ū(θ₁), m = |t₂|.
- **heat type**, φ'' = cφ (c ≠ 0; exp, sin, cosh, …): ∂ū/∂M_jk = (w_jk/c)·∂²ū/∂a_j∂a_k,
  w_jk = 1 if j = k else 2 (∂(xᵀMx)/∂M_jk = w_jk x_j x_k).
- **Gaussian type**, φ'' = c·z·φ' (erf; φ' a Gaussian): ∂²ū/∂a_j∂a_k = c Σ_l a_l ∂²ū/∂M_jk∂a_l / w_jk.
- **symmetry**, φ(−z) = sφ(z) + q(z), s = ±1, q a polynomial: with one M and a₂ = −a₁,
  ∂^t ū(θ₂) = (−1)^m s ∂^t ū(θ₁) wherever q^(m) ≡ 0; and when q = q₁z (softplus, SiLU), for
  m = 0 and |t| ≤ 1: ∂^t ū(θ₂) − s ∂^t ū(θ₁) + Σ_j a₁ⱼ (∂^t∂_{a_j} ū(θ₂) + s ∂^t∂_{a_j} ū(θ₁)) = 0.
- **polynomial**, φ of degree k ≤ 2: with one M, the Taylor expansion in a terminates:
  ∂^t ū(M, a₂) = Σ_{|s| ≤ k−m} (a₂ − a₁)^s / s! ∂^{t+s} ū(M, a₁), when every term is in the set.
- **a = 0**, for every φ: φ''(0)·∂ū/∂M_jk − w_jk φ(0)·∂²ū/∂a_j∂a_k = 0.
- **ode**, Lφ = 0 for an operator L = Σ c_{i,m} z^i ∂^m (m ≤ 2, rational c) of a shape S_s whose
  terms the set has (:mod:`ode`: guessed, then proved by sympy): x^β·(Lφ)(aᵀx)·e = 0, |β| = s,
  z^i = (aᵀx)^i expanded, each e·x^α·φ^(m) read as a term (:func:`_monomial_term`). An operator
  outside the shapes (exp's φ' − φ) needs monomials the set lacks: skipped (φ'' − φ is found).
  Apart (:func:`ode_templates_for`), tried only after every named family and only where they
  leave a relation unexplained: zφ' = φ, φ'' = cφ, … are operators of the shapes too, and an
  ODE must not hide their names.
"""

from __future__ import annotations

import itertools

import sympy as sp

from ..activation import Z
from ..probes import Probe
from ..terms import TermSet
from .base import Template
from .ode import phi_odes
from .phi import PhiProperties, phi_properties

__all__ = ["ODE", "PhiProperties", "Template", "ode_templates_for", "phi_properties", "templates_for"]


def _w(j: int, k: int) -> int:
    return 1 if j == k else 2


def _m(j, k):
    return f"M{j + 1}{k + 1}"


class _Builder:
    """Turns derivative-keyed relations into column templates for one probe."""

    def __init__(self, term_set: TermSet, probe: Probe):
        self.ts = term_set
        self.order = {name: i for i, name in enumerate(term_set.param_names)}
        self.n = len(term_set.terms)
        self.values = [term_set.numeric_params(c.M, c.a) for c in probe.components]
        self.templates: list[Template] = []

    def key(self, names) -> tuple:
        return tuple(sorted(names, key=self.order.__getitem__))

    def add(self, family, hypothesis, parts):
        """parts: list of (component, {derivative key: coefficient expr})."""
        columns: dict[int, sp.Expr] = {}
        for comp, relation in parts:
            for derivative, coeff in relation.items():
                if derivative not in self.ts.index:
                    return  # needs a term outside the set
                position, factor = self.ts.index[derivative]
                value = sp.sympify(coeff).xreplace(self.values[comp]) * factor
                column = comp * self.n + position
                columns[column] = columns.get(column, 0) + value
        columns = {c: v for c, v in columns.items() if v != 0}
        if columns:
            self.templates.append(Template(family, hypothesis, tuple(columns.items())))

    def with_derivatives(self, relation: dict) -> list[dict]:
        """The relation and its first derivatives in every parameter (it holds for all θ)."""
        out = [relation]
        for q in self.ts.params:
            derived: dict = {}
            for key, coeff in relation.items():
                dc = sp.diff(coeff, q)
                if dc != 0:
                    derived[key] = derived.get(key, 0) + dc
                longer = self.key(key + (q.name,))
                derived[longer] = derived.get(longer, 0) + coeff
            out.append(derived)
        return out


def templates_for(term_set: TermSet, derivatives: tuple, probe: Probe) -> list[Template]:
    """All family relations that φ's proved properties imply on this probe's columns."""
    props = phi_properties(derivatives)
    b = _Builder(term_set, probe)
    d = term_set.dim
    a = term_set.a_symbols()
    m_keys = [(j, k) for j in range(d) for k in range(j, d)]
    comps = probe.components
    for c in range(len(comps)):
        if props.euler is not None:
            k_e = props.euler
            base = {(f"a{j + 1}",): a[j] for j in range(d)}
            base[()] = -k_e
            for relation in b.with_derivatives(base):
                b.add("Euler/homogeneity", f"z*phi' = {k_e}*phi", [(c, relation)])
        if props.heat is not None:
            for j, k in m_keys:
                relation = {(_m(j, k),): 1, (f"a{j + 1}", f"a{k + 1}"): -sp.Integer(_w(j, k)) / props.heat}
                b.add("heat type", f"phi'' = {props.heat}*phi", [(c, relation)])
        if props.gaussian is not None:
            for j, k in m_keys:
                relation = {(f"a{j + 1}", f"a{k + 1}"): 1}
                for l in range(d):
                    relation[b.key((_m(j, k), f"a{l + 1}"))] = -props.gaussian * a[l] / _w(j, k)
                b.add("Gaussian type", f"phi'' = {props.gaussian}*z*phi'", [(c, relation)])
        if props.zero_second:
            for j, k in m_keys:
                b.add("zero second derivative", "phi'' = 0", [(c, {(f"a{j + 1}", f"a{k + 1}"): 1})])
        if all(v == 0 for v in comps[c].a):
            phi0, d2_0 = derivatives[0].subs(Z, 0), derivatives[2].subs(Z, 0)
            for j, k in m_keys:
                pairs = (
                    [{(_m(j, k),): d2_0, (f"a{j + 1}", f"a{k + 1}"): -_w(j, k) * phi0}]
                    if (phi0, d2_0) != (0, 0)
                    else [{(_m(j, k),): 1}, {(f"a{j + 1}", f"a{k + 1}"): 1}]
                )
                for relation in pairs:
                    b.add("a = 0", "phi(0*x) is constant (holds for every phi)", [(c, relation)])
    all_keys = list(term_set.index)
    for c1, c2 in itertools.permutations(range(len(comps)), 2):
        if comps[c1].M != comps[c2].M:
            continue
        a1, a2 = comps[c1].a, comps[c2].a
        ratio = _ratio(a2, a1)
        if props.euler is not None and ratio is not None and c1 < c2:
            for key in all_keys:
                m = sum(1 for n in key if n.startswith("a"))
                factor = ratio ** (props.euler - m)
                b.add(
                    "Euler/homogeneity", f"phi(l*z) = l**{props.euler}*phi(z)", [(c2, {key: 1}), (c1, {key: -factor})]
                )
        if props.symmetry is not None and ratio == -1 and c1 < c2:
            s, q = props.symmetry
            for key in sorted(all_keys, key=lambda k: sp.diff(q, Z, sum(1 for n in k if n.startswith("a"))) != 0):
                m = sum(1 for n in key if n.startswith("a"))
                hyp = f"phi(-z) = {s}*phi(z) + ({q})"
                if sp.diff(q, Z, m) == 0:
                    b.add("symmetry", hyp, [(c2, {key: 1}), (c1, {key: -((-1) ** m) * s})])
                elif m == 0 and len(key) <= 1 and q.is_polynomial(Z) and sp.degree(q, Z) == 1 and q.subs(Z, 0) == 0:
                    # q = q1·z: e·x^α·q(aᵀx) is itself a combination of the a-derivatives
                    rel_c2, rel_c1 = {key: 1}, {key: -s}
                    for j in range(d):
                        rel_c2[b.key(key + (f"a{j + 1}",))] = a1[j]
                        rel_c1[b.key(key + (f"a{j + 1}",))] = s * a1[j]
                    b.add("symmetry", hyp, [(c2, rel_c2), (c1, rel_c1)])
        if props.degree is not None and props.degree <= 2 and c1 < c2:
            delta = [x2 - x1 for x1, x2 in zip(a1, a2)]
            for key in all_keys:
                m = sum(1 for n in key if n.startswith("a"))
                relation_c1: dict = {}
                for size in range(0, props.degree - m + 1):
                    for s_idx in itertools.combinations_with_replacement(range(d), size):
                        coeff = sp.Integer(1)
                        for l in s_idx:
                            coeff *= delta[l]
                        for _, group in itertools.groupby(s_idx):
                            coeff /= sp.factorial(len(list(group)))
                        longer = b.key(key + tuple(f"a{l + 1}" for l in s_idx))
                        relation_c1[longer] = relation_c1.get(longer, 0) - coeff
                b.add("polynomial", f"phi has degree {props.degree}", [(c2, {key: 1}), (c1, relation_c1)])
    return b.templates


def _ratio(a2, a1):
    """λ with a2 = λ·a1 exactly, or None."""
    pivot = next((i for i, v in enumerate(a1) if v != 0), None)
    if pivot is None:
        return None
    lam = a2[pivot] / a1[pivot]
    return lam if all(y == lam * x for x, y in zip(a1, a2)) else None


ODE = "ode"  # the family name of the relations an ODE of φ implies (its hypothesis: the equation)


def _monomial_term(b: _Builder, alpha: tuple, m: int):
    """(derivative key, factor) with e·x^α·φ^(m) = factor·∂^key ū (module docstring), or None
    when no term of the set has that form."""
    idx = [j for j, power in enumerate(alpha) for _ in range(power)]
    if m == 0 and len(idx) == 0:
        return (), sp.Integer(1)
    if m == 0 and len(idx) == 2:
        j, k = idx
        return (_m(j, k),), sp.Rational(1, _w(j, k))
    if m == 0 and len(idx) == 4:
        j, k, l, n = idx
        return b.key((_m(j, k), _m(l, n))), sp.Rational(1, _w(j, k) * _w(l, n))
    if m == 1 and len(idx) == 1:
        return (f"a{idx[0] + 1}",), sp.Integer(1)
    if m == 1 and len(idx) == 3:
        j, k, l = idx
        return b.key((_m(j, k), f"a{l + 1}")), sp.Rational(1, _w(j, k))
    if m == 2 and len(idx) == 2:
        j, k = idx
        return (f"a{j + 1}", f"a{k + 1}"), sp.Integer(1)
    return None


def ode_templates_for(
    term_set: TermSet, derivatives: tuple, probe: Probe, timed_out: list | None = None
) -> list[Template]:
    """The ``ode`` family's templates on this probe (module docstring): for every proved
    annihilator L of shape S_s (:func:`phi_odes`), every component and every x^β with |β| = s,
    the relation x^β·(Lφ)(aᵀx)·e = 0 on that component's columns. ``timed_out`` (a list) gets
    ``"ode"`` when a proof ran out of time."""
    odes, late = phi_odes(tuple(derivatives), term_set.dim)
    if timed_out is not None:
        timed_out.extend(late)
    b = _Builder(term_set, probe)
    x, a = term_set.x, term_set.a_symbols()
    z = sum(aj * xj for aj, xj in zip(a, x))
    for c in range(len(probe.components)):
        for s, operator in odes:
            for beta in itertools.combinations_with_replacement(range(term_set.dim), s):
                multiplier = sp.Mul(*(x[j] for j in beta))
                relation: dict = {}
                for i, m, coeff in operator.coefficients:
                    for alpha, value in sp.Poly(sp.expand(multiplier * z**i), *x).terms():
                        term = _monomial_term(b, alpha, m)
                        if term is None:
                            relation = None  # a monomial the term set does not have
                            break
                        key, factor = term
                        relation[key] = relation.get(key, 0) + coeff * value * factor
                    if relation is None:
                        break
                if relation:
                    b.add(ODE, operator.text(), [(c, relation)])
    return [
        Template(t.family, t.hypothesis, tuple(sorted(t.coefficients, key=lambda cv: cv[0]))) for t in b.templates
    ]  # in term order
