"""Benchmark: --certify, per probe and per check (type-1, d = 2 unless told).

Run by hand:  python3 bench/bench_certify.py [--repeats 3] [--dim 2]

Per (phi, probe): the time of the certification step alone (interval test for an independent
probe; exact-relation recovery + sympy proofs + interval test of the remaining columns for a
dependent one), median over --repeats, after one warm-up check (term set compiled, φ's
properties cached), and what was certified. Then the whole `check(phi, certify=True)` against
`check(phi)`, as a ratio. Goals: one d = 2 type-1 probe (18 terms) < 30 s; the
identity's dependence < 5 s.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")


from identcheck import check  # noqa: E402
from identcheck.check import make_condition  # noqa: E402
from identcheck.rank.certificates import certify_probe  # noqa: E402
from identcheck.rank.rule import decide_rank  # noqa: E402

PHIS = ["z", "exp(z)", "sigmoid(z + 1)", "tanh(z) + z/10", "gelu(z + 1)"]


def probe_times(phi: str, dim: int, repeats: int):
    condition = make_condition(phi, "type1", dim)
    rows = []
    for index, probe in enumerate(condition.probes()):
        matrix = condition.matrix(probe, index)
        n_cols = len(matrix.labels)
        decision = decide_rank(matrix.float64(), gram=matrix.gram)
        relations = condition.explain(probe, matrix, decision) if decision.independent is False else ()
        times, cert = [], None
        for _ in range(repeats):
            start = time.perf_counter()
            cert, _ = certify_probe(decision, matrix, condition.prover(probe, matrix), relations)
            times.append(time.perf_counter() - start)
        d = cert.detail.to_dict() if cert.detail is not None else {}
        if cert.kind == "interval":
            what = f"interval, sigma_min >= {d['sigma_min_lower_bound']:.1e} at {d['digits']} digits"
        elif cert.kind == "proof":
            what = f"proof, {d['proved']}/{d['nullity']} relations" + (
                ", nullity exact" if d.get("nullity_exact") else ""
            )
        else:
            what = "not certified"
        rows.append((probe.name, n_cols, statistics.median(times), max(times), what))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dim", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, BLAS threads 1")
    for phi in PHIS:
        check(phi, dim=args.dim)  # warm-up: compile, cache phi's properties
        print(f"\nphi = {phi}, d = {args.dim}: certification step per probe (median / max of {args.repeats}, s)")
        for name, cols, med, worst, what in probe_times(phi, args.dim, args.repeats):
            print(f"  {name:<30} {cols:>3} cols  {med:7.3f} {worst:7.3f}  {what}")
        plain, certified = [], []
        for _ in range(args.repeats):
            s = time.perf_counter()
            check(phi, dim=args.dim)
            plain.append(time.perf_counter() - s)
            s = time.perf_counter()
            r = check(phi, dim=args.dim, certify=True)
            certified.append(time.perf_counter() - s)
        p, c = statistics.median(plain), statistics.median(certified)
        print(
            f"  whole check: {p:.2f} s plain, {c:.2f} s with --certify (x{c / p:.1f}); verdict {r.verdict}, "
            f"evidence {r.evidence}"
        )


if __name__ == "__main__":
    main()
