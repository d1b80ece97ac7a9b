"""The declared losses against values computed by hand on small fixed measures (DeepSeekMoE's D1,
D2, D3), their invariances (zero at the truth, fitted atoms relabelled, a common softmax shift),
and per-parameter errors."""

import math

import numpy as np
import pytest

from identcheck.declaration import parse_declaration, read_example
from numeric.losses import parameter_errors, voronoi_loss
from numeric.model import ModelParams, compile_model

LOG_FIFTH = math.log(0.2)
#: shared atoms (ω, κ2, κ1, κ0, τ) of D1 and D3: one true atom (1, −8, 6, 0, 0.25), two fitted
SHARED_RELU = [[0.3, -8.0, 6.1, 0.0, 0.25], [0.7, -8.2, 6.0, 0.1, 0.35]]
#: by hand: one over-fitted cell, squares, weights ω: 0.3·0.1² + 0.7·(0.2² + 0.1² + 0.1²)
SHARED_RELU_LOSS = 0.3 * 0.01 + 0.7 * 0.06


def _loss(name, routed, shared):
    model = compile_model(read_example(name))
    return model, voronoi_loss(model, ModelParams((np.array(routed), np.array(shared)), np.array([0.5, 0.5])))


# D1's routed atoms (β1, β0, η2, η1, ν); truth (0, −1, 4, −12, 0.4), (0, 0, 4, 12, 0.4) (reference: the last)
D1_ROUTED = [[0.1, LOG_FIFTH, 4.0, -12.1, 0.4], [-0.1, LOG_FIFTH, 4.2, -12.0, 0.5], [0.0, 0.0, 4.0, 12.3, 0.4]]


def test_d1_by_hand():
    _, loss = _loss("deepseek-d1", D1_ROUTED, SHARED_RELU)
    mass = abs(0.2 + 0.2 - math.exp(-1))  # cell of true atom 1: e^{β0} summed against e^{−1}
    over = 0.2 * (0.1**2 + 0.1**2) + 0.2 * (0.1**2 + 0.2**2 + 0.1**2)  # squares of Δβ1, ‖Δη‖, Δν
    exact = 0.3  # first powers: ‖Δη‖ of the single atom of true atom 2
    assert loss.parts[0].cells == ((0, 1), (2,))
    assert loss.parts[0].value == pytest.approx(mass + over + exact, rel=1e-12)
    assert loss.parts[1].value == pytest.approx(SHARED_RELU_LOSS, rel=1e-12)
    assert loss.value == pytest.approx(mass + over + exact + SHARED_RELU_LOSS, rel=1e-12)


def test_d2_by_hand():
    """Linear experts: over-fitted cells of 2 atoms take r(2) = 4 on β1, η0, κ0 and r/2 = 2 on η1, ν, τ."""
    routed = [[0.1, LOG_FIFTH, 8.1, 2.0, 0.4], [0.0, LOG_FIFTH, 8.0, 2.2, 0.5], [0.0, 0.0, -6.3, 1.0, 0.4]]
    shared = [[0.5, 2.1, 0.0, 0.2], [0.5, 2.0, 0.1, 0.3]]  # (ω, κ1, κ0, τ); truth (1, 2, 0, 0.2)
    _, loss = _loss("deepseek-d2", routed, shared)
    mass = 0.4 - math.exp(-1)
    over = 0.2 * (0.1**4 + 0.1**2) + 0.2 * (0.2**4 + 0.1**2)
    shared_loss = 0.5 * 0.1**2 + 0.5 * (0.1**4 + 0.1**2)  # κ1 squared, κ0 to r = 4, τ to r/2 = 2
    assert loss.value == pytest.approx(mass + over + 0.3 + shared_loss, rel=1e-12)


def test_d3_by_hand():
    """Normalised sigmoid: mass σ(β0) on over-fitted cells only, parameter terms unweighted, |Δβ0| in exact cells."""
    routed = [[0.1, -0.5, 4.0, -12.0, 0.4], [0.0, -0.6, 4.0, -12.2, 0.4], [0.0, 0.7, 4.0, 12.0, 0.4]]
    _, loss = _loss("deepseek-d3", routed, SHARED_RELU)
    sigmoid = 1 / (1 + math.exp(0.6))
    expected = sigmoid + (0.1**2 + 0.2**2) + 0.2 + SHARED_RELU_LOSS
    assert loss.value == pytest.approx(expected, rel=1e-12)


