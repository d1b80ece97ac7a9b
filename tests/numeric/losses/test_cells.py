"""Per-cell errors and MHA's identified quantities, against values computed by hand."""

import math

import numpy as np
import pytest

from numeric import HMoEParams, voronoi_loss
from numeric.losses.attention_cells import cell_errors, mha_identified_error

M1 = [[1.0, 0.0], [0.0, 0.0]]
ZERO = [[0.0, 0.0], [0.0, 0.0]]
#: H = 1, N = 2, K* = 1: ω* = 2, M*_1 = diag(1, 0), a*_1 = (1, 0), a*_2 = (0, 1)
TRUTH = HMoEParams([[2.0]], [[M1, ZERO]], [[[[1.0, 0.0]], [[0.0, 1.0]]]])


def over_fitted():
    """Two fitted channels in the one cell: weights 1.5 and 1.0, expert errors 0.3 (a_1) and 0.4 (a_2)."""
    a = [[[[1.0, 0.3], [1.0, 0.0]], [[0.0, 1.0], [0.0, 1.4]]]]
    return HMoEParams([[1.5, 1.0]], [[M1, ZERO]], a)


def exact_fitted():
    """One channel: weight 2.2, ‖ΔM_1‖ = 0.1, ‖Δa_1‖ = 0.3."""
    return HMoEParams([[2.2]], [[[[1.1, 0.0], [0.0, 0.0]], ZERO]], [[[[1.0, 0.3]], [[0.0, 1.0]]]])


def test_over_fitted_cell_by_hand():
    errors = cell_errors(over_fitted(), TRUTH)
    assert (errors.n_exact, errors.n_over, errors.n_empty) == (0, 1, 0)
    assert errors.over_weight == pytest.approx(0.5)  # |1.5 + 1.0 − 2|
    assert errors.over_param == pytest.approx(math.sqrt((1.5 * 0.3**2 + 1.0 * 0.4**2) / 2.5))
    assert math.isnan(errors.exact_param) and math.isnan(errors.exact_weight)
    # the losses: L2 squares the over-fitted cell's distances, L1,r raises them to r
    assert voronoi_loss(over_fitted(), TRUTH, "L2") == pytest.approx(0.5 + 1.5 * 0.09 + 1.0 * 0.16)
    assert voronoi_loss(over_fitted(), TRUTH, "L1", r=1) == pytest.approx(0.5 + 1.5 * 0.3 + 1.0 * 0.4)
    assert voronoi_loss(over_fitted(), TRUTH, "L1", r=2) == pytest.approx(0.5 + 1.5 * 0.09 + 1.0 * 0.16)


def test_exact_fitted_cell_by_hand():
    errors = cell_errors(exact_fitted(), TRUTH)
    assert (errors.n_exact, errors.n_over) == (1, 0)
    assert errors.exact_weight == pytest.approx(0.2)
    assert errors.exact_param == pytest.approx(0.1 + 0.3)
    assert math.isnan(errors.over_param)
    assert voronoi_loss(exact_fitted(), TRUTH, "L2") == pytest.approx(0.2 + 2.2 * (0.1 + 0.3))  # first powers
    assert voronoi_loss(exact_fitted(), TRUTH, "L1", r=2) == pytest.approx(0.2 + 2.2 * (0.1**2 + 0.3**2))


def test_an_empty_cell_contributes_its_true_weight():
    truth = HMoEParams([[2.0, 1.0]], [[M1, ZERO]], [[[[1.0, 0.0], [5.0, 5.0]], [[0.0, 1.0], [-5.0, 5.0]]]])
    fitted = HMoEParams([[2.0]], [[M1, ZERO]], [[[[1.0, 0.0]], [[0.0, 1.0]]]])
    assert cell_errors(fitted, truth).n_empty == 1
    assert voronoi_loss(fitted, truth, "L2") == pytest.approx(1.0)


