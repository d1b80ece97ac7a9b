"""Voronoi losses: zero at the truth, invariant to relabelling, growing with a perturbation."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric import HMoEParams, NumericError, load_truth, voronoi_loss

TRUTH = load_truth().params


@pytest.mark.parametrize("kind", ["L1", "L2"])
def test_zero_at_the_truth(kind):
    assert voronoi_loss(TRUTH, TRUTH, kind) == 0.0


def test_zero_when_a_true_channel_is_split_into_two_copies():
    omega = np.concatenate([TRUTH.omega, TRUTH.omega[:, :1] * 0], axis=1)
    omega[:, 0] /= 2
    omega[:, 2] = TRUTH.omega[:, 0] / 2
    a = np.concatenate([TRUTH.a, TRUTH.a[:, :, :1]], axis=2)
    split = HMoEParams(omega, TRUTH.M, a)
    assert voronoi_loss(split, TRUTH, "L2") == pytest.approx(0.0, abs=1e-12)


def _perturbed(rng, scale):
    theta = TRUTH.to_vector() + scale * rng.normal(size=TRUTH.size)
    theta[: TRUTH.H * TRUTH.K] = np.abs(theta[: TRUTH.H * TRUTH.K])
    return HMoEParams.from_vector(theta, TRUTH.H, TRUTH.N, TRUTH.K, TRUTH.dim)


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**31),
    kind=st.sampled_from(["L1", "L2"]),
    heads=st.permutations([0, 1]),
    channels=st.permutations([0, 1]),
)
def test_invariant_to_relabelling_fitted_heads_and_channels(seed, kind, heads, channels):
    fitted = _perturbed(np.random.default_rng(seed), 0.1)
    relabelled = HMoEParams(fitted.omega[heads][:, channels], fitted.M[heads], fitted.a[heads][:, :, channels])
    assert voronoi_loss(relabelled, TRUTH, kind) == pytest.approx(voronoi_loss(fitted, TRUTH, kind), rel=1e-12)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31), kind=st.sampled_from(["L1", "L2"]))
def test_invariant_to_reordering_gating_components(seed, kind):
    """Swap components 1 and 2 of every head and re-anchor M on the new last: the same function."""
    fitted = _perturbed(np.random.default_rng(seed), 0.1)
    M = fitted.M[:, ::-1] - fitted.M[:, ::-1][:, -1:]
    swapped = HMoEParams(fitted.omega, M, fitted.a[:, ::-1])
    assert voronoi_loss(swapped, TRUTH, kind) == pytest.approx(voronoi_loss(fitted, TRUTH, kind), rel=1e-12)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31), kind=st.sampled_from(["L1", "L2"]))
def test_grows_with_the_perturbation(seed, kind):
    """Along one direction, small enough that cells do not change, the loss increases strictly."""
    direction = np.random.default_rng(seed).normal(size=TRUTH.size)
    direction[: TRUTH.H * TRUTH.K] = np.abs(direction[: TRUTH.H * TRUTH.K])
    losses = []
    for t in (1e-3, 2e-3, 4e-3):
        theta = TRUTH.to_vector() + t * direction
        losses.append(voronoi_loss(HMoEParams.from_vector(theta, TRUTH.H, TRUTH.N, TRUTH.K, TRUTH.dim), TRUTH, kind))
    assert 0 < losses[0] < losses[1] < losses[2]


def test_bad_arguments():
    with pytest.raises(NumericError, match="kind"):
        voronoi_loss(TRUTH, TRUTH, "L3")
    with pytest.raises(NumericError, match="r="):
        voronoi_loss(TRUTH, TRUTH, "L1", r=0.5)