def test_the_loss_is_zero_at_the_truth_and_invariant_to_relabelling_and_to_a_softmax_shift():
    model, loss = _loss("deepseek-d1", D1_ROUTED, SHARED_RELU)
    truth = model.truth()
    assert voronoi_loss(model, truth).value == 0.0
    routed = np.array(D1_ROUTED)
    for order in ([2, 0, 1], [1, 2, 0]):
        moved = voronoi_loss(model, ModelParams((routed[order], np.array(SHARED_RELU)[::-1]), truth.shares))
        assert moved.value == pytest.approx(loss.value, rel=1e-13)
    shifted = routed.copy()
    shifted[:, 0] += 0.7  # β1 + c1
    shifted[:, 1] -= 1.3  # β0 + c0
    moved = voronoi_loss(model, ModelParams((shifted, np.array(SHARED_RELU)), truth.shares))
    assert moved.value == pytest.approx(loss.value, rel=1e-12)
    assert moved.parts[0].shift == pytest.approx((0.7, -1.3))


ERRORS_TOML = """
name = "errors"
[inputs]
kind = "uniform"
dim = 1
[noise]
kind = "gaussian-mixture"
variance_floor = 0.001
[parts.experts]
expert = "dot(a, x) + b"
fitted = 2
gate = { kind = "constant" }
truth = [{ omega = 0.5, a = 1.0, b = 0.0, nu = 0.1 }, { omega = 0.5, a = -1.0, b = 1.0, nu = 0.1 }]
[loss]
kind = "parameter-errors"
[loss.parts.experts]
params = ["a", "b"]
match = "permutation"
reduce = "mean"
"""


def test_per_parameter_errors_by_the_best_permutation():
    model = compile_model(parse_declaration(ERRORS_TOML))
    fitted = np.array([[0.5, -0.9, 1.3, 0.1], [0.5, 1.2, 0.0, 0.1]])  # (ω, a, b, ν): the atoms swapped
    errors = parameter_errors(model, ModelParams((fitted,), np.array([1.0])))
    assert errors.match == "permutation" and errors.reduce == "mean"
    assert errors.of("experts", "a") == pytest.approx((0.2 + 0.1) / 2)
    assert errors.of("experts", "b") == pytest.approx((0.0 + 0.3) / 2)


TOP_K_TOML = """
name = "top-k"
[inputs]
kind = "uniform"
dim = 1
[noise]
kind = "gaussian-mixture"
variance_floor = 0.001
[parts.experts]
expert = "dot(a, x) + b"
fitted = 3
gate = { kind = "top-k", top_k = 2 }
truth = [
  { beta1 = 1.0, beta0 = 0.0, a = 1.0, b = 0.0, nu = 0.1 },
  { beta1 = -1.0, beta0 = 0.0, a = -1.0, b = 1.0, nu = 0.1 },
  { beta1 = 0.0, beta0 = 0.0, a = 3.0, b = -1.0, nu = 0.1 },
]
[loss]
kind = "voronoi"
[loss.parts.experts]
cells = ["a", "b"]
mass = "none"
weight = "none"
top_k_subsets = true
terms = [{ params = ["a", "b"], exact = 1, over = 2 }]
"""


def test_a_top_k_loss_keeps_the_k_cells_that_contribute_most():
    model = compile_model(parse_declaration(TOP_K_TOML))
    fitted = model.truth().atoms[0].copy()
    fitted[:, 3] += [0.1, 0.4, 0.2]  # b moved: the cells' terms are 0.1, 0.4, 0.2 (first powers, exact cells)
    loss = voronoi_loss(model, ModelParams((fitted,), np.array([1.0])))
    assert loss.value == pytest.approx(0.4 + 0.2, rel=1e-12)  # the largest two of three
