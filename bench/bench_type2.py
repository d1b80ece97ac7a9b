"""Benchmark: one type-2 check (d = 2, N = 2, K = 2, default probes), and the catalog.

Run by hand:  python3 bench/bench_type2.py [--repeats 3] [--no-catalog]

Each φ runs in a fresh process: cold = first check (builds and compiles the type-2 set), warm =
median of --repeats further checks. Imports and interpreter start-up are not included. The
catalog (27 activations × type-1 and type-2) is timed as the CLI runs it, with 2 processes.
"""

import argparse
import os
import platform
import subprocess
import sys
import time

PHIS = ["sigmoid(z + 1)", "z", "tanh(z)"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-catalog", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"{'phi':<16} {'cold':>6} {'warm median':>12} {'min':>6} {'max':>6}  verdict / literal")
    for phi in PHIS:
        code = f"""
import time, statistics
from identcheck import check
t = time.perf_counter(); r = check({phi!r}, condition="type2"); cold = time.perf_counter() - t
warm = []
for _ in range({args.repeats}):
    t = time.perf_counter(); check({phi!r}, condition="type2"); warm.append(time.perf_counter() - t)
print(
    f"{{cold:.2f}} {{statistics.median(warm):.2f}} {{min(warm):.2f}} {{max(warm):.2f}} "
    f"{{r.verdict.replace(' ', '_')}} {{r.details['literal_verdict'].replace(' ', '_')}}"
)
"""
        cold, med, lo, hi, verdict, literal = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
        ).stdout.split()
        print(
            f"{phi:<16} {cold:>6} {med:>12} {lo:>6} {hi:>6}  {verdict.replace('_', ' ')} / {literal.replace('_', ' ')}"
        )
    if not args.no_catalog:
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "identcheck", "catalog", "--markdown", "--jobs", "2"],
            capture_output=True,
            env=env,
            check=True,
        )
        print(
            "catalog (27 activations, type-1 + type-2, 2 processes, CLI wall time): "
            f"{time.perf_counter() - start:.1f} s"
        )


if __name__ == "__main__":
    main()
