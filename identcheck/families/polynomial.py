"""Polynomial φ: every type-1 term is exp(xᵀMx) times a polynomial in x.

Degree k ≤ 2, with one M (:func:`type1_templates`): the Taylor expansion in a terminates,

    ∂^t ū(M, a₂) = Σ_{|s| ≤ k−m} (a₂ − a₁)^s / s! ∂^{t+s} ū(M, a₁),    m = |t| in a,

when every term is in the set (a relation needing a term outside it is dropped).

Any degree (:func:`exact_templates`): on the components that share one M, each column is
exp(xᵀMx)·p_c(x) with p_c = c·x^α·φ^(m)(aᵀx) a polynomial, and exp(xᵀMx) of distinct M are
independent over the polynomials, so the probe's relations are exactly the null space of the
matrix of the p_c's coefficients (rows: monomials of x) — found by exact rational elimination
(:func:`polynomial_null_space`), nothing guessed. The same elimination reads the polynomial parts
a sign symmetry leaves (:func:`identcheck.families.symmetry.exact_templates`).
"""

from __future__ import annotations

import itertools

import sympy as sp

from ..parse.activation import Z
from ..terms.type1 import substitute_phi
from .base import Family, Template

__all__ = [
    "FAMILY",
    "POLYNOMIAL",
    "exact_templates",
    "polynomial_null_space",
    "shared_m_groups",
    "type1_templates",
]

FAMILY = Family("polynomial", "phi is a polynomial")
POLYNOMIAL = "polynomial"


def type1_templates(b, degree, keys, a1, a2, c1, c2) -> None:
    """Components c1, c2 with one M (``keys``: every derivative key of the set)."""
    dim = len(a1)
    delta = [x2 - x1 for x1, x2 in zip(a1, a2)]
    for key in keys:
        m = sum(1 for n in key if n.startswith("a"))
        relation_c1: dict = {}
        for size in range(0, degree - m + 1):
            for s_idx in itertools.combinations_with_replacement(range(dim), size):
                coeff = sp.Integer(1)
                for l in s_idx:
                    coeff *= delta[l]
                for _, group in itertools.groupby(s_idx):
                    coeff /= sp.factorial(len(list(group)))
                longer = b.key(key + tuple(f"a{l + 1}" for l in s_idx))
                relation_c1[longer] = relation_c1.get(longer, 0) - coeff
        b.add(POLYNOMIAL, f"phi has degree {degree}", [(c2, {key: 1}), (c1, relation_c1)])


def polynomial_null_space(polynomials: list, x: tuple) -> list[list]:
    """A basis of {λ : Σ_c λ_c p_c ≡ 0} for polynomials p_c in ``x`` (exact rationals; sympy's
    reduced row echelon form, so the same basis on every machine), each a list of λ_c."""
    rows: dict = {}
    for c, p in enumerate(polynomials):
        for monomial, value in sp.Poly(p, *x).terms():
            rows.setdefault(monomial, [sp.Integer(0)] * len(polynomials))[c] = value
    if not rows:  # every p_c ≡ 0
        return [[sp.Integer(int(i == c)) for i in range(len(polynomials))] for c in range(len(polynomials))]
    return [list(v) for v in sp.Matrix(list(rows.values())).nullspace()]


def shared_m_groups(probe) -> list[list[int]]:
    """The probe's components grouped by their M (0-based indices, in order)."""
    groups: dict = {}
    for c, component in enumerate(probe.components):
        groups.setdefault(component.M, []).append(c)
    return list(groups.values())


def exact_templates(term_set, derivatives: tuple, probe):
    """Every relation of a polynomial φ on this probe (any degree), one template per basis vector
    of each shared-M group's null space; nothing when φ is not a polynomial in z."""
    phi = derivatives[0]
    if not phi.is_polynomial(Z):
        return
    degree = sp.degree(phi, Z)
    n = len(term_set.terms)
    for group in shared_m_groups(probe):
        columns, polynomials = [], []
        for c in group:
            values = term_set.numeric_params(probe.components[c].M, probe.components[c].a)
            for position, term in enumerate(term_set.terms):
                columns.append(c * n + position)
                polynomials.append(sp.expand(substitute_phi(term.reduced.xreplace(values), derivatives)))
        for vector in polynomial_null_space(polynomials, term_set.x):
            coefficients = tuple((columns[i], v) for i, v in enumerate(vector) if v != 0)
            yield Template(POLYNOMIAL, f"phi has degree {degree}", coefficients)
