"""The SLURM recipe, run for real: a single-node cluster on this machine (bench/slurm_local.sh)."""

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "slurm_local.sh"


@pytest.mark.slow
def test_a_slurm_array_of_shards_merges_into_the_one_machine_store(tmp_path):
    """Installs slurm-wlm when missing (root + apt), starts the daemons, runs 4 shards as an array,
    merges, compares record for record, stops the daemons."""
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "work")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "merged store equals the one-machine run: 36 records" in done.stdout
    running = subprocess.run(["pgrep", "-x", "slurmctld|slurmd"], capture_output=True, text=True)
    assert running.stdout == ""  # the script stopped what it started


# --- the tasks run the Python that has the project, and say so when they cannot --------------------

import sys  # noqa: E402

SBATCH = Path(__file__).resolve().parents[3] / "docs" / "slurm" / "reproduce.sbatch"


def _task(tmp_path, **env):
    """Run the batch file as SLURM would run task 0 of 2, outside any activated environment: the
    `python3` on PATH is one without the project's dependencies (site-packages off)."""
    fake = tmp_path / "bin"
    fake.mkdir(exist_ok=True)
    (fake / "python3").write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    (fake / "python3").chmod(0o755)
    environment = {"PATH": f"{fake}:/usr/bin:/bin", "SLURM_ARRAY_TASK_ID": "0", "HOME": str(tmp_path), **env}
    return subprocess.run(
        ["bash", str(SBATCH), str(tmp_path / "run"), "2", "--sizes", "0"],
        capture_output=True,
        text=True,
        env=environment,
        cwd=tmp_path,
        timeout=120,
    )


def test_a_task_without_the_project_says_so_in_one_line(tmp_path):
    done = _task(tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("reproduce.sbatch: python3 cannot run numeric (ModuleNotFoundError")
    assert "NUMERIC_PYTHON" in lines[0] and "Traceback" not in done.stderr


def test_a_task_runs_numeric_python(tmp_path):
    done = _task(tmp_path, NUMERIC_PYTHON=sys.executable)
    # numeric itself answered (its own one-line refusal of --sizes 0): the interpreter had the project
    assert done.returncode == 2 and done.stderr.strip() == "numeric: error: --sizes 0: must be a positive integer"


def test_the_local_cluster_script_passes_the_interpreter_on():
    text = SCRIPT.read_text(encoding="utf-8")
    assert '--export=ALL,NUMERIC_PYTHON="$python"' in text and "python3 -m numeric" not in text


def test_a_task_follows_the_output_path_policy(tmp_path):
    """OUT is made (its shards go inside) only inside an existing folder, as every output path is."""
    environment = {"PATH": "/usr/bin:/bin", "SLURM_ARRAY_TASK_ID": "0", "NUMERIC_PYTHON": sys.executable}
    missing = tmp_path / "no" / "run"
    done = subprocess.run(
        ["bash", str(SBATCH), str(missing), "2"], capture_output=True, text=True, env=environment, timeout=120
    )
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"reproduce.sbatch: OUT '{missing}': folder '{missing.parent}' does not exist "
        "(a new output folder is made only inside an existing one)"
    )
    assert not (tmp_path / "no").exists()
