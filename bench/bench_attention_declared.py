"""Benchmark: a gated-attention fit computed by its shipped declaration against the hand-written model.

Run by hand:  python3 bench/bench_attention_declared.py [--model gated1] [--seeds 5] [--n 100000] [--K 3]

For each seed, the same data (numeric.experiments.data.sample), start (initial_params) and box
(Box.around) are fitted by numeric's ``lm`` (numeric.fitting.optimizers) twice, back to back, in
alternating order: once on the hand-written model (numeric/model/attention.py) and once on the
shipped declaration's array code (numeric.model.attention_declared.DeclaredAttention, what
``numeric fit`` computes with). Printed per seed: the seconds of each (process CPU time, one BLAS
thread, so another engineer's load inflates wall time but not this), the iterations, the MSE of
each and their relative difference; then the median of each and the median of the per-seed ratios
declared / hand-written; the load average before and after (above about 1 on 2 cores the medians
still move by 10–20 %). ``--repeats R`` runs R alternating pairs per seed and takes each seed's
median seconds.

Measured 2026-12-03 (x86_64, a shared 2-core machine, one BLAS thread), gated1, K = 3,
n = 10⁵, 7 seeds × 3 alternating pairs: median ratio declared / hand-written 1.18 (per seed
1.00–1.31), the same iterations and MSE (≤ 1.7e-16 relative) on every seed; load average 1.8
before, 3.0 after; on a quiet machine (load average 0.91 before, 0.96 after) the same command gave
1.18 again (per seed 1.16–1.21). Before the declared nested Jacobian was written in place (the same day, 7 seeds,
one pair each, load 0.9 → 1.2): 1.38.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from numeric.experiments.data import sample  # noqa: E402
from numeric.fitting.attention_box import Box  # noqa: E402
from numeric.fitting.attention_fit import initial_params  # noqa: E402
from numeric.fitting.optimizers import optimise  # noqa: E402
from numeric.model.attention_declared import attention_code  # noqa: E402
from numeric.model.attention_params import HMoEParams  # noqa: E402
from numeric.model.attention_truth import load_truth  # noqa: E402


def _one(model, X, Y, theta0, shape, box):
    started = time.process_time()
    theta, iterations, _ = optimise("lm", model, X, Y, theta0, shape, box)
    seconds = time.process_time() - started
    mse = float(np.mean((model.value(HMoEParams.from_vector(theta, *shape), X) - Y) ** 2))
    return seconds, iterations, mse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gated1", choices=("mha", "gated1", "gated2"))
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--K", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=1, help="A/B pairs per seed, alternating (per-seed median)")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    truth = load_truth()
    P = truth.params
    hand, declared = truth.model(args.model), attention_code(args.model, truth)
    shape = (P.H, P.N, args.K, P.dim)
    box = Box.around(P, P.H, P.N, args.K)
    rows = []
    for seed in range(args.seeds):
        X, Y = sample(truth, hand, args.n, seed)
        theta0 = initial_params(P, args.K, args.n, seed, box)
        runs: dict = {"hand": [], "declared": []}
        for repeat in range(args.repeats):
            order = [("hand", hand), ("declared", declared)]
            if (seed + repeat) % 2:
                order.reverse()
            for name, model in order:
                runs[name].append(_one(model, X, Y, theta0, shape, box))
        (_, ih, mh), (_, id_, md) = runs["hand"][0], runs["declared"][0]
        th = statistics.median(r[0] for r in runs["hand"])
        td = statistics.median(r[0] for r in runs["declared"])
        rows.append((th, td))
        print(
            f"seed {seed}: hand-written {th:.2f} s ({ih} it, MSE {mh:.10g}), declared {td:.2f} s ({id_} it, "
            f"MSE {md:.10g}), MSE difference {abs(md - mh) / mh:.1e} relative, ratio {td / th:.2f}"
        )
    hand_median = statistics.median(r[0] for r in rows)
    declared_median = statistics.median(r[1] for r in rows)
    ratio = statistics.median(r[1] / r[0] for r in rows)
    print(
        f"{args.model} K={args.K} n={args.n}: median hand-written {hand_median:.2f} s, declared "
        f"{declared_median:.2f} s; median ratio declared / hand-written {ratio:.2f} (goal ≤ 1.3)"
    )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
