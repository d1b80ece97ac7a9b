"""Synthetic regression data (docs/method.md §10): X ~ Uniform([−1, 1]^d), Y = f*(X) + N(0, ν²)."""

from __future__ import annotations

import numpy as np

from ..model.attention_params import NumericError

__all__ = ["sample", "MAX_N"]

MAX_N = 10_000_000  # the Jacobian of a fit holds n × P floats: 10⁷ × 46 is 3.7 GB


def sample(truth, model, n: int, seed: int):
    """Draw a sample from ``truth`` through ``model``, deterministic in ``seed``.

    X ~ Uniform([−1, 1]^d) and Y = f*(X) + ν·ε, ε standard normal.

    Parameters
    ----------
    truth : Truth
        The ground truth (its parameters and noise level ν).
    model : Model
        The regression function f* is evaluated with.
    n : int
        Sample size.
    seed : int
        Seeds X and the noise.

    Returns
    -------
    X : numpy.ndarray, shape (n, d)
    Y : numpy.ndarray, shape (n,)
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise NumericError(param="n", value=n, reason=f"must be an integer from 1 to {MAX_N:,}")
    rng = np.random.default_rng([int(seed), 0xDA7A])
    X = rng.uniform(-1.0, 1.0, size=(int(n), truth.params.dim))
    Y = model.value(truth.params, X) + truth.noise_std * rng.standard_normal(int(n))
    return X, Y
