"""Benchmark: hard-but-valid activations must finish in bounded time (docs/performance.md).

Run by hand:  python3 bench/bench_hard.py [--certify] [--catalog] [--dim 2] [--limit 180]

Each φ runs as its own process (`python3 -m identcheck check PHI --dim D [--certify] --json`),
so nothing is cached between them and a hang is cut at --limit seconds (reported as TIMEOUT,
never waited for). Prints per φ the wall time, the verdict, the evidence and how many relations
reported `timed_out` (a proof stopped by identcheck's own budget, see identcheck/util/budget.py);
then the median and the worst case. Goals at d = 2: plain check ≤ 30 s, --certify ≤ 60 s.
Wall time includes the interpreter start and imports (~2 s).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HARD = [
    # slow for sympy: a sum of shifted sigmoids and deep compositions
    "sigmoid(z + 1) + sigmoid(z - 1)",
    "sin(sin(sin(sin(sin(z)))))",
    "sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(sigmoid(z))))))))))",
    # nested compositions
    "sin(sin(sin(sin(sin(sin(sin(sin(z))))))))",
    "tanh(sin(exp(z)))",
    "exp(sin(z)) * cos(tanh(z))",
    # sums of shifted sigmoids / tanh
    "sigmoid(z + 2) + sigmoid(z) + sigmoid(z - 2)",
    "tanh(z + 1) - tanh(z - 1)",
    # products and high powers
    "sigmoid(z) * tanh(z + 1)",
    "z**7 * exp(z)",
    "z**9 + z**4",
    "erf(z) * softplus(z)",
]


def run_one(phi: str, dim: int, certify: bool, limit: float) -> dict:
    argv = [sys.executable, "-m", "identcheck", "check", phi, "--dim", str(dim), "--json"]
    if certify:
        argv.append("--certify")
    started = time.perf_counter()
    try:
        done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return {"phi": phi, "seconds": limit, "status": "TIMEOUT", "verdict": "-", "evidence": "-", "timed_out": "-"}
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {
            "phi": phi,
            "seconds": seconds,
            "status": f"exit {done.returncode}: {last[:60]}",
            "verdict": "-",
            "evidence": "-",
            "timed_out": "-",
        }
    result = json.loads(done.stdout)
    result = result[0] if isinstance(result, list) else result
    late = sum(bool(r.get("timed_out")) for p in result["probes"] for r in p["relations"])
    late += sum((p.get("certificate") or {}).get("detail", {}).get("timed_out", 0) for p in result["probes"])
    return {
        "phi": phi,
        "seconds": seconds,
        "status": "ok",
        "verdict": result["verdict"],
        "evidence": result["evidence"],
        "timed_out": late,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dim", type=int, default=2)
    parser.add_argument("--certify", action="store_true")
    parser.add_argument("--catalog", action="store_true", help="also run every catalog activation")
    parser.add_argument("--limit", type=float, default=180.0, help="seconds before a run is cut (TIMEOUT)")
    args = parser.parse_args()
    phis = list(HARD)
    if args.catalog:
        sys.path.insert(0, str(ROOT))
        from identcheck.catalog.activations import CATALOG

        phis += [phi for phi, _ in CATALOG]
    goal = 60 if args.certify else 30
    print(f"# bench_hard: d = {args.dim}, {'--certify' if args.certify else 'plain check'}, goal <= {goal} s")
    print(
        f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}; "
        "shared machine: figures are pessimistic"
    )
    rows = []
    for phi in phis:
        row = run_one(phi, args.dim, args.certify, args.limit)
        rows.append(row)
        flag = (
            ""
            if row["status"] == "ok" and row["seconds"] <= goal
            else "  <-- over goal"
            if row["status"] == "ok"
            else f"  <-- {row['status']}"
        )
        print(
            f"{row['seconds']:7.1f} s  {row['verdict']:>17}  {row['evidence']:>8}  "
            f"timed_out={row['timed_out']}  {phi}{flag}",
            flush=True,
        )
    times = [r["seconds"] for r in rows]
    worst = max(rows, key=lambda r: r["seconds"])
    print(
        f"# median {statistics.median(times):.1f} s, max {worst['seconds']:.1f} s ({worst['phi']}), "
        f"{sum(t > goal for t in times)} of {len(times)} over {goal} s"
    )


if __name__ == "__main__":
    main()
