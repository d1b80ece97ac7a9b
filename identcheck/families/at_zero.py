"""a = 0, for every φ: a component with a = 0 has ū = exp(xᵀMx)·φ(0), φ at a constant.

Then ∂ū/∂M_jk = w_jk x_j x_k φ(0) e and ∂²ū/∂a_j∂a_k = x_j x_k φ''(0) e, so
φ''(0)·∂ū/∂M_jk − w_jk φ(0)·∂²ū/∂a_j∂a_k = 0; when φ(0) = φ''(0) = 0 both terms vanish.
"""

from __future__ import annotations

from ..parse.activation import Z
from .base import Family, m_name, weight

__all__ = ["AT_ZERO", "FAMILY", "type1_templates"]

FAMILY = Family("a = 0", "phi(0*x) is constant (holds for every phi)")
AT_ZERO = "a = 0"


def type1_templates(b, derivatives, dim, component) -> None:
    """The relations of a component with a = 0 (``derivatives``: φ, φ', φ'')."""
    phi0, d2_0 = derivatives[0].subs(Z, 0), derivatives[2].subs(Z, 0)
    for j in range(dim):
        for k in range(j, dim):
            a_jk = (f"a{j + 1}", f"a{k + 1}")
            pairs = (
                [{(m_name(j, k),): d2_0, a_jk: -weight(j, k) * phi0}]
                if (phi0, d2_0) != (0, 0)
                else [{(m_name(j, k),): 1}, {a_jk: 1}]
            )
            for relation in pairs:
                b.add(AT_ZERO, FAMILY.hypothesis, [(component, relation)])
