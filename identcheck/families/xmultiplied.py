"""x-multiplied derivatives equal to other derivatives: x_w·∂h/∂v = r·∂^t h.

An expert that sees x only through a ridge η1ᵀx has ∂h/∂η1⁽ᵘ⁾ = x_u·g for one function g, so:

- **bias shift**: any f(η1ᵀx + η0) has ∂h/∂η1⁽ᵘ⁾ = x_u·∂h/∂η0 (:data:`BIAS_SHIFT`; the paper's
  ∂h2/∂η1 = x·∂h2/∂η0 for linear experts);
- **x-swap of a ridge direction**: any f(η1ᵀx) at d ≥ 2 has x_u·∂h/∂η1⁽ᵛ⁾ = x_v·∂h/∂η1⁽ᵘ⁾
  (:data:`X_SWAP`: DeepSeekMoE's S3 as written is dependent for every ridge expert);
- any other two members of one atom, one of them x-multiplied (exp(η1ᵀx): ∂²h/∂η1⁽ᵘ⁾∂η1⁽ᵛ⁾ =
  x_u·∂h/∂η1⁽ᵛ⁾): :data:`X_MULTIPLIED`.

A condition offers the structure through its columns' keys — which members are x_w·∂h/∂v
(``("x", w, (v,))``), which parameters are entries of a vector and which index they carry
(the expert's ``labels``): :func:`expert_name`, never a label's text beyond the vector's name.
"""

from __future__ import annotations

from .base import Family

__all__ = ["BIAS_SHIFT", "FAMILY", "X_MULTIPLIED", "X_SWAP", "expert_name"]

FAMILY = Family("x-multiplied derivative", "x_w * dh/dv equals another derivative of h")
X_SWAP = "x-swap of a ridge direction (x_u·∂h/∂p⁽ᵛ⁾ = x_v·∂h/∂p⁽ᵘ⁾)"
BIAS_SHIFT = "bias shift (∂h/∂p⁽ᵘ⁾ = x_u·∂h/∂b)"
X_MULTIPLIED = "x-multiplied derivative (x_w·∂h/∂v = c·another derivative)"


def _vectors(expert) -> tuple[dict, dict]:
    """(owner: parameter name → the expert's parameter it belongs to, index: a vector entry's name → u)."""
    owner = {p.name: label.split("⁽")[0] for p, label in zip(expert.params, expert.labels)}
    index = {p.name: int(p.name.rsplit("_", 1)[1]) for p in expert.params if owner[p.name] in expert.vectors}
    return owner, index


def expert_name(expert, members) -> str | None:
    """The name of a two-member relation of one atom with an x-multiplied member (``members``:
    :func:`~identcheck.families.base.structure`), or None."""
    if len(members) != 2 or any(m.atom is None for m in members) or members[0].atom != members[1].atom:
        return None
    x_members = [m for m in members if m.kind == "x"]
    if not x_members:
        return None
    owner, index = _vectors(expert)
    a, b = members
    opposite = a.coefficient == -b.coefficient
    if len(x_members) == 2:
        u, v = a.names[0], b.names[0]
        if {u, v} <= set(index) and owner[u] == owner[v] and (a.w, index[u]) == (index[v], b.w) and opposite:
            return X_SWAP
        return None
    (x,) = x_members
    (first,) = [m for m in members if m.kind != "x"]
    if first.kind == "d" and first.names[0] in index and x.names[0] not in index and index[first.names[0]] == x.w:
        if opposite:
            return BIAS_SHIFT
    return X_MULTIPLIED if first.kind in ("d", "dd") else None
