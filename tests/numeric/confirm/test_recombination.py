"""Channel recombination: exact invariances of Setting I for any φ, not of Setting II."""

import json
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric import HMoEParams, Model, NumericError, load_truth, voronoi_loss
from numeric.confirm.curves import ratio_curve
from numeric.confirm.recombination import (
    alternatives,
    global_alternative,
    local_recombination,
    recombination_path,
    swap_alternative,
)

TRUTH = load_truth().params  # ω* = ((2, 3), (4, 2.4)): unequal in both heads
EQUAL = HMoEParams(np.array([[2.0, 2.0], [3.0, 3.0]]), TRUTH.M, TRUTH.a)
X = np.random.default_rng(3).uniform(-1.0, 1.0, size=(20_000, 2))
PHIS = ["sigmoid(z + 1)", "tanh(z + 1/2)", "exp(z)"]


def _measures(G: HMoEParams) -> dict:
    """(h, i) → {a: total weight}, weights of zero dropped (a second, direct count of the atoms)."""
    out = defaultdict(lambda: defaultdict(float))
    for h in range(G.H):
        for i in range(G.N):
            for k in range(G.K):
                if G.omega[h, k] > 0:
                    out[(h, i)][tuple(G.a[h, i, k])] += G.omega[h, k]
    return {key: dict(value) for key, value in out.items()}


def _same_measures(G, truth):
    ours, theirs = _measures(G), _measures(truth)
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key].keys() == theirs[key].keys()
        for a in theirs[key]:
            assert ours[key][a] == pytest.approx(theirs[key][a], rel=1e-15)


@pytest.mark.parametrize(
    "G, truth",
    [
        (local_recombination(TRUTH, 4, 0.25), TRUTH),
        (local_recombination(TRUTH, 7, 0.25), TRUTH),
        (global_alternative(TRUTH, 3), TRUTH),
        (global_alternative(TRUTH, 5), TRUTH),
        (swap_alternative(EQUAL), EQUAL),
    ],
    ids=["local K=4", "local K=7", "global K=3", "global K=5", "swap"],
)
def test_every_per_head_gate_measure_is_kept_and_channels_do_change(G, truth):
    _same_measures(G, truth)
    channels = {(h, tuple(G.a[h, :, k].ravel())) for h in range(G.H) for k in range(G.K) if G.omega[h, k] > 0}
    true_channels = {(h, tuple(truth.a[h, :, k].ravel())) for h in range(truth.H) for k in range(truth.K)}
    assert channels != true_channels


def test_the_global_alternative_recombines_the_heavier_channel():
    """Head 1: ω = (2, 3) → channel 2 is the heavier: (a_{1,2}, a_{2,2}) with 3 − 2 = 1, (a_{1,1}, a_{2,2})
    with 2 in channel 1's slot, (a_{1,2}, a_{2,1}) with 2 in the spare."""
    G = global_alternative(TRUTH, 3)
    assert G.omega[0].tolist() == [2.0, 1.0, 2.0]
    assert G.a[0, 0, 0].tolist() == TRUTH.a[0, 0, 0].tolist() and G.a[0, 1, 0].tolist() == TRUTH.a[0, 1, 1].tolist()
    assert G.a[0, 0, 2].tolist() == TRUTH.a[0, 0, 1].tolist() and G.a[0, 1, 2].tolist() == TRUTH.a[0, 1, 0].tolist()


def test_local_channel_loss_by_hand():
    """d = 1, H = 1: ω* = (2, 1), gate 1 a* = (1, −1), gate 2 a* = (2, −2), M* = (1, 0). With ε:
    A = (1, −2) is 4 from channel 1 and 2 from channel 2 (cell 2), B = (−1, 2) the reverse (cell 1);
    masses balance, and each two-member cell has ε·2² = 4ε: L2 = 8ε."""
    tiny = HMoEParams(
        np.array([[2.0, 1.0]]), np.array([[[[1.0]], [[0.0]]]]), np.array([[[[1.0], [-1.0]], [[2.0], [-2.0]]]])
    )
    for eps in (0.5, 1e-3):
        assert voronoi_loss(local_recombination(tiny, 4, eps), tiny, "L2") == pytest.approx(8 * eps, rel=1e-12)


