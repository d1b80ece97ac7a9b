"""Synthetic regression data (docs/method.md §10): X ~ Uniform([−1, 1]^d), Y = f*(X) + N(0, ν²)."""

from __future__ import annotations

import numpy as np

from .params import NumericError

__all__ = ["sample", "MAX_N"]

MAX_N = 10_000_000  # the Jacobian of a fit holds n × P floats: 10⁷ × 46 is 3.7 GB


def sample(truth, model, n: int, seed: int):
    """Draw (X, Y) of shapes (n, d) and (n,), deterministic in ``seed``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise NumericError(param="n", value=n, reason=f"must be an integer from 1 to {MAX_N:,}")
    rng = np.random.default_rng([int(seed), 0xDA7A])
    X = rng.uniform(-1.0, 1.0, size=(int(n), truth.params.dim))
    Y = model.value(truth.params, X) + truth.noise_std * rng.standard_normal(int(n))
    return X, Y
