"""Ctrl-C and SIGTERM end the multi-process commands within 2 s, workers included, nothing
half-written (docs/architecture.md; the pool itself: test_pool.py; every command at random moments:
bench/bench_interrupt.py)."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.identcheck.util.test_pool import _alive


def workers_of(pid: int) -> set[int]:
    """The children of ``pid`` (from /proc)."""
    found = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as handle:
            found |= {int(p) for p in handle.read().split()}
    return found


def interrupt_when_working(argv, signum, to_group, cwd, ready=lambda: True, timeout=60):
    """Start ``argv`` in a process group of its own; once it has two workers and ``ready()``,
    send ``signum`` (to the group, as a terminal's Ctrl-C, or to the main process alone).
    Returns (exit code, seconds from the signal to the exit, workers, stdout, stderr)."""
    process = subprocess.Popen(
        argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + timeout
        workers: set = set()
        while time.monotonic() < deadline and process.poll() is None and not (len(workers) >= 2 and ready()):
            time.sleep(0.1)
            workers = workers_of(process.pid)
        assert process.poll() is None and len(workers) >= 2, (
            "the command ended or started no workers: the test would prove nothing"
        )
        sent = time.monotonic()
        (os.killpg if to_group else os.kill)(process.pid, signum)
        out, err = process.communicate(timeout=10)
        return process.returncode, time.monotonic() - sent, workers, out, err
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def test_sigterm_ends_the_catalog_within_2_s_and_writes_nothing(tmp_path):
    out = tmp_path / "catalog.md"
    argv = [sys.executable, "-m", "identcheck", "catalog", "--jobs", "2", "--markdown", "--out", str(out)]
    code, seconds, workers, stdout, stderr = interrupt_when_working(argv, signal.SIGTERM, False, tmp_path)
    assert code == 143, stderr
    assert seconds < 2.0
    assert not any(_alive(p) for p in workers)
    assert stderr.strip().splitlines()[-1] == (
        "identcheck: interrupted (SIGTERM): nothing written: "
        "the catalog is printed, or written to --out, only when complete"
    )
    assert stdout == "" and list(tmp_path.iterdir()) == []  # no catalog, no temporary file


def test_ctrl_c_ends_a_two_parameter_scan_within_2_s_and_writes_nothing(tmp_path):
    argv = [
        sys.executable,
        "-m",
        "identcheck",
        "scan",
        "sigmoid(a*z + b)",
        "--param",
        "a=1/2:2:21",
        "--param",
        "b=-1:1:21",
        "--jobs",
        "2",
        "--plot",
        str(tmp_path / "map.png"),
    ]
    code, seconds, workers, stdout, stderr = interrupt_when_working(argv, signal.SIGINT, True, tmp_path)
    assert code == 130, stderr
    assert seconds < 2.0
    assert not any(_alive(p) for p in workers)
    assert "identcheck: interrupted (SIGINT): nothing written" in stderr
    assert stdout == "" and list(tmp_path.iterdir()) == []


CLI_MODULE = {"identcheck": "identcheck.cli.main", "numeric": "numeric.cli.main"}


@pytest.mark.parametrize("package", ["identcheck", "numeric"])
def test_a_ctrl_c_after_the_command_answered_keeps_its_exit_code(package):
    """A SIGINT that arrives once the command has answered (during the interpreter's exit) must not
    turn the exit into a death by signal (seen: a finished reproduce ended with −2)."""
    code = (
        f"import os, signal, time\nimport {CLI_MODULE[package]} as cli\ncli.main = lambda: 7\ncode = cli.program()\n"
        "os.kill(os.getpid(), signal.SIGINT)\ntime.sleep(0.2)\nraise SystemExit(code)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 7 and "Traceback" not in result.stderr