@pytest.mark.parametrize("phi", PHIS)
def test_exact_for_gated1_for_any_phi(phi):
    model = Model("gated1", phi)
    found = {a.construction: a for a in alternatives(model, TRUTH, 4, X)}
    assert found["local"].exact and found["global"].exact
    assert found["local"].relative_change <= 1e-12 and found["global"].relative_change <= 1e-12
    assert found["local"].channel_loss > 1 and found["global"].channel_loss > 20
    assert found["local"].measure_loss == pytest.approx(0.0, abs=1e-12)
    assert not found["swap"].applies and "differ" in found["swap"].reason
    swap = {a.construction: a for a in alternatives(model, EQUAL, 2, X)}["swap"]
    assert swap.exact and swap.relative_change <= 1e-12 and swap.channel_loss > 1
    curve = ratio_curve(model, recombination_path(model, TRUTH, 4, X), (1e-1, 1e-2, 1e-3, 1e-4), X)
    assert curve.exact_invariance and curve.max_relative_change <= 1e-12 and curve.limit == 0.0
    assert curve.loss == pytest.approx((1.5, 0.15, 0.015, 0.0015), rel=1e-9)  # L2 = 15ε on the default truth


def test_not_exact_for_gated2_and_says_why():
    model = Model("gated2", "sigmoid(z + 1)")
    for alternative in alternatives(model, TRUTH, 4, X):
        if alternative.applies:
            assert not alternative.exact and alternative.relative_change > 1e-4
            assert "not a function of the per-(head, gate) measures" in alternative.reason
    curve = ratio_curve(model, recombination_path(model, TRUTH, 4, X), (1e-1, 1e-2, 1e-3), X)
    assert not curve.exact_invariance
    assert curve.limit == pytest.approx(curve.ratio[-1], rel=1e-6)  # Δg and L2 are both linear in ε


def test_where_it_does_not_apply():
    model = Model("gated1", "sigmoid(z + 1)")
    at_K3 = {a.construction: a for a in alternatives(model, TRUTH, 3, X)}
    assert not at_K3["local"].applies and "K >= K* + 2 = 4" in at_K3["local"].reason
    assert at_K3["global"].applies
    at_K2 = {a.construction: a for a in alternatives(model, TRUTH, 2, X)}
    assert not at_K2["global"].applies and "K >= K* + 1 = 3" in at_K2["global"].reason
    one_gate = HMoEParams(TRUTH.omega, TRUTH.M[:, :1] * 0, TRUTH.a[:, :1])
    with pytest.raises(NumericError, match="needs N >= 2 gates"):
        local_recombination(one_gate, 4, 0.1)
    with pytest.raises(NumericError, match="epsilon"):
        local_recombination(TRUTH, 4, 2.5)
    with pytest.raises(NumericError, match="K >= K\\* \\+ 2"):
        recombination_path(model, TRUTH, 3, X)


def test_ratio_cli_recombination_path_json_equals_api_and_refuses_small_K(capsys):
    from numeric.cli.main import main
    from numeric.confirm.recombination import recombination_table

    assert main(["ratio", "--model", "gated1", "--path", "recombination", "--mc", "5000", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    rows, constructions = recombination_table("gated1", load_truth(), mc=5000)
    assert printed["rows"] == [r.to_dict() for r in rows] and printed["constructions"] == [
        c.to_dict() for c in constructions
    ]
    assert printed["K"] == 4 and all(
        r["exact"] and r["ratio"] == 0.0 and r["measure_loss"] == 0.0 for r in printed["rows"]
    )
    assert [r["loss"] for r in printed["rows"]] == pytest.approx([15 * r["epsilon"] for r in printed["rows"]], rel=1e-9)
    assert main(["ratio", "--model", "gated1", "--path", "recombination", "--K", "3"]) == 2
    err = capsys.readouterr().err
    assert "--K 3: the local recombination needs K from K* + 2 = 4" in err and err.count("\n") == 1


@settings(max_examples=20)
@given(
    seed=st.integers(0, 2**31),
    H=st.integers(1, 3),
    N=st.integers(2, 3),
    K=st.integers(2, 3),
    phi=st.sampled_from(["sigmoid(z + 1)", "tanh(z + 1/2)", "exp(z)", "sin(z)", "z**3 + z"]),
)
def test_exact_in_setting_i_for_any_truth_and_phi(seed, H, N, K, phi):
    """Random truths (H heads, N gates, K* channels, d = 2, unequal weights): the local recombination
    and the global alternative leave model (9) unchanged to rounding."""
    rng = np.random.default_rng(seed)
    M = rng.uniform(-1.5, 1.5, size=(H, N, 2, 2))
    M = (M + M.transpose(0, 1, 3, 2)) / 2
    M[:, -1] = 0.0
    truth = HMoEParams(rng.uniform(1.0, 3.0, size=(H, K)), M, rng.uniform(-2.0, 2.0, size=(H, N, K, 2)))
    model = Model("gated1", phi)
    Xs = X[:4000]
    g = model.value(truth, Xs)
    for G in (local_recombination(truth, K + 2, 0.3), global_alternative(truth, K + 1)):
        assert np.sqrt(np.mean((model.value(G, Xs) - g) ** 2)) <= 1e-12 * np.sqrt(np.mean(g**2))
