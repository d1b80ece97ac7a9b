"""Benchmark: `identcheck scan` against one check() per grid value (docs/scan.md).

Run by hand:  python3 bench/bench_scan.py [--count 81] [--map 41] [--jobs 2] [--skip-checks]

1. One parameter: sigmoid(z + b), b in [-2, 2], COUNT values, d = 2, type-1, all default probes.
   The scan's stages are timed separately (setup = parse + build + compile once; grid; bisection;
   exact checks), with --jobs worker processes and with 1.
2. The same COUNT values by separate ``check()`` calls in one process (term set cached after the
   first: the fairest baseline), and their verdicts compared with the scan's.
3. A MAP x MAP map of sigmoid(a*z + b), a in [1/2, 2], b in [-1, 1] (grid stage; with
   --map-extrapolate N a N x N map is timed instead and the per-value time scaled to MAP x MAP,
   printed as an extrapolation).

Every timing runs in a fresh process with one BLAS thread (OMP/OPENBLAS/MKL_NUM_THREADS=1):
two BLAS threads on a shared 2-core machine made a 216 x 54 SVD 50x slower here. The load
average is printed beside the figures: the machine is shared and timings are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")

CPU = (
    "sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) "
    "for f in ('ru_utime', 'ru_stime'))"
)

SCAN = """
import json, resource, time
from identcheck import scan
t, c = time.perf_counter(), CPU
r = scan({phi!r}, {params}, dim=2, jobs={jobs})
print(json.dumps({{"wall": time.perf_counter() - t, "cpu": CPU - c, "timings": dict(r.timings), "summary": r.summary,
                  "verdicts": [str(g.verdict) for g in r.grid], "values": len(r.grid),
                  "escalated": sum(p.digits > 16 for g in r.grid for p in g.probes),
                  "probes": sum(len(g.probes) for g in r.grid)}}))
"""

CHECKS = """
import json, resource, time
import sympy as sp
from identcheck import check
values = [sp.Integer(-2) + i * sp.Rational(4, {count} - 1) for i in range({count})]
t, c = time.perf_counter(), CPU
verdicts = [str(check("sigmoid(z + b)", dim=2, params={{"b": v}}).verdict) for v in values]
print(json.dumps({{"wall": time.perf_counter() - t, "cpu": CPU - c, "verdicts": verdicts}}))
"""


def _run(code: str) -> dict:
    code = code.replace("CPU", CPU)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _load() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=81)
    parser.add_argument("--map", type=int, default=41)
    parser.add_argument("--map-extrapolate", type=int, default=0, help="time an N x N map and scale to MAP x MAP")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-checks", action="store_true")
    parser.add_argument("--skip-map", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, BLAS threads 1")
    params = "{'b': (-2, 2, %d)}" % args.count
    for jobs in sorted({args.jobs, 1}, reverse=True):
        r = _run(SCAN.format(phi="sigmoid(z + b)", params=params, jobs=jobs))
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in r["timings"].items())
        print(
            f"scan sigmoid(z + b), b in [-2, 2], {r['values']} values, d = 2, --jobs {jobs}: {r['wall']:.1f} s wall, "
            f"{r['cpu']:.1f} s CPU ({stages}); "
            f"{r['escalated']}/{r['probes']} probe decisions escalated; load {_load()}"
        )
        print(f"  summary: {r['summary']}")
        scan_result = r
    if not args.skip_checks:
        c = _run(CHECKS.format(count=args.count))
        agree = c["verdicts"] == scan_result["verdicts"]
        grid = scan_result["timings"]["grid"] + scan_result["timings"]["setup"]
        print(
            f"{args.count} separate check() calls (one process): {c['wall']:.1f} s wall, {c['cpu']:.1f} s CPU; "
            f"verdicts agree with the scan: {agree}; "
            f"wall ratio check / scan(setup + grid, --jobs 1) = {c['wall'] / grid:.2f}; "
            f"CPU ratio check / whole scan (--jobs 1) = {c['cpu'] / scan_result['cpu']:.2f}; load {_load()}"
        )
    if not args.skip_map:
        n = args.map_extrapolate or args.map
        params = "{'a': (0.5, 2, %d), 'b': (-1, 1, %d)}" % (n, n)
        r = _run(SCAN.format(phi="sigmoid(a*z + b)", params=params, jobs=args.jobs))
        stages = ", ".join(f"{k} {v:.1f} s" for k, v in r["timings"].items())
        print(
            f"map sigmoid(a*z + b), {n} x {n}, --jobs {args.jobs}: {r['wall']:.1f} s wall, {r['cpu']:.1f} s CPU "
            f"({stages}); load {_load()}"
        )
        if args.map_extrapolate:
            per_value = r["timings"]["grid"] / (n * n)
            print(
                f"  extrapolated grid stage for {args.map} x {args.map}: {per_value * args.map**2:.0f} s "
                f"({per_value:.3f} s per value, measured on {n} x {n})"
            )
        print(f"  summary: {r['summary']}")


if __name__ == "__main__":
    main()
