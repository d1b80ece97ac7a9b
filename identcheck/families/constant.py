"""A product of members equal to a constant: ∂h/∂u·∂h/∂v ≡ c (or one member ≡ c).

A set that offers a constant column (DeepSeekMoE's S2 = {∂h/∂κ⁽ᵘ⁾·∂h/∂κ⁽ᵛ⁾} ∪ {1}) is dependent as
soon as one of its members is a constant: the linear expert h = κ1ᵀx + κ0 has ∂h/∂κ0 = 1, so
(∂h/∂κ0)² = 1 coincides with the set's 1 — the paper's reason that linear experts fail
Definition 1. The relation is named by its shape (one member and the constant column,
:func:`name`), read from the columns' structural keys; :func:`constant_for_every_theta` says
whether the member is that constant for every θ (sympy), not only at the probed atom.
"""

from __future__ import annotations

import sympy as sp

from .base import Family

__all__ = ["CONSTANT", "FAMILY", "constant_for_every_theta", "name"]

FAMILY = Family("product equal to a constant", "dh/du * dh/dv = c for every x")
CONSTANT = "a member equals the constant 1"


def name(members) -> str | None:
    """:data:`CONSTANT` for a relation between the constant column and members of one atom
    (``members``: :func:`~identcheck.families.base.structure`); else None."""
    constant = [m for m in members if m.kind == "1"]
    others = [m for m in members if m.kind != "1"]
    return CONSTANT if len(constant) == 1 and len(others) == 1 else None


def member_expr(expert, member) -> sp.Expr:
    """The member of h (symbolic in x and θ)."""
    flat = {p.name: p for p in expert.params}
    first = [sp.diff(expert.h, flat[n]) for n in member.names]
    if member.kind == "prod":
        return first[0] * first[1]
    if member.kind == "dd":
        return sp.diff(expert.h, *(flat[n] for n in member.names))
    return first[0] * (expert.x[member.w - 1] if member.kind == "x" else 1)


def constant_for_every_theta(expert, members) -> bool:
    """The relation's member equals its constant for every x and θ (``expand`` proves it)."""
    if name(members) is None:
        return False
    (one,) = [m for m in members if m.kind == "1"]
    (member,) = [m for m in members if m.kind != "1"]
    return sp.expand(member_expr(expert, member) + one.coefficient / member.coefficient) == 0
