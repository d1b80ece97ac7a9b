"""Gaussian type, φ'' = c·z·φ' (erf: φ' a Gaussian), on type-1 terms.

∂²ū/∂a_j∂a_k = x_j x_k e φ''(aᵀx) = c·x_j x_k e (aᵀx) φ'(aᵀx) = c Σ_l a_l x_l x_j x_k e φ', and
∂²ū/∂M_jk∂a_l = w_jk x_j x_k x_l e φ': so ∂²ū/∂a_j∂a_k = c Σ_l a_l ∂²ū/∂M_jk∂a_l / w_jk.
"""

from __future__ import annotations

from .base import Family, m_name, weight

__all__ = ["FAMILY", "GAUSSIAN", "type1_templates"]

FAMILY = Family("Gaussian type", "phi'' = c*z*phi', c != 0")
GAUSSIAN = "Gaussian type"


def type1_templates(b, c, a, component) -> None:
    """∂²ū/∂a_j∂a_k − c Σ_l a_l ∂²ū/∂M_jk∂a_l / w_jk = 0 for every j ≤ k (``a``: the a-symbols)."""
    dim = len(a)
    for j in range(dim):
        for k in range(j, dim):
            relation = {(f"a{j + 1}", f"a{k + 1}"): 1}
            for l in range(dim):
                relation[b.key((m_name(j, k), f"a{l + 1}"))] = -c * a[l] / weight(j, k)
            b.add(GAUSSIAN, f"phi'' = {c}*z*phi'", [(component, relation)])
