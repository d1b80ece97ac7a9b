"""Time `identcheck catalog` (27 activations x type-1 and type-2, d = 2): serial and --jobs 2.

    python3 bench/bench_catalog.py                       # this tree and the last commit (HEAD)
    python3 bench/bench_catalog.py --ref none --phases   # this tree only, plus a profile by phase
    python3 bench/bench_catalog.py --ref REV --jobs 1 --repeats 3   # A/B against REV, alternated, medians
    python3 bench/bench_catalog.py --ref REV --compare verdicts     # REV's cells carry fewer words

Each measurement runs in a fresh interpreter (imports not timed) and reports wall time and CPU
time (the process's own plus its worker processes'). The reference revision (default: ``HEAD``,
so a change not yet committed is measured against the last commit) is exported with
`git archive` into a temporary folder and run the same way, so the ratio compares like with like
on the same machine at the same time of day; the machine is shared, so read ratios, not absolute
seconds. The rows of both trees are compared: they must be equal (the bench fails otherwise), or
with ``--compare verdicts`` each cell's verdict and evidence, for a revision whose cells say less.

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
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the reference revision: the last commit, so an uncommitted change is measured against it
REFERENCE = "HEAD"

RUN = r"""
import json, resource, sys, time
try:
    from identcheck.catalog.activations import catalog_rows
except ImportError:  # a revision from before the folders by layer
    from identcheck.catalog import catalog_rows
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
    "rank decisions, all of them (rank.rule.decide_rank)": [("rank/rule.py", "decide_rank")],
    "high-precision Gram (rank.rule.raw_gram)": [("rank/rule.py", "raw_gram")],
    "deflation / Schur (rank.rule._deflate)": [("rank/rule.py", "_deflate")],
    "proof of independence first (rank.rule._prove_independent)": [("rank/rule.py", "_prove_independent")],
    "relations proved first (rank.relations_first.settle_by_relations)": [
        ("rank/relations_first.py", "settle_by_relations")
    ],
    "float64 SVD (numpy)": [("_linalg.py", "svd")],
    "type-2 reduction (reduce.reduce_groups)": [("reduce.py", "reduce_groups")],
    "relations read and proved (explain, extras)": [("relations.py", "explain_null_space")],
    "sympy's exact-zero proofs inside them (proofs._exact_zero)": [("proofs.py", "_exact_zero")],
    "the witness's order words (bites._span_order)": [("bites.py", "_span_order")],
}


def _compared(rows: list, what: str) -> list:
    """The rows, or (``what`` = "verdicts") each cell's verdict and evidence."""
    if what == "rows":
        return rows
    return [
        {key: (cell["verdict"], cell["evidence"]) for key, cell in row.items() if isinstance(cell, dict)}
        for row in rows
    ]


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
    parser.add_argument(
        "--repeats", type=int, default=1, help="runs per tree and job count, the trees alternated; medians (default 1)"
    )
    parser.add_argument(
        "--compare",
        choices=("rows", "verdicts"),
        default="rows",
        help="what must be equal between the trees: the whole rows, or each cell's verdict and evidence "
        "(for a revision whose cells carry fewer words; default %(default)s)",
    )
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
            runs: dict = {name: [] for name in trees}
            for _ in range(args.repeats):  # A, B, A, B, …: back to back, so both see the same machine
                for name, tree in trees.items():
                    r = measure(tree, jobs)
                    runs[name].append(r)
                    load = os.getloadavg()[0]
                    times = f"wall {r['wall']:7.1f} s   cpu {r['cpu']:7.1f} s"
                    print(f"{name:>22}  --jobs {jobs}: {times}   (load {load:.1f})", flush=True)
            for name in trees:
                results[name, jobs] = {
                    "wall": statistics.median(r["wall"] for r in runs[name]),
                    "cpu": statistics.median(r["cpu"] for r in runs[name]),
                    "rows": runs[name][0]["rows"],
                }
        rows = {name: _compared(results[name, args.jobs[0]]["rows"], args.compare) for name in trees}
        if len({json.dumps(r, sort_keys=True) for r in rows.values()}) > 1:
            print(f"FAIL: the catalog rows differ between the trees ({args.compare})", file=sys.stderr)
            return 1
        if len(trees) == 2:
            ref = next(n for n in trees if n != "this tree")
            for jobs in args.jobs:
                new, old = results["this tree", jobs], results[ref, jobs]
                print(
                    f"ratio reference / this tree (medians), --jobs {jobs}: wall {old['wall'] / new['wall']:.1f}x, "
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