def test_mha_identified_quantities_ignore_scale_and_split_but_not_the_function():
    # (ω, a) ↦ (ω/2, 2a): the same function, L1 large, the identified loss 0
    scaled = HMoEParams([[1.0]], [[M1, ZERO]], [[[[2.0, 0.0]], [[0.0, 2.0]]]])
    assert voronoi_loss(scaled, TRUTH, "L1") == pytest.approx(1.0 + 1.0 * (1.0 + 1.0))
    assert mha_identified_error(scaled, TRUTH) == pytest.approx(0.0, abs=1e-12)
    # a channel split into a* ± δ with half weights each: b unchanged
    split = HMoEParams([[1.0, 1.0]], [[M1, ZERO]], [[[[1.0, 0.5], [1.0, -0.5]], [[0.3, 1.0], [-0.3, 1.0]]]])
    assert mha_identified_error(split, TRUTH) == pytest.approx(0.0, abs=1e-12)
    # b_1 off by (0, 1): c = b_1 − b_2 off by (0, 1), B = b_2 exact, M exact → 1
    moved = HMoEParams([[2.0]], [[M1, ZERO]], [[[[1.0, 0.5]], [[0.0, 1.0]]]])
    assert mha_identified_error(moved, TRUTH) == pytest.approx(1.0)
    # M off by 0.1 in one entry adds 0.1
    moved_m = HMoEParams([[2.0]], [[[[1.1, 0.0], [0.0, 0.0]], ZERO]], [[[[1.0, 0.5]], [[0.0, 1.0]]]])
    assert mha_identified_error(moved_m, TRUTH) == pytest.approx(1.1)


def test_mha_identified_loss_is_invariant_to_head_and_gate_order():
    rng = np.random.default_rng(3)
    M = np.zeros((2, 2, 2, 2))
    M[0, 0] = [[1.0, 0.3], [0.3, -1.0]]
    M[1, 0] = [[-2.0, 0.0], [0.0, 1.0]]
    truth = HMoEParams(rng.uniform(1, 2, (2, 2)), M, rng.normal(size=(2, 2, 2, 2)))
    fitted = HMoEParams(truth.omega + 0.01, truth.M, truth.a + 0.02 * rng.normal(size=truth.a.shape))
    base = mha_identified_error(fitted, truth)
    assert 0 < base < 0.5
    heads = HMoEParams(fitted.omega[::-1], fitted.M[::-1], fitted.a[::-1])
    assert mha_identified_error(heads, truth) == pytest.approx(base)
    # gating components of head 0 listed in reverse and re-anchored on the new last one:
    # (M_2 − M_1, a_2), (0, a_1) = (−M_1, a_2), (0, a_1) is the same function: same loss
    M_swapped = fitted.M.copy()
    M_swapped[0] = [-fitted.M[0, 0], np.zeros((2, 2))]
    a_swapped = fitted.a.copy()
    a_swapped[0] = fitted.a[0, ::-1]
    gates = HMoEParams(fitted.omega, M_swapped, a_swapped)
    from numeric import Model

    X = rng.uniform(-1, 1, size=(50, 2))
    assert np.allclose(Model("mha").value(gates, X), Model("mha").value(fitted, X))  # the construction is right
    assert mha_identified_error(gates, truth) == pytest.approx(base)


def test_function_cells_follow_the_expert_functions():
    from numeric import Model, load_truth
    from numeric.losses.attention_cells import assignments_differ, function_assignment

    truth = load_truth("local_sigmoid").params
    model = Model("gated1")
    identity = {(h, k): (h, k) for h in range(2) for k in range(2)}
    assert function_assignment(model, truth, truth) == identity
    swapped = HMoEParams(truth.omega[:, ::-1], truth.M, truth.a[:, :, ::-1])  # channels relabelled
    assert function_assignment(model, swapped, truth) == {(h, k): (h, 1 - k) for h in range(2) for k in range(2)}
    assert not assignments_differ(model, swapped, truth)
    # move channel (0, 0) so that its gating and experts change a lot: the cell is the nearest expert
    # function, checked against a direct evaluation of σ_1 φ(a_1ᵀx) + σ_2 φ(a_2ᵀx) on other points
    from scipy.special import expit

    a = truth.a.copy()
    a[0, 1, 0] = truth.a[0, 1, 1]
    M = truth.M.copy()
    M[0, 0] = -4 * np.eye(2)
    moved = HMoEParams(truth.omega, M, a)
    X = np.random.default_rng(11).uniform(-1, 1, size=(40_000, 2))

    def expert(M_h, a_h):  # a_h: (N, d) for one channel
        q = np.einsum("nd,de,ne->n", X, M_h[0], X)
        s1 = expit(q)
        return s1 * expit(X @ a_h[0]) + (1 - s1) * expit(X @ a_h[1])

    target = expert(moved.M[0], moved.a[0, :, 0])
    distances = {
        (h, k): np.sqrt(np.mean((target - expert(truth.M[h], truth.a[h, :, k])) ** 2))
        for h in range(2)
        for k in range(2)
    }
    assert function_assignment(model, moved, truth)[(0, 0)] == min(distances, key=distances.get)
