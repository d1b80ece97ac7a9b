"""Splits as Theorem 1's proof builds them: every gate shifted, positive weights, no clipping, and
weight-0 copies that are no cell members (docs/confirm.md)."""

import numpy as np
import pytest

from numeric import HMoEParams, Model, load_truth
from numeric.confirm.curves import ratio_curve
from numeric.confirm.splits import compensated_split
from numeric.confirm.witness import random_paths
from numeric.losses.attention_voronoi import voronoi_loss

TRUTH = load_truth().params  # H = 2, N = 2, K* = 2
X = np.random.default_rng(5).uniform(-1.0, 1.0, size=(20_000, 2))
TS = (1e-1, 1e-2, 1e-3, 1e-4)


def _with_copies(G: HMoEParams, moved: np.ndarray) -> HMoEParams:
    """K + 1 channels: every head gets a weight-0 copy of its *true* channel 1; head 2's channel 1
    is then moved by ``moved`` (N, d)."""
    omega = np.concatenate([G.omega, np.zeros((G.H, 1))], axis=1)
    a = np.concatenate([G.a, G.a[:, :, :1]], axis=2)
    a[1, :, 0] += moved
    return HMoEParams(omega, G.M, a)


def test_weight_0_copies_are_no_cell_members_by_hand():
    """Head 2's channel 1 (ω* = 4) moved by δ = (0.3, 0.4) at gate 1 and (0, 0.1) at gate 2, its
    weight-0 copy left at the truth. As atoms: one member, first powers: 4·(0.5 + 0.1) = 2.4.
    Counting the copy (the fits' default) makes the cell |V| = 2 and squares: 4·(0.25 + 0.01) = 1.04."""
    G = _with_copies(TRUTH, np.array([[0.3, 0.4], [0.0, 0.1]]))
    assert voronoi_loss(G, TRUTH, "L2", positive_only=True) == pytest.approx(2.4, rel=1e-12)
    assert voronoi_loss(G, TRUTH, "L2") == pytest.approx(1.04, rel=1e-12)


def test_compensated_split_keeps_positive_weights_without_clipping():
    """The compensation leaves the other head's weight-0 copy alone (weight exactly 0, vectors at the
    truth), every weight is affine in t (nothing clipped), and all stay >= 0 over the measured t."""
    model = Model("gated1", "sigmoid(z + 1)")
    v = np.array([[0.6, 0.8], [-0.8, 0.6]])
    path = compensated_split(model, TRUTH, 0, 0, v, X, "witness", "split")
    base = path.build(0.0)
    slope = (path.build(1e-2).omega - base.omega) / 1e-2
    for t in TS:
        G = path.build(t)
        assert G.omega[1, 2] == 0.0 and np.array_equal(G.a[1, :, 2], TRUTH.a[1, :, 0])
        np.testing.assert_allclose(G.omega, base.omega + t * slope, rtol=1e-10, atol=1e-14)
        assert G.omega.min() >= 0.0
    assert "weights ≥ 0 for t ≤" in path.note


def test_random_split_shifts_every_gate_and_moves_g_by_the_second_order_term():
    """φ = z²: ½ω[((a_i + √t v_i)ᵀx)² + ((a_i − √t v_i)ᵀx)²] − ω(a_iᵀx)² = ω t (v_iᵀx)² at each gate i, so
    Δg = ω·t·Σ_i σ_i (v_iᵀx)² (ω = 2, channel (1, 1) of the default truth)."""
    model = Model("gated1", "z**2")
    (split,) = [p for p in random_paths(model, TRUTH, X) if p.name == "random split"]
    G = split.build(1e-2)
    v = (G.a[0, :, 0] - TRUTH.a[0, :, 0]) / np.sqrt(1e-2)
    assert np.all(np.linalg.norm(v, axis=1) == pytest.approx(1.0))  # a unit vector at every gate
    q = np.einsum("nj,jl,nl->n", X, TRUTH.M[0, 0], X)
    sigma = np.stack([1 / (1 + np.exp(-q)), 1 / (1 + np.exp(q))], axis=1)
    for t in TS:
        delta = model.value(split.build(t), X) - model.value(TRUTH, X)
        expected = 2.0 * t * np.sum(sigma * (X @ v.T) ** 2, axis=1)
        np.testing.assert_allclose(delta, expected, rtol=1e-8, atol=1e-14)
    curve = ratio_curve(model, split, TS, X)  # L2 = ω t Σ_i ‖v_i‖² = 4t (two-member cell, squared)
    assert curve.loss == pytest.approx(tuple(4 * t for t in TS), rel=1e-9)
