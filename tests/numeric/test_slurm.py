"""The SLURM recipe, run for real: a single-node cluster on this machine (bench/slurm_local.sh)."""

import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "slurm_local.sh"


@pytest.mark.slow
def test_a_slurm_array_of_shards_merges_into_the_one_machine_store(tmp_path):
    """Installs slurm-wlm when missing (root + apt), starts the daemons, runs 4 shards as an array,
    merges, compares record for record, stops the daemons."""
    done = subprocess.run(["bash", str(SCRIPT), str(tmp_path / "work")], capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "merged store equals the one-machine run: 36 records" in done.stdout
    running = subprocess.run(["pgrep", "-x", "slurmctld|slurmd"], capture_output=True, text=True)
    assert running.stdout == ""  # the script stopped what it started
