"""A small declaration to vary: a shared part (constant gate) and a routed part (softmax), a density."""

import copy
import tomllib

import pytest

BASE = """
name = "small"
shares = "fixed"

[inputs]
kind = "uniform"
dim = 1
low = -1.0
high = 1.0

[noise]
kind = "gaussian-mixture"
variance_floor = 0.01

[parts.shared]
share = 0.5
expert = "dot(k1, x) + k0"
variance = "tau"
fitted = 2
gate = { kind = "constant", weights = "free" }
truth = [{ omega = 1.0, k1 = 2.0, k0 = 0.0, tau = 0.2 }]

[parts.routed]
share = 0.5
expert = "dot(eta1, x) + eta0"
variance = "nu"
fitted = 3
gate = { kind = "softmax", reference = "last" }
truth = [
  { beta1 = 1.0, beta0 = -0.5, eta1 = 8.0, eta0 = 2.0, nu = 0.4 },
  { beta1 = 0.0, beta0 = 0.0, eta1 = -6.0, eta0 = 1.0, nu = 0.4 },
]

[loss]
symmetries = ["softmax-shift", "permutations"]

[loss.parts.shared]
terms = [{ params = ["k1", "k0"], exact = 1, over = 2 }, { params = ["tau"], exact = 1, over = 2 }]

[loss.parts.routed]
cells = ["beta1", "eta1", "eta0", "nu"]
r = { 2 = 4 }
terms = [
  { params = ["beta1"], exact = 1, over = "r" },
  { params = ["eta1"], exact = 1, over = "r/2" },
  { params = ["eta0"], exact = 1, over = "r" },
  { params = ["nu"], exact = 1, over = "r/2" },
]
"""


@pytest.fixture
def base() -> dict:
    """A fresh mapping of :data:`BASE` to change."""
    return copy.deepcopy(tomllib.loads(BASE))
