"""Benchmark: start-up of the command lines and the packages (docs/performance.md, Start-up).

Run by hand:  python3 bench/bench_startup.py [--runs 7] [--only NAME ...] [--tree OLD NEW]

Each case runs RUNS times, each in a fresh process (``subprocess.run``; the console scripts
``identcheck`` and ``numeric`` installed beside this Python, else ``python -m``). Printed per case:
the median, min and max wall time of the whole process, taken from outside it; the median CPU
time (user + system, ``resource.getrusage(RUSAGE_CHILDREN)``), which the machine's load moves
less; and which of sympy, scipy.optimize and matplotlib the process loaded (one extra, untimed
run with ``-X importtime``). With ``--tree A B`` each case runs from the source trees A and B in
turn (``python -m``, cwd = the tree), run after run, so that a before/after comparison sees the
same load (e.g. a ``git archive`` of the old commit against the work tree). One BLAS thread
(OMP/OPENBLAS/MKL_NUM_THREADS=1) as in the other benches. The machine is shared: the load average
is printed before and after; compare figures taken at similar load only.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ENV = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
HEAVY = ("sympy", "scipy.optimize", "matplotlib")


def _script(name: str, tree: str | None) -> list[str]:
    """The console script ``name`` beside this interpreter, else (or with a tree) ``python -m name``."""
    beside = Path(sys.executable).parent / name
    found = None if tree else str(beside) if beside.exists() else shutil.which(name)
    return [found] if found else [sys.executable, "-m", name]


def cases(tree: str | None = None) -> dict:
    return {
        "import identcheck": [sys.executable, "-c", "import identcheck"],
        "import numeric": [sys.executable, "-c", "import numeric"],
        "identcheck --help": _script("identcheck", tree) + ["--help"],
        "identcheck check 'sigmoid(z + 1)'": _script("identcheck", tree) + ["check", "sigmoid(z + 1)"],
        "numeric --help": _script("numeric", tree) + ["--help"],
        "python -c pass": [sys.executable, "-c", "pass"],
    }


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _time(command: list[str], cwd: str | None) -> tuple[float, float]:
    """(wall, CPU) seconds of one run: CPU time (user + system of the child) moves less with the
    machine's load than wall time, and equals it on an idle machine for these single-threaded runs."""
    started, cpu = time.perf_counter(), _cpu()
    subprocess.run(command, env=ENV, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started, _cpu() - cpu


def _heavy(command: list[str], cwd: str | None) -> str:
    """Which of HEAVY the process imported (one untimed run with -X importtime)."""
    if command[0] == sys.executable:
        traced = [sys.executable, "-X", "importtime", *command[1:]]
    else:  # a console script: run its entry point under -X importtime
        traced = [sys.executable, "-X", "importtime", "-m", Path(command[0]).name, *command[1:]]
    err = subprocess.run(traced, env=ENV, cwd=cwd, capture_output=True, text=True, check=True).stderr
    names = {line.split("|")[-1].strip() for line in err.splitlines() if line.startswith("import time:")}
    return ", ".join(h for h in HEAVY if h in names) or "none"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", nargs="+", metavar="NAME", help="cases whose name contains NAME")
    parser.add_argument(
        "--tree",
        nargs="+",
        metavar="DIR",
        default=[None],
        help="source trees to compare (each case run from DIR with python -m, so that DIR's packages are "
        "imported), alternating run by run so that all see the same load; default: the installed package",
    )
    args = parser.parse_args(argv)
    trees = [None if t in (None, "-") else str(Path(t).resolve()) for t in args.tree]
    chosen = [k for k in cases() if not args.only or any(o in k for o in args.only)]
    print(f"python {sys.version.split()[0]}, {args.runs} runs per case, load average before: {os.getloadavg()}")
    print(
        f"{'case':<36} {'median':>7} {'min':>7} {'max':>7} {'CPU':>7}  heavy modules loaded"
        + ("   tree" if len(trees) > 1 else "")
    )
    print(f"{'':<36} {'wall time, s':^23} {'median':>7}")
    for name in chosen:
        commands = [cases(tree)[name] for tree in trees]
        for command, tree in zip(commands, trees):
            _time(command, tree)  # warm the file cache
        times = [[] for _ in trees]
        for _ in range(args.runs):
            for k, (command, tree) in enumerate(zip(commands, trees)):
                times[k].append(_time(command, tree))
        for k, (command, tree) in enumerate(zip(commands, trees)):
            wall, cpu = [w for w, _ in times[k]], [c for _, c in times[k]]
            where = f"   {tree or 'installed'}" if len(trees) > 1 else ""
            print(
                f"{name:<36} {statistics.median(wall):7.3f} {min(wall):7.3f} {max(wall):7.3f} "
                f"{statistics.median(cpu):7.3f}"
                f"  {_heavy(command, tree)}{where}",
                flush=True,
            )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
