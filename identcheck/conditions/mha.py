"""Plain multi-head attention (no gate): the linear expert u(x; M, a) = exp(xᵀMx)·aᵀx.

Type-1's construction with φ(z) = z — the contrast of the paper: the PDE (5),
Σ_j a_j ∂u/∂a_j = u, makes every probe dependent.
"""

from __future__ import annotations

import dataclasses

from ..activation import parse_activation
from .type1 import Type1

__all__ = ["MHA"]


class MHA(Type1):
    name = "mha"
    base = "u"

    @classmethod
    def activation_for(cls, phi=None, params=None):
        return dataclasses.replace(parse_activation("z"), text="z (linear expert, no gate)")
