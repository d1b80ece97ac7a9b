"""Time `identcheck catalog` (27 activations x type-1 and type-2, d = 2): serial and --jobs 2.

    python3 bench/bench_catalog.py                       # this tree and the reference commit
    python3 bench/bench_catalog.py --ref none --phases   # this tree only, plus a profile by phase

Each measurement runs in a fresh interpreter (imports not timed) and reports wall time and CPU
time (the process's own plus its worker processes'). The reference commit (default: ``REFERENCE``,
the tree before the proof-first rank decision) is exported with `git archive` into a temporary folder and run
the same way, so the ratio compares like with like on the same machine at the same time of day;
the machine is shared, so read ratios, not absolute seconds. The rows of both trees are
compared: they must be equal (the bench fails otherwise).

``--phases`` profiles one serial run (cProfile, which slows it down) and sums the cumulative time
of the functions that make up the pipeline (the phases overlap where one calls another: the proof
of independence includes its arb evaluation of a minor's rows): evaluating terms in arb balls, high-precision Gram
matrices, the deflation / Schur complements, float64 SVD and QR, the type-2 reduction, and
reading and proving relations.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the tree before the proof-first rank decision (docs/performance.md, The catalog in seconds)
REFERENCE = "7b477aa"

RUN = r"""
import json, resource, sys, time
from identcheck.catalog.activations import catalog_rows
jobs = int(sys.argv[1])
t, c = time.perf_counter(), time.process_time()
rows = catalog_rows(jobs=jobs)
wall = time.perf_counter() - t
children = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = time.process_time() - c + children.ru_utime + children.ru_stime
print(json.dumps({"wall": wall, "cpu": cpu, "rows": rows}))
"""

PROFILE = r"""
import cProfile, json, pstats, sys
from identcheck.catalog.activations import catalog_rows
profile = cProfile.Profile()
profile.runcall(catalog_rows, jobs=1)
stats = pstats.Stats(profile).stats
phases = json.loads(sys.argv[1])
out = {"total": max(v[3] for v in stats.values())}
for phase, names in phases.items():
    out[phase] = sum(
        v[3] for (path, line, func), v in stats.items() if any(path.endswith(f) and func == n for f, n in names)
    )
print(json.dumps(out))
"""

PHASES = {
    "arb evaluation (compile.arb)": [("compile.py", "arb")],
    "type-2 φ-dependent product (Type2Matrix._product; F's evaluation inside it too)": [("type2.py", "_product")],
    "high-precision Gram (rank.raw_gram)": [("rank.py", "raw_gram")],
    "deflation / Schur (rank._deflate)": [("rank.py", "_deflate")],
    "proof of independence first (rank._prove_independent)": [("rank.py", "_prove_independent")],
    "float64 SVD (numpy)": [("_linalg.py", "svd")],
    "type-2 reduction (reduce.reduce_groups)": [("reduce.py", "reduce_groups")],
    "relations read and proved (explain, extras)": [("relations.py", "explain_null_space")],
}


def measure(tree: Path, jobs: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))  # BLAS threads as users get them
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(jobs)], env=env, cwd=tree, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout)


def phases(tree: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))  # BLAS threads as users get them
    out = subprocess.run(
        [sys.executable, "-c", PROFILE, json.dumps(PHASES)],
        env=env,
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ref", default=REFERENCE, help="reference commit, or 'none' (default %(default)s)")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="job counts to time (default 1 2)")
    parser.add_argument("--phases", action="store_true", help="also profile one serial run of this tree by phase")
    args = parser.parse_args(argv)

    trees = {"this tree": ROOT}
    with tempfile.TemporaryDirectory() as scratch:
        if args.ref != "none":
            ref_dir = Path(scratch) / "ref"
            ref_dir.mkdir()
            archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.ref], capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(ref_dir)], input=archive.stdout, check=True)
            trees[f"reference {args.ref}"] = ref_dir
        results = {}
        for jobs in args.jobs:
            for name, tree in trees.items():
                results[name, jobs] = measure(tree, jobs)
                r = results[name, jobs]
                print(f"{name:>22}  --jobs {jobs}: wall {r['wall']:7.1f} s   cpu {r['cpu']:7.1f} s", flush=True)
        rows = {name: results[name, args.jobs[0]]["rows"] for name in trees}
        if len({json.dumps(r, sort_keys=True) for r in rows.values()}) > 1:
            print("FAIL: the catalog rows differ between the trees", file=sys.stderr)
            return 1
        if len(trees) == 2:
            ref = next(n for n in trees if n != "this tree")
            for jobs in args.jobs:
                new, old = results["this tree", jobs], results[ref, jobs]
                print(
                    f"ratio reference / this tree, --jobs {jobs}: wall {old['wall'] / new['wall']:.1f}x, "
                    f"cpu {old['cpu'] / new['cpu']:.1f}x"
                )
        if args.phases:
            for name, tree in trees.items():
                figures = phases(tree)
                print(f"{name}: profiled serial run {figures.pop('total'):.1f} s (cProfile overhead included)")
                for phase, seconds in figures.items():
                    print(f"    {phase:<50} {seconds:7.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
