"""Parameter container and truth files: round trips, assumptions, clear errors."""

import json

import numpy as np
import pytest

from numeric import HMoEParams, Model, NumericError, load_truth
from numeric.cli import main


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
        ({"a": [[[[1, 1], [1, 1]], [[0.5, 1.5], [2, 0.5]]], [[[-2, -0.5], [1, 1]], [[-0.5, -2], [1.5, -1.5]]]]}, "(A.5)"),
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
