"""Parameter container and truth files: round trips, assumptions, clear errors."""

import json

import numpy as np
import pytest

from numeric import HMoEParams, Model, NumericError, load_truth
from numeric.cli.main import main


def test_vector_round_trip_keeps_symmetry_and_fixed_gate():
    truth = load_truth().params
    theta = truth.to_vector()
    assert theta.size == truth.size == 2 * 2 + 2 * 1 * 3 + 2 * 2 * 2 * 2
    back = HMoEParams.from_vector(theta, truth.H, truth.N, truth.K, truth.dim)
    assert np.array_equal(back.M, truth.M) and np.array_equal(back.a, truth.a)
    with pytest.raises(NumericError, match="shape"):
        HMoEParams.from_vector(theta[:-1], truth.H, truth.N, truth.K, truth.dim)


def test_shipped_truth_is_valid_and_the_signal_dominates_the_noise():
    truth = load_truth()
    assert truth.params.validate() is truth.params
    for model in ("mha", "gated1", "gated2"):
        assert truth.signal_to_noise(Model(model, truth.phi), n=20_000) > 10


def _write(tmp_path, **changes):
    data = json.loads(load_truth().source and open(load_truth().source).read())
    data.update(changes)
    path = tmp_path / "truth.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "changes, reason",
    [
        ({"omega": [[-1.0, 3.0], [4.0, 2.4]]}, "(A.2)"),
        ({"omega": [[0.0, 0.0], [0.0, 0.0]]}, "(A.2)"),
        ({"M": [[[[1.0, 0.2], [0.5, -1.0]], [[0, 0], [0, 0]]], [[[-1.5, 0], [0, 1.0]], [[0, 0], [0, 0]]]]}, "(A.3)"),
        ({"M": [[[[1.0, 0.5], [0.5, -1.0]], [[1, 0], [0, 0]]], [[[-1.5, 0], [0, 1.0]], [[0, 0], [0, 0]]]]}, "(A.3)"),
        ({"M": [[[[0, 0], [0, 0]], [[0, 0], [0, 0]]], [[[-1.5, 0], [0, 1.0]], [[0, 0], [0, 0]]]]}, "(A.4)"),
        (
            {"a": [[[[1, 1], [1, 1]], [[0.5, 1.5], [2, 0.5]]], [[[-2, -0.5], [1, 1]], [[-0.5, -2], [1.5, -1.5]]]]},
            "(A.5)",
        ),
        ({"omega": [[1.0, "x"], [1.0, 1.0]]}, "nested lists of numbers"),
        ({"omega": [[1.0, 2.0, 3.0], [4.0, 2.4, 1.0]]}, "inconsistent"),
        ({"noise_std": -1}, "noise_std"),
        ({"phi": 3}, "phi must be a string"),
        ({"omega": [[1.0, float("nan")], [1.0, 1.0]]}, "(A.1)"),
    ],
)
def test_bad_truth_files_name_the_assumption(tmp_path, changes, reason):
    path = _write(tmp_path, **changes)
    with pytest.raises(NumericError) as info:
        load_truth(path)
    assert reason in str(info.value) and "\n" not in str(info.value)


def test_unreadable_truth_files(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(NumericError, match="not valid JSON"):
        load_truth(bad)
    bad.write_text("[1, 2]")
    with pytest.raises(NumericError, match="JSON object"):
        load_truth(bad)
    with pytest.raises(NumericError, match="no such file"):
        load_truth(tmp_path / "missing.json")


def test_cli_rejects_a_bad_truth_file_with_exit_2(tmp_path, capsys):
    path = _write(tmp_path, omega=[[-1.0, 3.0], [4.0, 2.4]])
    assert main(["fit", "--model", "mha", "--n", "100", "--truth", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "(A.2)" in captured.err and len(captured.err.strip().splitlines()) == 1


@pytest.mark.parametrize("name", ["local_sigmoid", "local_sigmoid_b1"])
def test_local_truths_state_their_signal_and_separation_and_both_hold(name):
    from numeric.model.attention_truth import TRUTHS

    truth = load_truth(name)
    stated = json.loads(TRUTHS[name].read_text())
    for model, ratio in stated["signal_to_noise"].items():
        measured = truth.signal_to_noise(truth.model(model), n=50_000, seed=3)
        assert measured >= 10 and measured == pytest.approx(ratio, rel=0.05), model
    vectors = truth.params.a.reshape(-1, 2)
    pairs = [(i, j) for i in range(len(vectors)) for j in range(i + 1, len(vectors))]
    separation = stated["min_expert_separation"]
    assert min(np.linalg.norm(vectors[i] - vectors[j]) for i, j in pairs) == pytest.approx(
        separation["min |a - a'|"], abs=0.01
    )
    assert min(np.linalg.norm(vectors[i] + vectors[j]) for i, j in pairs) == pytest.approx(
        separation["min |a + a'|"], abs=0.01
    )
    assert (
        separation["min |a - a'|"] > 1.5 and separation["min |a + a'|"] > 1.5
    )  # far from a collision and from a2 = -a1


def test_truth_files_are_bounded_and_phi_is_checked(tmp_path):
    with pytest.raises(NumericError, match="larger than"):
        load_truth("/dev/zero")
    path = _write(tmp_path, phi="log(z)")
    with pytest.raises(NumericError, match="log"):  # identcheck refuses it: not real on [-1, 1]
        load_truth(path)
    path = _write(tmp_path, phi="sigmoid(z + b)", phi_params={"b": "1"})
    truth = load_truth(path)
    assert truth.phi_text == "sigmoid(z + b) [b=1]"
    assert truth.model("gated1").value(truth.params, np.zeros((1, 2)))[0] == pytest.approx(
        float(np.sum(truth.params.omega)) / (1 + np.exp(-1))
    )
    with pytest.raises(NumericError, match="noise_std"):
        load_truth(_write(tmp_path, noise_std=1e300))


def test_validation_of_many_components():
    """(A.5) by sorting, not by comparing every pair (20 000 vectors: 2·10⁸ pairs took minutes)."""
    rng = np.random.default_rng(0)
    H, N, K = 10, 2, 1000
    a = rng.normal(size=(H, N, K, 2))
    M = np.zeros((H, N, 2, 2))
    M[:, 0] = np.eye(2)
    params = HMoEParams(np.ones((H, K)), M, a)
    assert params.validate() is params
    a[3, 1, 7] = a[0, 0, 0]
    with pytest.raises(NumericError, match="A.5"):
        HMoEParams(np.ones((H, K)), M, a).validate()
