r"""Synthetic data from a declared truth, deterministic in the seed.

Inputs X ~ U[lo, hi]^d or N(0, I_d) (the declaration's ``inputs``). A density: each sample picks a
part with probability s_p, then an atom with probability w_{p,i}(x) (its gate at x), then
y ~ N(h_p(x; η_i), ν_i). A regression: y = g(x) + σ ε with ε ~ N(0, 1), g the sum over parts of
Σ_i w_{p,i}(x) h_p(x; η_i). The work is done in blocks of
:data:`~numeric.model.density.CHUNK` samples (memory: the data plus one block).
"""

from __future__ import annotations

import numpy as np

from ..errors import NumericError
from .density import CHUNK
from .layout import DeclaredModel, part_values
from .regression import regression_function

__all__ = ["MAX_N", "sample_declared"]

MAX_N = 10_000_000


def sample_declared(model: DeclaredModel, n: int, seed: int):
    """(X of shape (n, d), Y of shape (n,)) from the declared truth of ``model``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_N:
        raise NumericError(param="n", value=n, reason=f"must be an integer from 1 to {MAX_N:,}")
    inputs = model.declaration.inputs
    rng = np.random.default_rng([int(seed), 0xDEC1])
    n = int(n)
    if inputs.kind == "uniform":
        X = rng.uniform(float(inputs.low or 0.0), float(inputs.high or 0.0), size=(n, inputs.dim))
    else:
        X = rng.standard_normal((n, inputs.dim))
    layout, truth = model.layout(False), model.truth()
    Y = np.empty(n)
    for start in range(0, n, CHUNK):
        block = slice(start, min(start + CHUNK, n))
        x = X[block]
        m = x.shape[0]
        if not layout.density:
            sigma = float(model.declaration.noise.sigma or 0.0)
            Y[block] = regression_function(layout, truth, x) + sigma * rng.standard_normal(m)
            continue
        part_of = rng.choice(len(layout.parts), size=m, p=truth.shares)
        u = np.asarray(rng.uniform(size=m))
        z = np.asarray(rng.standard_normal(m))
        y = np.empty(m)
        for index, part in enumerate(layout.parts):
            rows = np.flatnonzero(part_of == index)
            G, eta, nu = part_values(layout, truth, index)
            assert nu is not None  # a density has a variance per atom
            w = part.gate.evaluate(x[rows], G).w
            atom = np.minimum((np.cumsum(w, axis=0) < u[rows]).sum(axis=0), part.k - 1)
            h = part.expert.value(x[rows], eta)[atom, np.arange(len(rows))]
            y[rows] = h + np.sqrt(nu[atom]) * z[rows]
        Y[block] = y
    return X, Y
