"""Polynomial φ of degree k ≤ 2: with one M, the Taylor expansion in a terminates.

∂^t ū(M, a₂) = Σ_{|s| ≤ k−m} (a₂ − a₁)^s / s! ∂^{t+s} ū(M, a₁), m = |t| in a, when every term is
in the set (a relation needing a term outside it is dropped).
"""

from __future__ import annotations

import itertools

import sympy as sp

from .base import Family

__all__ = ["FAMILY", "POLYNOMIAL", "type1_templates"]

FAMILY = Family("polynomial", "phi has degree k <= 2")
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
