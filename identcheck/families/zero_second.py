"""Zero second derivative, φ'' ≡ 0 (φ affine): every term that carries φ'' is the zero function.

Type-1: ∂²ū/∂a_j∂a_k = x_j x_k e φ''(aᵀx) ≡ 0 (:func:`type1_templates`); type-2: every full term
with φ''(f^k) (:func:`type2_parts`). An expert linear in one of its parameters has the same shape
among its own members (∂²h/∂c² = 0: :mod:`.reach` names it "linear in a parameter").
"""

from __future__ import annotations

from .base import Family

__all__ = ["FAMILY", "ZERO_SECOND", "type1_templates", "type2_parts"]

FAMILY = Family("zero second derivative", "phi'' = 0")
ZERO_SECOND = "zero second derivative"


def type1_templates(b, dim, component) -> None:
    for j in range(dim):
        for k in range(j, dim):
            b.add(ZERO_SECOND, "phi'' = 0", [(component, {(f"a{j + 1}", f"a{k + 1}"): 1})])


def type2_parts(terms, columns):
    """Each type-2 term (of ``columns``) that carries φ'': its parts."""
    for c in columns:
        if terms[c].phi_order == 2:
            yield [(terms[c].key, 1)]
