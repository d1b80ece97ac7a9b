"""The box Θ of a fit (assumption A.1): bounds lo ≤ θ ≤ hi on the flat parameter vector.

``Box.around(truth, H, N, K, factor)``: ω ∈ [0, factor·max ω*], every free entry of M in
±factor·max|M*|, every entry of a in ±factor·max|a*| (factor 2 by default), laid out as
θ = (ω, m, a) (:mod:`numeric.model.attention_params`). The box is part of the estimator: unconstrained, a
converged fit of an over-specified gated model lowers its training MSE below the truth's by
sending redundant channels' experts far out with tiny weights, which is not the estimator the
theory describes. It is reported with every fit, with the parameters that end on a bound:
θ_j counts as on a bound when it is within BOUND_TOLERANCE·(hi_j − lo_j) of it (ω = 0 excluded:
a switched-off channel is not a box effect).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..model.attention_params import HMoEParams, NumericError

__all__ = ["Box", "BOUND_TOLERANCE"]

#: A parameter within this fraction of the box's span from a bound counts as on the bound.
BOUND_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Box:
    """Bounds lo ≤ θ ≤ hi on the flat parameter vector, and how they were chosen."""

    lo: np.ndarray = field(repr=False)
    hi: np.ndarray = field(repr=False)
    description: str = ""

    @classmethod
    def around(cls, truth: HMoEParams, H: int, N: int, K: int, factor: float = 2.0) -> "Box":
        if not (isinstance(factor, (int, float)) and np.isfinite(factor) and factor > 0):
            raise NumericError(f"box factor={factor!r}: must be a positive number")
        d = truth.dim
        p = d * (d + 1) // 2
        w_max = factor * float(truth.omega.max())
        m_max = factor * float(np.abs(truth.M).max())
        a_max = factor * float(np.abs(truth.a).max())
        sizes = (H * K, H * (N - 1) * p, H * N * K * d)
        lo = np.concatenate([np.zeros(sizes[0]), np.full(sizes[1], -m_max), np.full(sizes[2], -a_max)])
        hi = np.concatenate([np.full(sizes[0], w_max), np.full(sizes[1], m_max), np.full(sizes[2], a_max)])
        text = (
            f"omega in [0, {w_max:g}], M entries in [-{m_max:g}, {m_max:g}], a entries in [-{a_max:g}, {a_max:g}] "
            f"(factor {factor:g} x truth)"
        )
        return cls(lo, hi, text)

    def clip(self, theta: np.ndarray) -> np.ndarray:
        return np.clip(theta, self.lo, self.hi)

    def active(self, theta: np.ndarray, tol: float = BOUND_TOLERANCE) -> np.ndarray:
        """Indices of parameters on a bound (ω = 0 excluded: a switched-off channel is not a box effect)."""
        span = self.hi - self.lo
        at_hi = theta >= self.hi - tol * span
        at_lo = (theta <= self.lo + tol * span) & (self.lo != 0)
        return np.flatnonzero(at_hi | at_lo)
