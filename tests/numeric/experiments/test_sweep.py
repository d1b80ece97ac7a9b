"""Sweeps: resumable store, --jobs independence, rates with honest CIs, clear errors."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from numeric import NumericError, load_truth
from numeric.cli.main import main
from numeric.experiments.slope import estimate_slope
from numeric.experiments.store import open_for_writing, read_records
from numeric.experiments.sweep import Grid, run_grid

from ..reproduce_support import slow_reproduce_argv

SMALL = Grid(models=("mha", "gated1"), Ks=(2,), sizes=(300, 600), reps=2, seed=4)


def _rows(folder):
    keep = ("settings_id", "model", "K", "n", "rep", "seed", "voronoi_loss", "mse", "iterations", "params")
    return sorted(tuple(getattr(r, k) for k in keep) for r in read_records(folder))


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
    from numeric.experiments.store import merge_stores

    assert merge_stores(tmp_path / "merged", [tmp_path / "s0"]) == {"added": 0, "already_present": 4, "conflicts": 0}
    tampered = open_for_writing(tmp_path / "s1")
    tampered.execute("UPDATE fits SET mse = mse + 1")
    tampered.commit()
    tampered.close()
    assert merge_stores(tmp_path / "merged", [tmp_path / "s1"])["conflicts"] == 4
    assert _rows(tmp_path / "merged") == _rows(tmp_path / "whole")


def test_rerun_does_no_work(tmp_path):
    first = run_grid(SMALL, tmp_path, jobs=1, progress=False)
    again = run_grid(SMALL, tmp_path, jobs=1, progress=False)
    assert first["ran"] == 8 and again == {"total": 8, "ran": 0, "skipped": 8, "settings": first["settings"]}


def test_kill_9_loses_no_finished_fit_and_duplicates_nothing(tmp_path):
    folder = tmp_path / "store"
    argv = [
        sys.executable,
        "-m",
        "numeric",
        "reproduce",
        "--models",
        "mha",
        "gated2",
        "--K",
        "2",
        "--sizes",
        "300",
        "600",
        "900",
        "--reps",
        "2",
        "--jobs",
        "1",
        "--out",
        str(folder),
    ]
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
    assert process.poll() is None, "the run ended before it was killed: the test would prove nothing"
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
        e = estimate_slope(sizes, losses, seed=trial)
        slope, low, high = e.slope, e.low, e.high
        assert abs(slope + 0.5) < 0.1
        covered += low <= -0.5 <= high
    assert covered >= 16  # a 95 % interval: at least 16 of 20 (the chance of fewer is < 2 %)


def test_rate_fit_refuses_bad_losses():
    with pytest.raises(NumericError, match="positive"):
        estimate_slope([1e4, 2e4], [[1.0, 0.0], [1.0, 1.0]])
    with pytest.raises(NumericError, match="shape"):
        estimate_slope([1e4], [[1.0], [2.0]])


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["reproduce", "--models", "bert", "--out", "X"], "unknown model"),
        (["reproduce", "--sizes", "5000", "--out", "X"], "at least two"),
        (["reproduce", "--sizes", "10", "20", "--out", "X"], "from 100"),
        (["reproduce", "--K", "1", "--sizes", "300", "600", "--out", "X"], "--K 1: below K* = 2"),
        (["reproduce", "--K", "17", "--out", "X"], "--K 17: must be from 1 to 16"),
        (["reproduce", "--reps", "0", "--out", "X"], "--reps 0: must be a positive integer"),
        (["reproduce", "--jobs", "0", "--sizes", "300", "600", "--out", "X"], "--jobs 0: must be a positive integer"),
        (["reproduce", "--preset", "locl", "--out", "X"], "did you mean 'local'"),
        (["reproduce", "--phi", "relu(z)", "--sizes", "300", "600", "--out", "X"], "relu"),
        (["reproduce", "--param", "b=1", "--sizes", "300", "600", "--out", "X"], "--param needs --phi"),
        (["fit", "--model", "gated1", "--phi", "sigmoid(z + b)", "--param", "b=x"], "is not a number"),
        (["fit", "--model", "gated1", "--phi", "exp(exp(exp(z)))", "--n", "300"], "not real and finite"),
        (["rates", "X", "--by-cell"], "no fit store"),
        (["reproduce", "--preset", "local", "--shard", "9/2", "--out", "X"], "--shard cannot be combined"),
        (["reproduce", "--preset", "local", "--models", "mha", "--out", "X"], "--models cannot be combined"),
        (["reproduce", "--preset", "local", "--phi", "tanh(z)", "--out", "X"], "--phi cannot be combined"),
        (["fit", "--model", "mha", "--phi", "tanh(z)"], "mha model has no gate"),
        (["rates", "/nonexistent/store"], "no fit store"),
        (["ratio", "--model", "mha", "--mc", "10"], "--mc 10"),
        (["ratio", "--model", "mha", "--r", "9"], "--r 9"),
        (["ratio", "--model", "gpt"], "--model 'gpt': not one of"),
        (["ratio", "--model", "gated1", "--ns", "1e300"], "--ns 1e+300"),
        (["ratio", "--model", "gated1", "--ns", "1e-300"], "--ns 1e-300"),
        (["fit", "--model", "mha", "--init", "fixed", "--init-scale", "1e308"], "--init-scale 1e+308: must be"),
        (["fit", "--model", "mha", "--box", "1e308"], "box_factor"),
        (["reproduce", "--shard", "2/2", "--sizes", "300", "600", "--out", "X"], "--shard 2/2"),
        (["reproduce", "--shard", "half", "--sizes", "300", "600", "--out", "X"], "expected I/M"),
        (["merge", "X", "/nonexistent/store"], "no fit store"),
    ],
)
def test_bad_grid_arguments(tmp_path, capsys, argv, reason):
    argv = [a if a != "X" else str(tmp_path / "o") for a in argv]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert reason in captured.err and captured.out == "" and len(captured.err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()  # refused before anything was written


def test_corrupt_store_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "fits.sqlite").write_bytes(b"this is not a database" * 100)
    with pytest.raises(NumericError, match="cannot be written as a fit store"):
        open_for_writing(tmp_path)
    assert main(["rates", str(tmp_path)]) == 2
    assert "not a fit store" in capsys.readouterr().err


@pytest.mark.parametrize("content", ["empty", "other sqlite"])
def test_reading_never_writes_into_a_file_that_is_not_a_store(tmp_path, capsys, content):
    path = tmp_path / "fits.sqlite"
    if content == "empty":
        path.write_bytes(b"")
    else:
        with sqlite3.connect(path) as c:
            c.execute("CREATE TABLE notes (x TEXT)")
    before = path.read_bytes()
    for command in (["rates", str(tmp_path)], ["rates", str(tmp_path), "--by-cell"], ["plot", str(tmp_path)]):
        assert main(command) == 2
        assert "not a fit store" in capsys.readouterr().err
    assert path.read_bytes() == before


def test_an_unwritable_store_fails_before_the_first_fit(tmp_path, monkeypatch):
    if os.geteuid() == 0:  # root writes anywhere: make the store file read-only for sqlite instead
        run_grid(Grid(models=("mha",), Ks=(2,), sizes=(300, 600), reps=1), tmp_path, progress=False)
        connect = sqlite3.connect
        monkeypatch.setattr(sqlite3, "connect", lambda path, *a, **k: connect(f"file:{path}?mode=ro", uri=True))
    else:
        tmp_path.chmod(0o500)
    fits = []
    monkeypatch.setattr(sys.modules["numeric.fitting.attention_fit"], "fit", lambda *a, **k: fits.append(1))
    with pytest.raises(NumericError, match="cannot be written"):
        run_grid(SMALL, tmp_path, progress=False)
    assert fits == []


def test_records_of_other_settings_are_kept_apart_and_never_pooled(tmp_path):
    from numeric import load_truth
    from numeric.experiments.rates import rates_from_records
    from numeric.experiments.store import read_settings

    grid = Grid(models=("gated1",), Ks=(2,), sizes=(300, 600), reps=2, seed=4)
    first = run_grid(grid, tmp_path, progress=False)
    again = run_grid(grid, tmp_path, progress=False, truth=load_truth().with_phi("sigmoid(z + b)", {"b": "1"}))
    assert first["ran"] == again["ran"] == 4 and first["settings"] != again["settings"]
    wider = run_grid(
        Grid(models=("gated1",), Ks=(2,), sizes=(300, 600), reps=2, seed=4, box=3.0), tmp_path, progress=False
    )
    assert wider["ran"] == 4
    records = read_records(tmp_path)
    settings = read_settings(tmp_path)
    assert len(records) == 12 and len(settings) == 3
    rates = rates_from_records(records, settings)
    assert len(rates) == 3 and {r.n_reps for r in rates} == {2}
    assert any("sigmoid(z + b) [b=1]" in r.settings for r in rates) and any("box 3" in r.settings for r in rates)


def test_repetitions_get_different_data(tmp_path):
    grid = Grid(models=("gated1",), Ks=(2,), sizes=(300, 600), reps=3, seed=4)
    run_grid(grid, tmp_path, progress=False)
    records = read_records(tmp_path)
    for n in (300, 600):
        same_n = [r for r in records if r.n == n]
        assert len({r.seed for r in same_n}) == 3 and len({r.mse for r in same_n}) == 3


def test_a_loss_is_recomputed_from_the_store_alone(tmp_path):
    from numeric import voronoi_loss
    from numeric.experiments.store import read_settings
    from numeric.model.attention_truth import truth_from_dict

    run_grid(SMALL, tmp_path, progress=False)
    settings = read_settings(tmp_path)
    for r in read_records(tmp_path):
        truth = truth_from_dict(settings[r.settings_id].truth, "store")
        assert voronoi_loss(r.fitted(), truth.params, r.loss_kind) == pytest.approx(
            r.voronoi_loss, rel=1e-12, abs=1e-15
        )
        assert r.start_mse > r.mse  # the fit moved downhill from its start


def test_a_weak_truth_is_refused_unless_allowed(tmp_path, capsys):
    data = json.loads(open(load_truth().source).read())
    data["omega"] = [[0.2, 0.3], [0.4, 0.24]]
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(data))
    argv = [
        "reproduce",
        "--models",
        "gated1",
        "--K",
        "2",
        "--sizes",
        "300",
        "600",
        "--reps",
        "1",
        "--jobs",
        "1",
        "--truth",
        str(path),
    ]
    assert main(argv + ["--out", str(tmp_path / "a")]) == 2
    assert "below 10" in capsys.readouterr().err and not (tmp_path / "a").exists()
    assert main(argv + ["--out", str(tmp_path / "b"), "--allow-weak-truth"]) == 0


def test_workers_die_with_their_parent(tmp_path):
    argv = slow_reproduce_argv(tmp_path)
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    children: set = set()
    deadline = time.time() + 60
    while time.time() < deadline and len(children) < 2:
        time.sleep(0.2)
        for task in os.listdir(f"/proc/{process.pid}/task"):
            with open(f"/proc/{process.pid}/task/{task}/children") as handle:
                children |= {int(pid) for pid in handle.read().split()}
    assert process.poll() is None and len(children) >= 2
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in children):
        time.sleep(0.2)
    assert not any(os.path.exists(f"/proc/{pid}") and _alive(pid) for pid in children)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_plot_writes_png_and_pdf(tmp_path, capsys):
    run_grid(SMALL, tmp_path, jobs=1, progress=False)
    assert main(["plot", str(tmp_path)]) == 0
    # every quantity's figure is rates_<quantity>, voronoi's too (rates_voronoi.png, not rates.png)
    assert main(["plot", str(tmp_path), "--quantity", "regression"]) == 0
    written = sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".png", ".pdf"))
    assert written == ["rates_regression.pdf", "rates_regression.png", "rates_voronoi.pdf", "rates_voronoi.png"]
    assert all((tmp_path / name).stat().st_size > 1000 for name in written)


def test_theorem1_ratio_vanishes_for_mha_and_stays_for_gated():
    from numeric import load_truth
    from numeric.confirm.ratio import ratio_table

    truth = load_truth()
    ns = [10.0, 100.0, 1000.0]
    mha = [row.ratio for row in ratio_table("mha", truth, ns, mc=20_000)]
    assert mha[1] < mha[0] / 5 and mha[2] < mha[1] / 5  # ≈ 1/n
    for model in ("gated1", "gated2"):
        gated = [row.ratio for row in ratio_table(model, truth, ns, mc=20_000)]
        assert min(gated) > 0.05 and max(gated) / min(gated) < 1.1


def test_each_fit_runs_with_single_threaded_blas(monkeypatch):
    """Worker fits limit BLAS to one thread (two 2-thread OpenBLAS fits on 2 cores ran 3× slower)."""

    from threadpoolctl import threadpool_info, threadpool_limits

    from numeric.experiments.sweep import _run_one

    seen = []

    from numeric import load_truth
    from numeric.fitting.attention_fit import fit

    def spy_fit(*args, **kwargs):
        seen.append([pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"])
        return fit(*args, **kwargs)

    monkeypatch.setattr(sys.modules["numeric.fitting.attention_fit"], "fit", spy_fit)
    settings = Grid(models=("gated1",), Ks=(3,)).settings(load_truth())
    with threadpool_limits(limits=2):  # as a 2-core machine starts (CI pins 1 by environment)
        record = _run_one((settings.to_json(), "gated1", 3, 300, 0, 1))
    assert (record.model, record.K, record.n, record.rep, record.seed) == ("gated1", 3, 300, 0, 1)
    assert seen and seen[0] and all(count == 1 for count in seen[0])


@pytest.mark.slow
def test_local_preset_quick_has_the_shape_of_the_full_preset(tmp_path):
    """Both truths, exact- and over-specified K, every model; the box never binds at the quick sizes
    for the exact-specified fits; rates come out per truth."""
    from numeric.experiments.rates import rates_from_records
    from numeric.experiments.store import read_settings
    from numeric.experiments.sweep import PRESETS, run_preset

    counts = run_preset("local", tmp_path, jobs=2, quick=True, progress=False)
    assert [c["truth"] for c in counts] == [leg.truth for leg in PRESETS["local"].legs]
    records = read_records(tmp_path)
    assert {(r.model, r.K) for r in records} == {("mha", 2), ("mha", 3)} | {
        (m, K) for m in ("gated1", "gated2") for K in (2, 3, 4)
    }
    rates = rates_from_records(records, read_settings(tmp_path), ("voronoi", "regression", "exact_param"))
    assert len({r.settings_id for r in rates}) == 2
    assert all(r.share_at_or_below_truth == 1.0 for r in rates if r.quantity == "regression")


def test_settings_ids_follow_what_changes_a_result_not_its_spelling():
    from numeric.experiments.sweep import PRESETS

    truth = load_truth("local_sigmoid")
    grid = Grid(models=("gated1",), Ks=(2,))
    spelled = [
        truth.with_phi("sigmoid(z+1)"),
        truth.with_phi("sigmoid(z + b)", {"b": "1"}),
        load_truth("local_sigmoid_b1"),
    ]
    assert len({grid.settings(t).id for t in spelled}) == 1  # one phi, one parameter set: one experiment
    assert grid.settings(truth).id != grid.settings(spelled[0]).id
    assert Grid(models=("gated1",), Ks=(2,), box=3.0).settings(truth).id != grid.settings(truth).id
    quick = [g.settings(t).id for t, g in PRESETS["local"].grids(quick=True)]
    full = [g.settings(t).id for t, g in PRESETS["local"].grids()]
    assert not set(quick) & set(full)  # a quick run is never pooled with the full preset


@pytest.mark.parametrize("name", ["odd?name", "odd#name"])
def test_reading_a_store_in_a_folder_with_uri_characters(tmp_path, name):
    folder = tmp_path / name
    run_grid(Grid(models=("mha",), Ks=(2,), sizes=(300, 600), reps=1), folder, progress=False)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert len(read_records(folder)) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing created beside it


def test_theory_slope_is_the_derivative_of_the_log_rate():
    """d/d log n of α·log(log n / n) = α(1/log n − 1): at n = 10⁵ (the middle of 10⁴…10⁶) −0.4566 for α = ½;
    log log n is nearly linear over two decades, so the fitted slope is within 0.003 of it."""
    from numeric.experiments.rates import theory_slope

    sizes = np.logspace(4, 6, 7)
    assert theory_slope(0.5, sizes) == pytest.approx(0.5 * (1 / np.log(1e5) - 1), abs=0.003)
    assert theory_slope(0.25, sizes) == pytest.approx(0.25 * (1 / np.log(1e5) - 1), abs=0.002)
    assert theory_slope(None, sizes) is None
