"""Benchmark: peak memory (whole process) and time of one lm fit against n (the goal: memory bounded
by the data, not by n × P).

Run by hand:  python3 bench/bench_memory.py [--sizes 1000000 10000000] [--model gated1] [--K 4]

Each size runs in a fresh process (`numeric fit --json`), so the peak resident set size
(getrusage of the child) is that fit's alone: interpreter, libraries, data and the lm work.
Prints seconds, peak RSS, and the time ratio to the first size. Uses the local truth
(numeric/model/truths/local_sigmoid.json, box factor 10) so that the fits are in the regime of
docs/theorems.md.
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--model", default="gated1")
    parser.add_argument("--K", type=int, default=4)
    parser.add_argument("--truth", default="local_sigmoid")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; one BLAS thread")
    print(f"{'n':>10} {'seconds':>8} {'fit s':>7} {'peak RSS MB':>12} {'iters':>6} {'time ratio':>11}")
    first = None
    for n in args.sizes:
        argv = [
            sys.executable,
            "-m",
            "numeric",
            "fit",
            "--model",
            args.model,
            "--K",
            str(args.K),
            "--n",
            str(n),
            "--truth",
            args.truth,
            "--box",
            "10",
            "--json",
        ]
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        started = time.perf_counter()
        done = subprocess.run(
            argv, capture_output=True, text=True, env=os.environ | {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            print(f"{n:>10} failed: {done.stderr.strip()}")
            continue
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KB; the max over children so far
        result = json.loads(done.stdout)
        first = first or seconds
        note = "" if peak > before else " (peak of an earlier size)"
        print(
            f"{n:>10} {seconds:>8.1f} {result['seconds']:>7.1f} {peak / 1024:>12.0f} {result['iterations']:>6} "
            f"{seconds / first:>11.2f}{note}"
        )


if __name__ == "__main__":
    main()
