"""The type-1 families: which property of φ makes which type-1 terms dependent (docs/method.md §4).

Each family (one module each; the general ones, :mod:`.homogeneity` and :mod:`.symmetry`, serve
the other conditions too) is a property of φ, checked exactly with sympy, that implies linear relations among
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
  terms the set has (:mod:`.ode`: guessed, then proved by sympy): x^β·(Lφ)(aᵀx)·e = 0, |β| = s,
  z^i = (aᵀx)^i expanded, each e·x^α·φ^(m) read as a term (:func:`.ode._monomial_term`). An operator
  outside the shapes (exp's φ' − φ) needs monomials the set lacks: skipped (φ'' − φ is found).
  Apart (:func:`.ode.ode_templates_for`), tried only after every named family and only where they
  leave a relation unexplained: zφ' = φ, φ'' = cφ, … are operators of the shapes too, and an
  ODE must not hide their names.
"""

from __future__ import annotations

import itertools

from ..terms.probes import Probe
from ..terms.type1 import TermSet
from . import at_zero, gaussian, heat, homogeneity, polynomial, symmetry, zero_second
from .base import Builder, Template
from .ode import ODE, ode_templates_for
from .phi import PhiProperties, phi_properties

__all__ = [
    "ODE",
    "PhiProperties",
    "Template",
    "exact_templates_for",
    "ode_templates_for",
    "phi_properties",
    "templates_for",
]


def templates_for(term_set: TermSet, derivatives: tuple, probe: Probe) -> list[Template]:
    """All family relations that φ's proved properties imply on this probe's columns (each
    family's module writes its own; the order here is the order relations are recognised in)."""
    props = phi_properties(derivatives)
    b = Builder(term_set, probe)
    d = term_set.dim
    a = term_set.a_symbols()
    comps = probe.components
    for c in range(len(comps)):
        if props.euler is not None:
            homogeneity.type1_templates(b, props.euler, a, c)
        if props.heat is not None:
            heat.type1_templates(b, props.heat, d, c)
        if props.gaussian is not None:
            gaussian.type1_templates(b, props.gaussian, a, c)
        if props.zero_second:
            zero_second.type1_templates(b, d, c)
        if all(v == 0 for v in comps[c].a):
            at_zero.type1_templates(b, derivatives, d, c)
    all_keys = list(term_set.index)
    for c1, c2 in itertools.permutations(range(len(comps)), 2):
        if comps[c1].M != comps[c2].M or c1 > c2:
            continue
        a1, a2 = comps[c1].a, comps[c2].a
        ratio = _ratio(a2, a1)
        if props.euler is not None and ratio is not None:
            homogeneity.rescaled(b, props.euler, ratio, c1, c2, all_keys)
        if props.symmetry is not None and ratio == -1:
            symmetry.type1_templates(b, props.symmetry, all_keys, a1, c1, c2)
        if props.degree is not None and props.degree <= 2:
            polynomial.type1_templates(b, props.degree, all_keys, a1, a2, c1, c2)
    return b.templates


def exact_templates_for(term_set: TermSet, derivatives: tuple, probe: Probe):
    """The relations read exactly from polynomials in x (a generator: computed only as far as they
    are asked for): a symmetry's with a polynomial q ≠ 0 (:func:`.symmetry.exact_templates`), then a
    polynomial φ's of any degree (:func:`.polynomial.exact_templates`). Offered after
    :func:`templates_for`'s, where those leave part of a null space unexplained."""
    props = phi_properties(derivatives)
    if props.symmetry is not None and props.symmetry[1] != 0:
        yield from symmetry.exact_templates(term_set, props.symmetry, probe)
    if props.degree is not None:
        yield from polynomial.exact_templates(term_set, derivatives, probe)


def _ratio(a2, a1):
    """λ with a2 = λ·a1 exactly, or None."""
    pivot = next((i for i, v in enumerate(a1) if v != 0), None)
    if pivot is None:
        return None
    lam = a2[pivot] / a1[pivot]
    return lam if all(y == lam * x for x, y in zip(a1, a2)) else None
