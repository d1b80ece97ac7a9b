"""Parameter paths t ↦ G_t with G_0 = G*, and the coordinates they move in.

A path is a function ``build(t)`` returning the model's parameters at t (possibly with more
channels than G*, for a split), with its tangent d = dG/dt at t = 0 in the flat layout
θ = (ω [H·K], m [H·(N−1)·d(d+1)/2], a [H·N·K·d]) of :mod:`numeric.model.attention_params` when it has one.
:func:`index_of` gives the position of ω_{h,k}, m_{h,i,q} and a_{h,i,k,j} in θ.

**Column-scaled Jacobian.** J = ∂g/∂θ on n points (n × P), its columns divided by their norms
(J_s = J/‖columns‖, a zero column left as is), and the SVD J_s = U S Vᵀ. A singular value
s ≤ NULL_TOL·s_max spans the model's numerical null space: a direction the function does not
see to first order. Scaling the columns makes the test independent of the parameters' units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..model.attention_declared import AttentionCode
from ..model.attention_params import HMoEParams

__all__ = ["Path", "NULL_TOL", "COMPENSATION_POINTS", "index_of", "shape_of", "scaled_jacobian", "line_path"]

#: A singular value s of the column-scaled Jacobian with s ≤ NULL_TOL·s_max spans its null space.
NULL_TOL = 1e-8
#: Monte Carlo points the Jacobian's null space (and a split's compensation) is computed on.
COMPENSATION_POINTS = 4000


@dataclass(frozen=True, slots=True)
class Path:
    """t ↦ G_t with G_0 = G*; ``build(t)`` returns HMoEParams (maybe with more channels)."""

    kind: str  # "witness" | "probe" | "random" | "recombination"
    name: str
    construction: str
    truth: HMoEParams = field(repr=False)
    build: Callable[[float], HMoEParams] = field(repr=False)
    note: str = ""
    direction: np.ndarray | None = field(repr=False, default=None)  # dG/dt at t = 0, θ layout (lines and curves)
    limit: float | None = None  # precomputed t → 0 limit (splits)
    sensitivity: float | None = None  # splits: the relative residual ‖Q + Jw‖/‖Q‖


def index_of(params: HMoEParams):
    """(ω(h, k), m(h, i, q), a(h, i, k, j)): positions in θ (module docstring)."""
    H, N, K, d = params.a.shape
    p = d * (d + 1) // 2
    base_m = H * K
    base_a = base_m + H * (N - 1) * p

    def omega(h, k):
        return h * K + k

    def m(h, i, q):
        return base_m + (h * (N - 1) + i) * p + q

    def a(h, i, k, j):
        return base_a + ((h * N + i) * K + k) * d + j

    return omega, m, a


def shape_of(params: HMoEParams):
    """(H, N, K, d): the arguments of :meth:`HMoEParams.from_vector` after θ."""
    return params.H, params.N, params.K, params.dim


def scaled_jacobian(model: AttentionCode, params: HMoEParams, X: np.ndarray):
    """(J, column norms, singular values, Vᵀ) of the column-scaled Jacobian (module docstring)."""
    _, J = model.value_and_jacobian(params, X)
    norms = np.linalg.norm(J, axis=0)
    norms = np.where(norms > 0, norms, 1.0)
    _, s, vt = np.linalg.svd(J / norms, full_matrices=False)
    return J, norms, s, vt


def line_path(kind: str, name: str, construction: str, G: HMoEParams, direction: np.ndarray, note: str = "") -> Path:
    """The straight line G* + t·d (d in the flat layout θ)."""
    theta, shape = G.to_vector(), shape_of(G)
    return Path(
        kind, name, construction, G, lambda t: HMoEParams.from_vector(theta + t * direction, *shape), note, direction
    )
