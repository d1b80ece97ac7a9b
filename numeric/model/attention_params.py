"""The parameters of a hierarchical mixture of experts (docs/method.md §7) and their assumptions.

H heads; each head h has N gating matrices M_{h,1..N} (symmetric d×d, M_{h,N} = 0 fixed) and K
channels k with weights ω_{h,k} ≥ 0 and expert vectors a_{h,i,k} ∈ R^d (one per gating
component i). The free parameters, flattened in this order, are

    θ = (ω [H·K],  m [H·(N−1)·d(d+1)/2],  a [H·N·K·d]),

where m lists the upper triangles (j ≤ l, row-major) of M_{h,1..N−1}: symmetry and
M_{h,N} = 0 hold by construction. Assumptions checked by :meth:`HMoEParams.validate`:

- (A.1) finite entries (the compact box Θ of a fit is :class:`numeric.fitting.attention_box.Box`);
- (A.2) ω ≥ 0, not all zero;
- (A.3) M symmetric, M_{h,N} = 0 (by construction);
- (A.4) every head has some M_{h,i} ≠ 0;
- (A.5) the vectors a_{h,i,k} are pairwise distinct.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import NumericError

__all__ = ["HMoEParams", "NumericError"]


def _upper_indices(d: int):
    return np.triu_indices(d)


@dataclass(frozen=True)
class HMoEParams:
    """ω (H, K), M (H, N, d, d) symmetric with M[:, N-1] = 0, a (H, N, K, d)."""

    omega: np.ndarray = field(repr=False)
    M: np.ndarray = field(repr=False)
    a: np.ndarray = field(repr=False)

    def __post_init__(self):
        for name in ("omega", "M", "a"):
            value = np.array(getattr(self, name), dtype=float)
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        if self.omega.ndim != 2 or self.M.ndim != 4 or self.a.ndim != 4:
            raise NumericError(
                f"shapes omega{self.omega.shape}, M{self.M.shape}, a{self.a.shape}: "
                "expected (H, K), (H, N, d, d), (H, N, K, d)"
            )
        H, K = self.omega.shape
        if self.M.shape[0] != H or self.a.shape[0] != H or self.a.shape[2] != K:
            raise NumericError(f"inconsistent H or K: omega{self.omega.shape}, M{self.M.shape}, a{self.a.shape}")
        if self.M.shape[1] != self.a.shape[1] or self.M.shape[2:] != (self.dim, self.dim):
            raise NumericError(f"inconsistent N or d: M{self.M.shape}, a{self.a.shape}")

    @property
    def H(self) -> int:
        return self.omega.shape[0]

    @property
    def K(self) -> int:
        return self.omega.shape[1]

    @property
    def N(self) -> int:
        return self.M.shape[1]

    @property
    def dim(self) -> int:
        return self.a.shape[3]

    @property
    def size(self) -> int:
        return self.H * self.K + self.H * (self.N - 1) * self.dim * (self.dim + 1) // 2 + self.a.size

    def to_vector(self) -> np.ndarray:
        """θ as a flat vector (layout in the module docstring)."""
        iu = _upper_indices(self.dim)
        m = self.M[:, : self.N - 1][..., iu[0], iu[1]]
        return np.concatenate([self.omega.ravel(), m.ravel(), self.a.ravel()])

    @classmethod
    def from_vector(cls, theta: np.ndarray, H: int, N: int, K: int, dim: int) -> "HMoEParams":
        """Inverse of :meth:`to_vector`."""
        theta = np.asarray(theta, dtype=float)
        p = dim * (dim + 1) // 2
        sizes = [H * K, H * (N - 1) * p, H * N * K * dim]
        if theta.shape != (sum(sizes),):
            raise NumericError(
                f"theta has shape {theta.shape}, expected ({sum(sizes)},) for H={H}, N={N}, K={K}, d={dim}"
            )
        omega = theta[: sizes[0]].reshape(H, K)
        m = theta[sizes[0] : sizes[0] + sizes[1]].reshape(H, N - 1, p)
        a = theta[sizes[0] + sizes[1] :].reshape(H, N, K, dim)
        M = np.zeros((H, N, dim, dim))
        iu = _upper_indices(dim)
        M[:, : N - 1, iu[0], iu[1]] = m
        M[:, : N - 1, iu[1], iu[0]] = m
        return cls(omega, M, a)

    def validate(self, what: str = "parameters") -> "HMoEParams":
        """Check (A.1)–(A.5); raise :class:`NumericError` naming the first violated assumption."""
        for name in ("omega", "M", "a"):
            if not np.all(np.isfinite(getattr(self, name))):
                raise NumericError(f"{what}: (A.1) {name} has non-finite entries")
        if np.any(self.omega < 0):
            raise NumericError(f"{what}: (A.2) omega must be >= 0, got min {self.omega.min():g}")
        if not np.any(self.omega > 0):
            raise NumericError(f"{what}: (A.2) omega must not be all zero")
        if not np.allclose(self.M, np.swapaxes(self.M, 2, 3)):
            raise NumericError(f"{what}: (A.3) the gating matrices M must be symmetric")
        if np.any(self.M[:, -1] != 0):
            raise NumericError(f"{what}: (A.3) the last gating matrix of every head, M[h, N-1], must be 0")
        for h in range(self.H):
            if not np.any(self.M[h] != 0):
                raise NumericError(f"{what}: (A.4) head {h} has all gating matrices zero")
        vectors = self.a.reshape(-1, self.dim)
        unique, counts = np.unique(vectors, axis=0, return_counts=True)  # sorting: O(n log n), not pairwise
        if np.any(counts > 1):
            raise NumericError(
                f"{what}: (A.5) expert vectors a must be distinct; two equal {unique[np.argmax(counts > 1)].tolist()}"
            )
        return self

    def to_dict(self) -> dict:
        return {"omega": self.omega.tolist(), "M": self.M.tolist(), "a": self.a.tolist()}
