"""Benchmark: ``numeric confirm PHI --quick`` wall time (goal: ≤ 3 min, the sequence part ≤ 20 s; docs/confirm.md).

Run by hand:  python3 bench/bench_confirm.py [--jobs 1] [--phi 'z' ...]

Each φ runs as the command line runs it, in a fresh process with single-threaded BLAS, into a
fresh temporary folder (no stored fits reused). Wall time includes interpreter start-up and
imports; the split (identcheck's check, the sequences, the rate grid) comes from the run's JSON.
Before ``confirm`` is wired into ``numeric/cli/main.py`` the command goes through a two-line harness
around :mod:`numeric.confirm.cli`.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

PHIS = ["z", "tanh(z)", "sigmoid(z + 1)"]
HARNESS = (
    "import argparse, sys; from numeric.confirm import cli as confirm_cli; p = argparse.ArgumentParser(); "
    "confirm_cli.add_parser(p.add_subparsers(dest='command')); sys.exit(confirm_cli.run(p.parse_args(sys.argv[1:])))"
)


def _command() -> list:
    wired = subprocess.run([sys.executable, "-m", "numeric", "confirm", "--help"], capture_output=True)
    return [sys.executable, "-m", "numeric"] if wired.returncode == 0 else [sys.executable, "-c", HARNESS]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--phi", action="append", default=None)
    parser.add_argument("--condition", default="type1")
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    command = _command()
    print(
        f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"load average {os.getloadavg()[0]:.2f} at start; via {'numeric CLI' if '-m' in command else 'harness'}"
    )
    print(f"{'phi':<16} {'wall':>6} {'check':>6} {'seq.':>6} {'rates':>6} {'rounds':>6}  outcome")
    for phi in args.phi or PHIS:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            run = subprocess.run(
                command
                + [
                    "confirm",
                    phi,
                    "--condition",
                    args.condition,
                    "--quick",
                    "--json",
                    "--jobs",
                    str(args.jobs),
                    "--out",
                    folder,
                ],
                capture_output=True,
                text=True,
                env=env,
            )
            wall = time.perf_counter() - started
        if run.returncode != 0:
            print(f"{phi:<16} failed (exit {run.returncode}): {run.stderr.strip()}")
            continue
        result = json.loads(run.stdout)
        print(
            f"{phi:<16} {wall:6.1f} {result['check_seconds']:6.1f} {result['sequence_seconds']:6.1f} "
            f"{result['rates_seconds']:6.1f} {(result['rates_separation'] or {}).get('rounds', 0):6d}  "
            f"{result['outcome']}"
        )


if __name__ == "__main__":
    main()
