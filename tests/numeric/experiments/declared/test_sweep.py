"""Declared sweeps: resumable (an interrupted run resumed ends with the uninterrupted run's records),
independent of jobs and shards, one model per store, old hand-written stores still read."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from identcheck.declaration import canonical_form, digest, example_path, read_example
from numeric.cli.main import main
from numeric.errors import NumericError
from numeric.experiments.declared import DeclaredGrid, merge_declared, read_declared, run_declared
from numeric.experiments.declared import sweep as declared_sweep

MODEL = read_example("softmax-gaussian-moe")
GRID = DeclaredGrid(sizes=(200, 400, 800), reps=2, seed=3)


def _rows(folder):
    """Every record without its timing (the whole fit record too, its seconds left out)."""
    out = []
    for r in read_declared(folder)[1]:
        fit = r.fit()
        fit.pop("seconds")
        values = (r.digest, r.seed, r.objective, r.truth_objective, r.loss, r.worse_than_truth)
        out.append((r.key, *values, json.dumps(fit)))
    return sorted(out)


def test_an_interrupted_and_resumed_sweep_ends_with_the_uninterrupted_records(tmp_path, monkeypatch):
    run_declared(MODEL, GRID, tmp_path / "whole", progress=False)
    real, calls = declared_sweep.fit_declared, []

    def interrupted_after_three(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(declared_sweep, "fit_declared", interrupted_after_three)
    with pytest.raises(KeyboardInterrupt):
        run_declared(MODEL, GRID, tmp_path / "resumed", progress=False)
    assert len(_rows(tmp_path / "resumed")) == 3  # the finished fits were committed
    monkeypatch.setattr(declared_sweep, "fit_declared", real)
    counts = run_declared(MODEL, GRID, tmp_path / "resumed", progress=False)
    assert (counts["ran"], counts["skipped"], counts["total"]) == (3, 3, 6)
    assert _rows(tmp_path / "resumed") == _rows(tmp_path / "whole")


@pytest.mark.slow
def test_kill_9_of_a_declared_reproduce_then_rerun_gives_the_uninterrupted_records(tmp_path):
    argv = [sys.executable, "-m", "numeric", "reproduce", "--model-file", str(example_path("deepseek-d2"))]
    argv += ["--sizes", "3000", "6000", "--reps", "4", "--jobs", "1", "--seed", "1"]
    folder = tmp_path / "killed"
    process = subprocess.Popen(argv + ["--out", str(folder)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline, done = time.time() + 120, 0
    while time.time() < deadline and done < 2:
        time.sleep(0.1)
        try:
            with sqlite3.connect(f"file:{folder / 'declared.sqlite'}?mode=ro", uri=True) as connection:
                done = connection.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
        except sqlite3.OperationalError:
            continue
    assert process.poll() is None, "the run ended before it was killed: the test would prove nothing"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    before = _rows(folder)
    assert 2 <= len(before) < 8
    assert subprocess.run(argv + ["--out", str(folder)], capture_output=True).returncode == 0
    assert subprocess.run(argv + ["--out", str(tmp_path / "whole")], capture_output=True).returncode == 0
    assert set(before) <= set(_rows(folder))
    assert _rows(folder) == _rows(tmp_path / "whole")


def test_jobs_and_shards_do_not_change_the_records(tmp_path):
    run_declared(MODEL, GRID, tmp_path / "one", progress=False)
    run_declared(MODEL, GRID, tmp_path / "two", jobs=2, progress=False)
    assert _rows(tmp_path / "one") == _rows(tmp_path / "two")
    for i in range(2):
        run_declared(MODEL, GRID, tmp_path / f"s{i}", progress=False, shard=(i, 2))
    assert merge_declared(tmp_path / "merged", [tmp_path / "s0", tmp_path / "s1"])["added"] == 6
    assert _rows(tmp_path / "merged") == _rows(tmp_path / "one")
    again = merge_declared(tmp_path / "merged", [tmp_path / "s0"])
    assert (again["added"], again["already_present"], again["conflicts"]) == (0, 3, 0)


def test_records_keep_the_declarations_digest_and_canonical_content(tmp_path):
    run_declared(MODEL, GRID, tmp_path, progress=False)
    store, records = read_declared(tmp_path)
    assert store.digest == digest(MODEL) and store.canonical == canonical_form(MODEL)
    assert {r.digest for r in records} == {digest(MODEL)}
    assert all(r.fit()["canonical"] == canonical_form(MODEL) for r in records)


def test_a_store_of_another_model_refuses_in_one_line(tmp_path, capsys):
    run_declared(MODEL, GRID, tmp_path / "a", progress=False)
    other = read_example("least-squares")
    with pytest.raises(NumericError, match="two models never pool"):
        run_declared(other, GRID, tmp_path / "a", progress=False)
    argv = ["reproduce", "--model-file", str(example_path("least-squares")), "--sizes", "200", "400"]
    assert main(argv + ["--reps", "1", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds model 'softmax-gaussian-moe'" in err
    run_declared(other, DeclaredGrid((200, 400), 1), tmp_path / "b", progress=False)
    with pytest.raises(NumericError, match="two models never pool"):
        merge_declared(tmp_path / "a", [tmp_path / "b"])
    assert len(read_declared(tmp_path / "a")[1]) == 6  # nothing written


def test_an_old_hand_written_store_still_reads(tmp_path, capsys):
    """A fits.sqlite of the hand-written models (schema 2) is read as before, and a declared grid
    does not write into its folder."""
    from numeric.experiments.store import SCHEMA_VERSION, read_records
    from numeric.experiments.sweep import Grid, run_grid

    run_grid(Grid(models=("mha",), Ks=(2,), sizes=(300, 600), reps=1), tmp_path, progress=False)
    with sqlite3.connect(tmp_path / "fits.sqlite") as connection:
        assert connection.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 2
    assert len(read_records(tmp_path)) == 2
    assert main(["rates", str(tmp_path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["schema"] == "numeric.rates/2"
    with pytest.raises(NumericError, match="hand-written models' store"):
        run_declared(MODEL, GRID, tmp_path, progress=False)
    assert not (tmp_path / "declared.sqlite").exists()


@pytest.mark.parametrize(
    "flag", [["--K", "4"], ["--models", "mha"], ["--optimizer", "gd"], ["--preset", "local"], ["--truth", "x"]]
)
def test_hand_written_flags_are_refused_with_a_declaration(tmp_path, capsys, flag):
    argv = ["reproduce", "--model-file", str(example_path("least-squares")), "--out", str(tmp_path / "s"), *flag]
    assert main(argv) == 2
    assert "does not apply to --model-file" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_bad_declared_grids_name_the_parameter(tmp_path):
    with pytest.raises(NumericError, match="sizes"):
        run_declared(MODEL, DeclaredGrid((200,), 2), tmp_path, progress=False)
    with pytest.raises(NumericError, match="method"):
        run_declared(MODEL, DeclaredGrid((200, 400), 2, method="lm"), tmp_path, progress=False)
    assert not (tmp_path / "declared.sqlite").exists()


def test_a_hand_written_grid_is_refused_in_a_declared_stores_folder(tmp_path, capsys):
    run_declared(MODEL, GRID, tmp_path, progress=False)
    assert main(["reproduce", "--models", "mha", "--K", "2", "--sizes", "300", "600", "--out", str(tmp_path)]) == 2
    assert "holds a declared model's store" in capsys.readouterr().err
    assert not (tmp_path / "fits.sqlite").exists()


def test_declared_flags_need_a_declaration(tmp_path, capsys):
    assert main(["reproduce", "--restarts", "2", "--out", str(tmp_path / "s")]) == 2
    assert "need --model-file" in capsys.readouterr().err
