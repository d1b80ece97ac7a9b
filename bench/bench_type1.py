"""Benchmark: one type-1 check of one phi with all default probes, by dimension.

Run by hand:  python3 bench/bench_type1.py [--repeats 5] [--dims 2 3 4]

Prints, per (d, phi): the cold time (first check in a fresh process: builds and compiles the
term set, then checks), the warm median and spread over --repeats further checks (term set
cached), and the number of probes escalated to higher precision. Interpreter start-up and
imports are NOT included in these figures; the last block times the whole CLI command
(`python3 -m identcheck check PHI`), which includes them.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

PHIS = ["sigmoid(z + 1)", "z", "tanh(z)", "gelu(z)"]


def one_process(dim: int, phi: str, repeats: int) -> str:
    code = f"""
import time, statistics
t0 = time.perf_counter()
from identcheck import check
t1 = time.perf_counter()
r = check({phi!r}, dim={dim})
t2 = time.perf_counter()
warm = []
for _ in range({repeats}):
    s = time.perf_counter(); check({phi!r}, dim={dim}); warm.append(time.perf_counter() - s)
escalated = sum(1 for p in r.probes if p.precision_digits > 16)
print(
    f"{{t1 - t0:.2f}} {{t2 - t1:.2f}} {{statistics.median(warm):.2f}} {{min(warm):.2f}} {{max(warm):.2f}} "
    f"{{escalated}} {{len(r.probes)}} {{r.verdict.replace(' ', '_')}}"
)
"""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.split()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 3, 4])
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, BLAS threads 1")
    print(f"{'d':>2}  {'phi':<16} {'import':>6} {'cold':>6} {'warm med':>8} {'min':>5} {'max':>5}  escalated  verdict")
    for dim in args.dims:
        for phi in PHIS:
            imp, cold, med, lo, hi, esc, n, verdict = one_process(dim, phi, args.repeats)
            print(
                f"{dim:>2}  {phi:<16} {imp:>6} {cold:>6} {med:>8} {lo:>5} {hi:>5}  {esc:>4}/{n:<4}  "
                f"{verdict.replace('_', ' ')}"
            )
    print("\nwhole CLI command (interpreter start-up + imports + check), median of 3:")
    for phi in PHIS[:2]:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "identcheck", "check", phi], capture_output=True, check=True)
            times.append(time.perf_counter() - start)
        print(f"   python3 -m identcheck check {phi!r}: {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
