"""Plain multi-head attention (no gate): the linear expert u(x; M, a) = exp(xᵀMx)·aᵀx.

Type-1's construction with φ(z) = z — the contrast of the paper: the PDE (5),
Σ_j a_j ∂u/∂a_j = u, makes every probe dependent.
"""

from __future__ import annotations

import dataclasses

from ..errors import IdentcheckError
from ..parse.activation import parse_activation
from ..scope import LINEAR_EXPERT
from .type1 import Type1

__all__ = ["MHA"]

TEXT = "z (linear expert, no gate)"  # the activation's text in results (and in their JSON)


class MHA(Type1):
    name = "mha"
    scope = LINEAR_EXPERT
    base = "u"
    subject = None  # it judges the linear expert itself: no PHI (but z, the expert), no --expert, no --param

    @classmethod
    def activation_for(cls, phi=None, params=None):
        """The linear expert; a φ other than z (or None), or params, are refused: there is no gate."""
        if params:
            name, value = next(iter(params.items()))
            raise IdentcheckError(
                param="params",
                key=name,
                shown=str(value).strip(),  # as given: --param b=1e-3 reads back as typed
                reason=f"condition {cls.name!r} takes no phi and no constants: the expert is linear",
            )
        if phi is not None and not (isinstance(phi, str) and phi.strip() in ("z", TEXT)):
            raise IdentcheckError(
                param="phi",
                value=phi,
                reason=f"condition {cls.name!r} takes no phi: the expert is linear (that is the point of the contrast)",
            )
        return dataclasses.replace(parse_activation("z"), text=TEXT)
