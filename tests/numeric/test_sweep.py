"""Sweeps: resumable store, --jobs independence, rates with honest CIs, clear errors."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from numeric import NumericError
from numeric.cli import main
from numeric.rates import fit_rate
from numeric.sweep import Grid, load_records, open_store, run_grid

SMALL = Grid(models=("mha", "gated1"), Ks=(2,), sizes=(300, 600), reps=2, seed=4)


def _rows(folder):
    keep = ("model", "K", "n", "rep", "seed", "voronoi_loss", "mse", "iterations")
    return sorted(tuple(r[k] for k in keep) for r in load_records(folder))


def test_jobs_1_and_2_give_identical_records(tmp_path):
    run_grid(SMALL, tmp_path / "a", jobs=1, progress=False)
    run_grid(SMALL, tmp_path / "b", jobs=2, progress=False)
    assert _rows(tmp_path / "a") == _rows(tmp_path / "b")
    assert len(_rows(tmp_path / "a")) == 8


def test_shards_merged_equal_the_whole_grid(tmp_path, capsys):
    """Two shards (as on two machines), merged, give exactly the single run's records."""
    run_grid(SMALL, tmp_path / "whole", jobs=1, progress=False)
    counts = [run_grid(SMALL, tmp_path / f"s{i}", jobs=1, progress=False, shard=(i, 2)) for i in range(2)]
    assert [c["ran"] for c in counts] == [4, 4]
    assert main(["merge", str(tmp_path / "merged"), str(tmp_path / "s0"), str(tmp_path / "s1"), "--json"]) == 0
    assert '"added": 8' in capsys.readouterr().out
    assert _rows(tmp_path / "merged") == _rows(tmp_path / "whole")
    # merging again adds nothing; a store with a different value for a key is reported, not mixed in
    from numeric.sweep import merge_stores

    assert merge_stores(tmp_path / "merged", [tmp_path / "s0"]) == {"added": 0, "already_present": 4, "conflicts": 0}
    tampered = open_store(tmp_path / "s1")
    tampered.execute("UPDATE fits SET mse = mse + 1")
    tampered.commit()
    tampered.close()
    assert merge_stores(tmp_path / "merged", [tmp_path / "s1"])["conflicts"] == 4
    assert _rows(tmp_path / "merged") == _rows(tmp_path / "whole")


def test_rerun_does_no_work(tmp_path):
    first = run_grid(SMALL, tmp_path, jobs=1, progress=False)
    again = run_grid(SMALL, tmp_path, jobs=1, progress=False)
    assert first["ran"] == 8 and again == {"total": 8, "ran": 0, "skipped": 8}


