"""Wall and CPU seconds of `identcheck model` on the acceptance checks (docs/model.md, Measured).

Each check is one `python3 -m identcheck model ARGS --json` subprocess (OMP/OpenBLAS at one
thread); the verdict, evidence and wall/CPU seconds are printed with the load average before the
run. With ``--against DIR`` (another checkout of the repository, e.g. a `git worktree` at an older
commit) every check alternates between DIR and this checkout ``--repeat`` times and the medians
are compared, with whether the two JSON reports agree once their times are removed.

    python3 bench/bench_model.py                       # every check once
    python3 bench/bench_model.py setting2 --repeat 3 --against /tmp/old
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
#: Setting I with K = K* + 2 fitted atoms per head (8 channels in 2 heads): the recombination's local path
WIDE = str(Path(tempfile.gettempdir()) / "bench_model_setting1_k8.toml")

#: name → the command's arguments (d ≤ 2, the issue's "Done when" list)
CHECKS = {
    "gaussian-moe": ["softmax-gaussian-moe"],
    "gaussian-moe-m3": ["softmax-gaussian-moe", "--order", "6", "--cells", "3"],
    "deepseek-d2": ["deepseek-d2"],
    "deepseek-d2-gate": [str(HERE / "docs" / "examples" / "deepseek-d2-gate.toml")],
    "deepseek-gelu": ["deepseek-gelu", "--order", "2", "--cells", "4"],
    "deepseek-tanh": ["deepseek-tanh", "--order", "2", "--cells", "4"],
    "deepseek-sigmoid": ["deepseek-sigmoid", "--order", "2", "--cells", "4"],
    "mha": ["mha"],
    "mha-r8": ["mha", "--order", "8", "--cells", "4"],
    "setting1-exp": ["setting1", "--function", "phi=exp(z)", "--order", "2"],
    "setting1-exp-wide": [WIDE, "--function", "phi=exp(z)", "--order", "2"],
    "setting1": ["setting1"],
    "setting2": ["setting2"],
}


def run_once(root: Path, args: list[str]) -> tuple[float, float, dict]:
    """(wall s, CPU s of the child, the JSON report) of one check run from checkout ``root``."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(root))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "identcheck", "model", *args, "--json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        return wall, cpu, {"verdict": f"exit {done.returncode}", "evidence": done.stderr.strip()[:60]}
    return wall, cpu, json.loads(done.stdout)


def _timeless(report):
    if isinstance(report, dict):
        return {k: _timeless(v) for k, v in report.items() if k != "seconds"}
    if isinstance(report, list):
        return [_timeless(v) for v in report]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checks", nargs="*", help=f"of {', '.join(CHECKS)} (default: every check)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--against", type=Path, help="another checkout to compare with (alternating runs)")
    args = parser.parse_args()
    names = args.checks or list(CHECKS)
    setting1 = (HERE / "identcheck/declaration/examples/setting1.toml").read_text(encoding="utf-8")
    Path(WIDE).write_text(setting1.replace("fitted = 6", "fitted = 8"), encoding="utf-8")
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        parser.error(f"unknown checks {unknown}")
    roots = [HERE] if args.against is None else [args.against.resolve(), HERE]
    header = f"{'check':<18} {'verdict':<18} {'evidence':<9} {'load':>5}"
    header += "".join(f" {'wall ' + str(i):>8} {'cpu ' + str(i):>7}" for i in range(len(roots)))
    print(header + ("  same JSON" if len(roots) > 1 else ""))
    for name in names:
        walls: list[list[float]] = [[] for _ in roots]
        cpus: list[list[float]] = [[] for _ in roots]
        reports: list = [None for _ in roots]
        load = os.getloadavg()[0]
        for _ in range(args.repeat):
            for i, root in enumerate(roots):
                wall, cpu, reports[i] = run_once(root, CHECKS[name])
                walls[i].append(wall)
                cpus[i].append(cpu)
        last = reports[-1]
        line = f"{name:<18} {str(last.get('verdict')):<18} {str(last.get('evidence')):<9} {load:5.2f}"
        line += "".join(f" {statistics.median(w):8.1f} {statistics.median(c):7.1f}" for w, c in zip(walls, cpus))
        if len(roots) > 1:
            line += f"  {_timeless(reports[0]) == _timeless(reports[1])}"
        print(line, flush=True)
    print(f"(median of {args.repeat}; wall 0 is --against, wall 1 this checkout)" if len(roots) > 1 else "")


if __name__ == "__main__":
    main()
