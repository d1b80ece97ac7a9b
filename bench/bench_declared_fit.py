"""Benchmark: EM against scipy's L-BFGS-B on a declared DeepSeekMoE model, and the memory of a fit.

Run by hand, on a quiet machine:  python3 bench/bench_declared_fit.py [--seeds 5] [--n 100000]

The model is the shipped ``deepseek-d1`` declaration (½ shared κ2·relu(κ1 x + κ0) + ½ softmax-routed
η2·relu(η1 x), d = 1, fitted k1 = 2, k2 = 3 around k1* = 1, k2* = 2). For each seed, both methods
start from the same papers' start (numeric.fitting.starts) in the same box and maximise the same
log-likelihood with the same gradient code (numeric.model.density):

- ``lbfgsb``: scipy's L-BFGS-B with its default tolerances on −ℓ/n and the exact gradient;
- ``em``: numeric's EM (numeric.fitting.em: SQUAREM-accelerated, stopping on a relative change of
  ℓ below ``--tol``, 1e-8 by default; the papers' 1e-6 stops too early to match L-BFGS-B to 1e-6).

It prints each seed's seconds, evaluations (L-BFGS-B) or EM maps, the log-likelihoods, whether EM
ends within 1e-6 relative of L-BFGS-B's log-likelihood or above it, the seconds EM took to first
reach that, and the truth's log-likelihood; then the medians, the median of the per-seed speed
ratios of the whole runs (EM to its own stopping rule), and of L-BFGS-B's whole run over EM's time
to first reach L-BFGS-B's log-likelihood within 1e-6. Then, unless ``--no-memory``, the peak
resident memory of a fit at n = ``--memory-n`` (10⁷ by default; EM for ``--memory-maps`` EM maps,
which repeat the same allocations every map) in a fresh process. One BLAS thread; the load average
before and after is printed (the timings mean little above a load of about 1 on 2 cores).

Measured 2026-12-02 (x86_64, 2 cores, one BLAS thread), n = 10⁵, 5 seeds, EM tol 1e-8. On a
quiet machine (load 0.71 before, 1.16 after, nothing else running): 5/5 seeds within 1e-6
relative or better, median wall-time ratio 4.14 (per seed 3.75–5.70; L-BFGS-B 13.3–25.7 s, EM
3.2–6.6 s), CPU-time ratio 4.10; EM first reaches L-BFGS-B's level at a median 9.78× less time.
Before that, three runs back to back on a shared machine at load 6–11:
5/5 seeds within 1e-6 relative or better in every run; median wall-time ratio 3.97 (load 9.6 →
8.1), 3.97 (8.1 → 6.4) and, with ``--keep-freed-memory``, 3.40 (6.4 → 9.2); median CPU-time ratio
4.10, 3.84, 3.78; per seed 3.0–7.8 (seed 4 lowest, 3.02–3.36); EM first reaches L-BFGS-B's level
6.6–7.7× faster. Peak RSS of an EM fit at n = 10⁷: 759 MB (data 153 MB). What makes EM cheap:
each E-step also sums, on its own blocks and from its own gate and expert values, the masses, the
gate's Q_g, gradient and curvature and the experts' Gauss–Newton sums at θ_t, so an M-step
evaluates the gate and experts only at its trial points (numeric.fitting.sums); SQUAREM runs
θ2's E-step only when the extrapolated point is refused (three E-steps for three maps); Gauss–
Newton re-sums only atoms that moved and go on. Without these (each M-step summing at θ_t by
itself, four E-steps a cycle), run just before at load 9: median ratio 3.64, EM 26–35 s a seed;
that variant measured 2.49–2.62 at load 1.1–1.9, so the ratio grows with the load: the 3× goal
is met at that load and on the quiet machine above. The two EMs side by
side, one process each, alternating, at load 11–13: the same maps and ℓ (to 1e-9 relative) for
every seed, CPU time 1.38–1.58× lower (median 1.49×), wall 1.35–1.51×, page faults 40 % fewer. The gradient code
L-BFGS-B uses is shared (log N is built in place, for both): its evaluations per seed move with
the rounding (1251 and 1228 in all). A profile of seed 0 (39 maps, 40 E-steps; cProfile, load
11): E-steps with their sums 73 % (the sums 20 %), gate Newton steps 16 % (nearly all their trial
Q_g), Gauss–Newton expert steps 10 %. This machine is a VM whose page faults are dear: freed
memory returned to the kernel and touched again makes the wall time 2–3× the CPU time, for EM
and L-BFGS-B alike; ``--keep-freed-memory`` takes that cost from both.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import ctypes  # noqa: E402
import platform  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from identcheck.declaration import read_example  # noqa: E402
from numeric.fitting import declared_box, em, fix_parameters, maximise, paper_start  # noqa: E402
from numeric.model import compile_model, log_likelihood, sample_declared  # noqa: E402

MODEL = "deepseek-d1"
RELATIVE = 1e-6


def _problem(model, n, seed):
    layout = model.layout(True)
    X, Y = sample_declared(model, n, seed)
    box = declared_box(model, layout)
    theta0 = paper_start(model, layout, box, n, np.random.default_rng(seed))
    return layout, X, Y, fix_parameters(model, layout, box, theta0), theta0


def compare(n: int, seeds: int, tol: float) -> None:
    model = compile_model(read_example(MODEL))
    print(f"{MODEL}, n = {n}, EM tol {tol:g}; per-sample log-likelihoods")
    print(
        f"{'seed':>4} {'lbfgsb s':>9} {'evals':>6} {'em s':>7} {'maps':>5} {'ll lbfgsb':>12} {'ll em':>12} "
        f"{'em ok':>6} {'em@target s':>11} {'ll truth':>12} {'ratio':>6} {'cpu ratio':>9}"
    )
    rows = []
    for seed in range(seeds):
        layout, X, Y, box, theta0 = _problem(model, n, seed)
        began, cpu = time.perf_counter(), time.process_time()
        direct = maximise(layout, theta0, X, Y, box)
        direct_s, direct_cpu = time.perf_counter() - began, time.process_time() - cpu
        target = direct.log_likelihood - RELATIVE * abs(direct.log_likelihood)
        reached: list[float] = []
        began, cpu = time.perf_counter(), time.process_time()

        def seen(_, ll, began=began, target=target):
            if ll >= target and not reached:
                reached.append(time.perf_counter() - began)

        by_em = em(layout, theta0, X, Y, box, tol=tol, report=seen)
        em_s, em_cpu = time.perf_counter() - began, time.process_time() - cpu
        ok = by_em.log_likelihood >= target
        truth = log_likelihood(model.layout(False), model.truth(), X, Y)
        first = direct_s / reached[0] if reached else 0.0
        rows.append((direct_s, em_s, direct_s / em_s, ok, first, direct_cpu / em_cpu))
        print(
            f"{seed:>4} {direct_s:>9.2f} {direct.evaluations:>6} {em_s:>7.2f} {by_em.iterations:>5} "
            f"{direct.log_likelihood / n:>12.8f} {by_em.log_likelihood / n:>12.8f} {str(ok):>6} "
            f"{(f'{reached[0]:.2f}' if reached else '-'):>11} {truth / n:>12.8f} {direct_s / em_s:>6.2f} "
            f"{rows[-1][5]:>9.2f}",
            flush=True,
        )
    lbfgsb, em_median = statistics.median(r[0] for r in rows), statistics.median(r[1] for r in rows)
    print(
        f"median: lbfgsb {lbfgsb:.2f} s, em {em_median:.2f} s,"
        f" ratio {statistics.median(r[2] for r in rows):.2f}; em within {RELATIVE:g} relative or better in "
        f"{sum(r[3] for r in rows)} of {len(rows)}; lbfgsb's time over em's time to reach that: median "
        f"{statistics.median(r[4] for r in rows):.2f}; CPU-time ratio: median "
        f"{statistics.median(r[5] for r in rows):.2f}"
    )


def memory_child(n: int, maps: int) -> None:
    """(in a fresh process) one EM fit at n for ``maps`` EM maps; prints seconds and peak RSS."""
    model = compile_model(read_example(MODEL))
    layout, X, Y, box, theta0 = _problem(model, n, 0)
    began = time.perf_counter()
    result = em(layout, theta0, X, Y, box, max_iter=maps)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"n = {n}: {result.iterations} EM maps in {seconds:.1f} s ({seconds / result.iterations:.2f} s a map), "
        f"data {(X.nbytes + Y.nbytes) / 2**20:.0f} MB, peak RSS {peak:.0f} MB"
    )


def keep_freed_memory() -> None:
    """glibc's malloc: no returning of freed heap memory to the kernel (trim threshold 1 GiB) and no
    mmap below 32 MiB, so the page faults of re-touching returned memory are not timed."""
    libc = ctypes.CDLL("libc.so.6")
    M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
    if not (libc.mallopt(M_TRIM_THRESHOLD, 1 << 30) and libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)):
        raise SystemExit("bench_declared_fit: --keep-freed-memory: mallopt refused")
    print("glibc malloc: freed memory kept (trim threshold 1 GiB, mmap threshold 32 MiB), for both methods")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--tol", type=float, default=1e-8)
    parser.add_argument("--memory-n", type=int, default=10_000_000)
    parser.add_argument("--memory-maps", type=int, default=6)
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument(
        "--keep-freed-memory",
        action="store_true",
        help="glibc keeps freed memory instead of returning it to the kernel (both methods)",
    )
    parser.add_argument("--memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_n, args.memory_maps)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; one BLAS thread")
    if args.keep_freed_memory:
        keep_freed_memory()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    compare(args.n, args.seeds, args.tol)
    if not args.no_memory:
        argv = [
            sys.executable,
            __file__,
            "--memory-child",
            "--memory-n",
            str(args.memory_n),
            "--memory-maps",
            str(args.memory_maps),
        ]
        done = subprocess.run(argv, capture_output=True, text=True)
        print(done.stdout.strip() or done.stderr.strip())
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
