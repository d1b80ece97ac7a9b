"""Heat type, φ'' = cφ (c ≠ 0: exp, sin, cosh, …), on type-1 terms.

ū = exp(xᵀMx)·φ(aᵀx): ∂ū/∂M_jk = w_jk x_j x_k ū and ∂²ū/∂a_j∂a_k = x_j x_k e φ''(aᵀx) = c·x_j x_k ū,
so ∂ū/∂M_jk = (w_jk/c)·∂²ū/∂a_j∂a_k on every component (w_jk = 1 if j = k else 2).
"""

from __future__ import annotations

import sympy as sp

from .base import Family, m_name, weight

__all__ = ["FAMILY", "HEAT", "type1_templates"]

FAMILY = Family("heat type", "phi'' = c*phi, c != 0")
HEAT = "heat type"


def type1_templates(b, c, dim, component) -> None:
    """∂ū/∂M_jk − (w_jk/c)·∂²ū/∂a_j∂a_k = 0 for every j ≤ k (``b``: a :class:`~identcheck.families.base.Builder`)."""
    for j in range(dim):
        for k in range(j, dim):
            relation = {(m_name(j, k),): 1, (f"a{j + 1}", f"a{k + 1}"): -sp.Integer(weight(j, k)) / c}
            b.add(HEAT, f"phi'' = {c}*phi", [(component, relation)])
