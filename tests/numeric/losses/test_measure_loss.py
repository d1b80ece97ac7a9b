"""The measure-level Voronoi loss: hand-computed values, zero at the exact alternatives, invariant
under relabelling and recombination, equal to the channel-level L2 where nothing is recombined."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric import HMoEParams, NumericError, load_truth, voronoi_loss
from numeric.confirm.recombination import global_alternative, local_recombination, swap_alternative
from numeric.losses.measure import measure_cells, measure_loss

TRUTH = load_truth().params


def _one_dim(omega, m1, a_gate1, a_gate2):
    """H = 1, N = 2, d = 1: M = (m1, 0), a[gate][channel]."""
    M = np.array([[[[m1]], [[0.0]]]])
    a = np.array([[[[v] for v in a_gate1], [[v] for v in a_gate2]]])
    return HMoEParams(np.array([omega], dtype=float), M, a)


#: ω* = (2, 1); M* = (1, 0); gate 1: a* = 1, −1; gate 2: a* = 2, −2 (d = 1, so norms are |·|).
TINY = _one_dim([2.0, 1.0], 1.0, [1.0, -1.0], [2.0, -2.0])


def test_hand_computed_with_a_recombined_channel():
    """Channel 3 = (0.9, −2) takes gate 1 from true channel 1 and gate 2 from channel 2.

    Head matching: identity order (ΔM = 0.25 at gate 1) against the swap (|−1.25 − 1| = 2.25).
    Cells (1/N = 1/2 on the mass terms):
      gate 1, a* = 1:  atoms 1.1 (1.5), 0.9 (0.25): |1.75 − 2|/2 = 0.125;
                       1.5·(0.25² + 0.1²) + 0.25·(0.25² + 0.1²) = 0.126875
      gate 1, a* = −1: atom −1 (0.5): |0.5 − 1|/2 = 0.25; 0.5·(0.25 + 0) = 0.125
      gate 2, a* = 2:  atom 2 (1.5): |1.5 − 2|/2 = 0.25; 0
      gate 2, a* = −2: atoms −1.8 (0.5), −2 (0.25): |0.75 − 1|/2 = 0.125; 0.5·0.2² = 0.02
    total 1.021875.
    """
    fitted = _one_dim([1.5, 0.5, 0.25], 1.25, [1.1, -1.0, 0.9], [2.0, -1.8, -2.0])
    assert measure_loss(fitted, TINY) == pytest.approx(1.021875, rel=1e-13)
    cells = measure_cells(fitted, TINY)
    assert cells.heads == {0: (0, (0, 1))}
    assert [len(cells.cells[(0, i, k)]) for i in range(2) for k in range(2)] == [2, 1, 1, 2]


def test_hand_computed_empty_cells():
    """Both channels near true channel 1: the cells of channel 2 are empty (ω*/N = 1/2 each).
    Gate 1: atoms 1 (1), 1.2 (2): |3 − 2|/2 + 2·0.2² = 0.58; gate 2 likewise; total 2·0.58 + 2·0.5 = 2.16."""
    fitted = _one_dim([1.0, 2.0], 1.0, [1.0, 1.2], [2.0, 2.2])
    assert measure_loss(fitted, TINY) == pytest.approx(2.16, rel=1e-13)


def test_hand_computed_coincident_atoms_merge():
    """Channel 1 moved by 0.1 at both gates and held by two exact copies of weight 1: one atom of
    mass 2 per gate (|V| = 1, first powers): 2·0.1 + 2·0.1 = 0.4. L2 sees a two-member cell and
    squares: 1·(0.01 + 0.01)·2 = 0.04."""
    fitted = _one_dim([1.0, 1.0, 1.0], 1.0, [1.1, -1.0, 1.1], [2.1, -2.0, 2.1])
    assert measure_loss(fitted, TINY) == pytest.approx(0.4, rel=1e-13)
    assert voronoi_loss(fitted, TINY, "L2") == pytest.approx(0.04, rel=1e-12)


def test_zero_weight_atoms_are_not_atoms():
    """A weight-0 channel far away changes nothing (it is not in the measure)."""
    fitted = _one_dim([2.0, 1.0, 0.0], 1.0, [1.0, -1.0, 5.0], [2.0, -2.0, 7.0])
    assert measure_loss(fitted, TINY) == 0.0


def test_zero_at_the_truth_and_at_every_exact_alternative():
    assert measure_loss(TRUTH, TRUTH) == 0.0
    equal = HMoEParams(np.array([[2.0, 2.0], [3.0, 3.0]]), TRUTH.M, TRUTH.a)
    for G, truth in [
        (global_alternative(TRUTH, 3), TRUTH),
        (global_alternative(TRUTH, 5), TRUTH),
        (local_recombination(TRUTH, 4, 0.3), TRUTH),
        (swap_alternative(equal), equal),
    ]:
        assert voronoi_loss(G, truth, "L2") > 1.0  # the channel-level loss sees them
        assert measure_loss(G, truth) == pytest.approx(0.0, abs=1e-12)


def _perturbed(rng, scale, truth=TRUTH):
    theta = truth.to_vector() + scale * rng.normal(size=truth.size)
    theta[: truth.H * truth.K] = np.abs(theta[: truth.H * truth.K]) + 0.5
    return HMoEParams.from_vector(theta, truth.H, truth.N, truth.K, truth.dim)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31), heads=st.permutations([0, 1]), channels=st.permutations([0, 1, 2]))
def test_invariant_to_relabelling_heads_channels_and_gates(seed, heads, channels):
    fitted = _perturbed(np.random.default_rng(seed), 0.3, global_alternative(TRUTH, 3))
    relabelled = HMoEParams(fitted.omega[heads][:, channels], fitted.M[heads], fitted.a[heads][:, :, channels])
    assert measure_loss(relabelled, TRUTH) == pytest.approx(measure_loss(fitted, TRUTH), rel=1e-12)
    M = fitted.M[:, ::-1] - fitted.M[:, ::-1][:, -1:]  # gates reordered, re-anchored on the new last
    assert measure_loss(HMoEParams(fitted.omega, M, fitted.a[:, ::-1]), TRUTH) == pytest.approx(
        measure_loss(fitted, TRUTH), rel=1e-12
    )


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31), scale=st.sampled_from([0.05, 0.5, 2.0]), eps=st.floats(0.01, 0.4))
def test_invariant_under_recombination_of_any_mixture(seed, scale, eps):
    """Re-pair the channels of a *fitted* mixture (near or far from the truth): every per-(head,
    gate) measure is kept, and so is the loss; L2 changes."""
    fitted = _perturbed(np.random.default_rng(seed), scale)
    recombined = local_recombination(fitted, fitted.K + 2, eps)
    assert measure_loss(recombined, TRUTH) == pytest.approx(measure_loss(fitted, TRUTH), rel=1e-12)


@settings(max_examples=30)
@given(seed=st.integers(0, 2**31))
def test_equals_the_channel_level_loss_without_recombination(seed):
    """Near the truth (K = K*, and K = K* + 1 with a perturbed copy of a true channel) every channel's
    atoms are nearest to its own cell's atoms: the two losses agree."""
    rng = np.random.default_rng(seed)
    exact = _perturbed(rng, 0.05)
    assert measure_loss(exact, TRUTH) == pytest.approx(voronoi_loss(exact, TRUTH, "L2"), rel=1e-12)
    omega = np.concatenate([TRUTH.omega, TRUTH.omega[:, :1]], axis=1) / np.array([2.0, 1.0, 2.0])
    over = HMoEParams(omega, TRUTH.M, np.concatenate([TRUTH.a, TRUTH.a[:, :, :1]], axis=2))
    over = _perturbed(rng, 0.05, over)
    assert measure_loss(over, TRUTH) == pytest.approx(voronoi_loss(over, TRUTH, "L2"), rel=1e-12)