def test_kill_9_loses_no_finished_fit_and_duplicates_nothing(tmp_path):
    folder = tmp_path / "store"
    argv = [sys.executable, "-m", "numeric", "reproduce", "--models", "mha", "gated2", "--K", "2", "--sizes", "300", "600",
            "900", "--reps", "2", "--jobs", "1", "--out", str(folder)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    done_before = 0
    while time.time() < deadline:
        time.sleep(0.2)
        if (folder / "fits.sqlite").exists():
            try:
                with sqlite3.connect(folder / "fits.sqlite") as c:
                    done_before = c.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if done_before >= 3:
                break
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = _rows(folder)
    assert len(before) >= 3
    assert subprocess.run(argv, capture_output=True).returncode == 0
    after = _rows(folder)
    assert len(after) == 12 == len(set(after))
    assert set(before) <= set(after)  # finished fits kept as they were


def test_rate_fit_recovers_a_known_slope_with_the_ci_covering_it():
    rng = np.random.default_rng(1)
    sizes = np.logspace(4, 5, 10)
    covered = 0
    for trial in range(20):
        losses = 3.0 * sizes[:, None] ** -0.5 * np.exp(0.2 * rng.standard_normal((10, 10)))
        slope, low, high, _ = fit_rate(sizes, losses, seed=trial)
        assert abs(slope + 0.5) < 0.1
        covered += low <= -0.5 <= high
    assert covered >= 16  # a 95 % interval: at least 16 of 20 (the chance of fewer is < 2 %)


def test_rate_fit_refuses_bad_losses():
    with pytest.raises(NumericError, match="positive"):
        fit_rate([1e4, 2e4], [[1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(NumericError, match="shape"):
        fit_rate([1e4], [[1.0]])


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["reproduce", "--models", "bert", "--out", "X"], "unknown model"),
        (["reproduce", "--sizes", "5000", "--out", "X"], "at least two"),
        (["reproduce", "--sizes", "10", "20", "--out", "X"], "from 100"),
        (["reproduce", "--K", "1", "--out", "X"], "--K 1"),
        (["reproduce", "--reps", "0", "--out", "X"], "--reps 0"),
        (["reproduce", "--jobs", "0", "--sizes", "300", "600", "--out", "X"], "--jobs 0"),
        (["rates", "/nonexistent/store"], "no fit store"),
        (["ratio", "--model", "mha", "--mc", "10"], "--mc 10"),
        (["ratio", "--model", "mha", "--r", "9"], "--r 9"),
        (["ratio", "--model", "gpt"], "invalid choice"),
        (["reproduce", "--shard", "2/2", "--sizes", "300", "600", "--out", "X"], "--shard 2/2"),
        (["reproduce", "--shard", "half", "--sizes", "300", "600", "--out", "X"], "expected I/M"),
        (["merge", "X", "/nonexistent/store"], "no fit store"),
    ],
)
def test_bad_grid_arguments(tmp_path, capsys, argv, reason):
    argv = [a if a != "X" else str(tmp_path / "o") for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert reason in captured.err and captured.out == ""


def test_corrupt_store_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "fits.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(NumericError, match="not a valid fit store"):
        open_store(tmp_path)
    assert main(["rates", str(tmp_path)]) == 2
    assert "not a valid fit store" in capsys.readouterr().err


def test_plot_writes_png_and_pdf(tmp_path, capsys):
    run_grid(SMALL, tmp_path, jobs=1, progress=False)
    assert main(["plot", str(tmp_path)]) == 0
    assert (tmp_path / "rates.png").stat().st_size > 1000 and (tmp_path / "rates.pdf").stat().st_size > 1000


def test_theorem1_ratio_vanishes_for_mha_and_stays_for_gated():
    from numeric import load_truth
    from numeric.ratio import ratio_table

    truth = load_truth()
    ns = [10.0, 100.0, 1000.0]
    mha = [row.ratio for row in ratio_table("mha", truth, ns, mc=20_000)]
    assert mha[1] < mha[0] / 5 and mha[2] < mha[1] / 5  # ≈ 1/n
    for model in ("gated1", "gated2"):
        gated = [row.ratio for row in ratio_table(model, truth, ns, mc=20_000)]
        assert min(gated) > 0.05 and max(gated) / min(gated) < 1.1


def test_each_fit_runs_with_single_threaded_blas(monkeypatch):
    """Worker fits limit BLAS to one thread (two 2-thread OpenBLAS fits on 2 cores ran 3× slower)."""
    import types

    from threadpoolctl import threadpool_info, threadpool_limits

    from numeric.sweep import _run_one

    seen = []

    def fake_fit(*args, **kwargs):
        seen.append([pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"])
        return types.SimpleNamespace(
            voronoi_loss=0.0, loss_kind="L2", mse=0.0, truth_mse=0.0, iterations=0, converged=True, active_bounds=0, seconds=0.0
        )

    monkeypatch.setattr(sys.modules["numeric.fit"], "fit", fake_fit)
    key = ("gated1", 3, 100, 0, "lm", "paper", 2.0, 1)
    with threadpool_limits(limits=2):  # as a 2-core machine starts (CI pins 1 by environment)
        assert _run_one((key, None))[: len(key)] == key
    assert seen and seen[0] and all(count == 1 for count in seen[0])
