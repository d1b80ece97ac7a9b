"""Benchmark: one fit per (model, optimizer, n), K = 3, the shipped truth, seed 0.

Run by hand:  python3 bench/bench_fit.py [--sizes 10000 100000] [--optimizers gd lm]

Prints seconds per fit (data generation included, interpreter start-up and imports not),
iterations, the training MSE reached and the truth's MSE on the same data. Single-threaded
BLAS (set before numpy is imported). The PyTorch-autograd comparison is bench/bench_torch.py.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import platform  # noqa: E402

from numeric import fit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--optimizers", nargs="+", default=["gd", "lm"])
    parser.add_argument("--models", nargs="+", default=["mha", "gated1", "gated2"])
    parser.add_argument("--K", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, BLAS threads 1")
    print(f"{'model':<7} {'opt':<3} {'n':>7} {'seconds':>8} {'iters':>6} {'mse':>10} {'truth mse':>10} {'voronoi':>8}")
    for n in args.sizes:
        for model in args.models:
            for optimizer in args.optimizers:
                r = fit(model, args.K, n, seed=0, optimizer=optimizer)
                print(
                    f"{model:<7} {optimizer:<3} {n:>7} {r.seconds:>8.2f} {r.iterations:>6} {r.mse:>10.6f} "
                    f"{r.truth_mse:>10.6f} {r.voronoi_loss:>8.3f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