def test_refuses_mismatched_shapes():
    with pytest.raises(NumericError, match="differ in N or d"):
        measure_loss(TINY, TRUTH)


def test_rates_report_both_losses_for_the_gated_models_only(tmp_path, capsys):
    """``numeric rates`` gives voronoi_measure beside voronoi for gated fits, recomputed from the stored
    parameters (the mean at each n equals the loss computed here from the records), none for MHA."""
    import json

    from numeric.cli.main import main
    from numeric.experiments.rates import rates_from_records
    from numeric.experiments.store import read_records, read_settings
    from numeric.experiments.sweep import Grid, run_grid

    run_grid(Grid(models=("mha", "gated1"), Ks=(3,), sizes=(300, 600), reps=2), tmp_path, progress=False)
    records = read_records(tmp_path)
    rates = rates_from_records(records, read_settings(tmp_path), ("voronoi", "voronoi_measure"), n_boot=50)
    assert {(r.model, r.quantity) for r in rates} == {
        ("mha", "voronoi"),
        ("gated1", "voronoi"),
        ("gated1", "voronoi_measure"),
    }
    (rate,) = [r for r in rates if r.quantity == "voronoi_measure"]
    for n, mean in zip(rate.sizes, rate.means):
        direct = [measure_loss(r.fitted(), TRUTH) for r in records if r.model == "gated1" and r.n == n]
        assert mean == pytest.approx(np.mean(direct), rel=1e-12)
    assert main(["rates", str(tmp_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert {(r["model"], r["quantity"]) for r in printed} >= {("gated1", "voronoi_measure"), ("mha", "mha_identified")}
    assert main(["rates", str(tmp_path), "--by-cell", "--json"]) == 0
    by_cell = json.loads(capsys.readouterr().out)
    from numeric.losses.measure import recombined

    expected = sum(recombined(r.fitted(), TRUTH) for r in records if r.model == "gated1")
    assert by_cell["recombined"] == {"fits": expected, "of": 4}


def test_recombined_flags_a_channel_with_atoms_in_two_true_channels_cells():
    from numeric.losses.measure import recombined

    mixed = _one_dim([1.5, 0.5, 0.25], 1.25, [1.1, -1.0, 0.9], [2.0, -1.8, -2.0])  # channel 3 = (≈ a_{1,1}, a_{2,2})
    plain = _one_dim([1.5, 0.5, 0.25], 1.25, [1.1, -1.0, 0.9], [2.0, -1.8, 2.1])  # channel 3 = (≈ a_{1,1}, ≈ a_{2,1})
    assert recombined(mixed, TINY) and not recombined(plain, TINY)
    assert measure_loss(plain, TINY) == pytest.approx(voronoi_loss(plain, TINY, "L2"), rel=1e-12)
    assert recombined(global_alternative(TRUTH, 3), TRUTH) and not recombined(TRUTH, TRUTH)
