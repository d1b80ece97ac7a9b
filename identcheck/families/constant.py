"""A member equal to a constant: ∂h/∂u·∂h/∂v ≡ c (or one member ≡ c), against a set's constant column.

A set that offers a constant column (DeepSeekMoE's S2 = {∂h/∂κ⁽ᵘ⁾·∂h/∂κ⁽ᵛ⁾} ∪ {1}) is dependent as
soon as one of its members is a constant: the linear expert h = κ1ᵀx + κ0 has ∂h/∂κ0 = 1, so
(∂h/∂κ0)² = 1 coincides with the set's 1 — the paper's reason that linear experts fail
Definition 1. The relation is named by its shape, read from the columns' structural keys
(:func:`name`): one member and the constant column. The relation itself is proved on its probe
by the condition's prover; whether it holds for every θ is its *reach*
(:mod:`~identcheck.families.reach`), not part of the name. The name says which constant: the
set's 1 itself (``(∂h/∂κ0)² = 1``) or another multiple of it (``dot(k1, x) + 2*k0``:
``(∂h/∂k0)² = 4``).
"""

from __future__ import annotations

from .base import Family

__all__ = ["CONSTANT", "CONSTANT_MULTIPLE", "FAMILY", "name"]

FAMILY = Family("product equal to a constant", "dh/du * dh/dv = c for every x")
CONSTANT = "a member equals the constant 1"
CONSTANT_MULTIPLE = "a member equals a constant (a multiple of the set's 1)"


def name(members) -> str | None:
    """:data:`CONSTANT` (the member equals the set's 1) or :data:`CONSTANT_MULTIPLE` (another constant)
    for a relation between the constant column and one member (``members``:
    :func:`~identcheck.families.base.structure`, exact coefficients); else None."""
    constant = [m for m in members if m.kind == "1"]
    others = [m for m in members if m.kind != "1"]
    if len(constant) != 1 or len(others) != 1:
        return None
    value = -constant[0].coefficient / others[0].coefficient  # member + (c1/cm)·1 = 0 → member = value
    return CONSTANT if value == 1 else CONSTANT_MULTIPLE
