"""CPU seconds of `identcheck catalog`'s rank decisions, by outcome and by where they were settled.

    python3 bench/bench_catalog_decisions.py [--repeats 3]

Runs ``catalog_rows(jobs=1)`` (27 activations x type-1 and type-2, d = 2) in this process with
every probe's rank decision (``identcheck.check.decide_rank``) timed by ``time.process_time``, and
prints, per outcome (dependent / independent / undecided) and per what settled it (the decision's
``settled_by``: float64, the interval proof, the precision ladder, or relations proved first with
the other columns decided by float64, that proof or the ladder; docs/method.md §3), the calls and
their CPU seconds — a dependence settled by relations includes the sympy proofs of its relations,
which the check would make anyway —, the whole run's CPU seconds and the load average before and
after.

What it is for (docs/performance.md, "Against the goal of twice as fast"): where the catalog's
rank decisions spend their time, by the way they were settled. Medians over ``--repeats`` runs in
one process (each run's CPU seconds are printed too: a later run could reuse the process's caches).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import os
import statistics
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def _run() -> tuple[float, dict]:
    check_module = importlib.import_module("identcheck.check")  # the package exports the function check
    from identcheck.catalog.activations import catalog_rows

    stats: dict = collections.defaultdict(lambda: [0, 0.0])
    decide = check_module.decide_rank

    def timed(*args, **kwargs):
        start = time.process_time()
        decision = decide(*args, **kwargs)
        seconds = time.process_time() - start
        outcome = {False: "dependent", True: "independent", None: "undecided"}[decision.independent]
        where = decision.settled_by or "nothing"
        stats[(outcome, where)][0] += 1
        stats[(outcome, where)][1] += seconds
        return decision

    check_module.decide_rank = timed
    try:
        start = time.process_time()
        catalog_rows(jobs=1)
        total = time.process_time() - start
    finally:
        check_module.decide_rank = decide
    return total, {key: tuple(value) for key, value in stats.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs, in this process; medians printed")
    args = parser.parse_args()
    print("load average before:", " ".join(f"{v:.2f}" for v in os.getloadavg()))
    runs = [_run() for _ in range(max(1, args.repeats))]
    total = statistics.median(t for t, _ in runs)
    each = "/".join(f"{t:.1f}" for t, _ in runs)
    print(f"catalog_rows(jobs=1): median CPU {total:.1f} s over {len(runs)} run(s) ({each})")
    keys = sorted({k for _, s in runs for k in s})
    for key in keys:
        calls = runs[0][1].get(key, (0, 0.0))[0]
        seconds = statistics.median(s.get(key, (0, 0.0))[1] for _, s in runs)
        print(f"  {key[0]:11s} by {key[1]:48s}: {calls:4d} decisions, {seconds:5.1f} s ({seconds / total:.0%})")
    ladder = statistics.median(s.get(("dependent", "precision ladder"), (0, 0.0))[1] for _, s in runs)
    bound = total / max(total - ladder, 1e-9)
    print(f"without the dependent decisions on the whole ladder at most {bound:.2f}x faster")
    print("load average after:", " ".join(f"{v:.2f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
