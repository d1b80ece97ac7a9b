"""Interrupt every multi-process command at random moments; count hangs, reaction times, orphans (docs/architecture.md).

    python3 bench/bench_interrupt.py [--trials-per-command 6] [--seed 0] [--commands scan catalog reproduce confirm]

Each trial starts one command in a process group of its own (as a shell job), waits a random
time drawn from the command's window, then sends SIGINT or SIGTERM — to the whole group, as a
terminal's Ctrl-C and ``timeout`` do, or to the main process alone; each command's trials take
the four combinations in turn. It records:

- **reaction**: seconds from the signal to the main process's exit (goal < 2 s); a trial still
  running after ``--hang-seconds`` (default 30) is a **hang** (goal 0), then killed with SIGKILL;
- **exit**: 130 for SIGINT, 143 for SIGTERM; ``-2``/``-15`` (killed by the signal itself) can
  only happen outside ``main()``'s handlers: while Python imports the package (nothing printed,
  no worker yet), or after ``main()`` returned (the command's output is complete; Python is
  tearing down) — told apart by whether the command printed its result;
- **orphans**: descendants of the main process, seen just before the signal, still alive when
  the main process has exited (and again 2 s later);
- **message**: stderr's last line names the signal (``interrupted (SIGINT)``) and what was kept;
- for ``reproduce``/``confirm``: the store's ``PRAGMA integrity_check`` after the interrupt.

A trial whose command ended before the signal is reported as such and not counted. The machine's
load (``os.getloadavg``) is printed beside the figures: reaction times grow with it.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable

#: name → (argv with {out} for a fresh folder, (earliest, latest) signal time in seconds after start).
COMMANDS = {
    "scan": (
        [
            PY,
            "-m",
            "identcheck",
            "scan",
            "sigmoid(a*z + b)",
            "--param",
            "a=1/2:2:21",
            "--param",
            "b=-1:1:21",
            "--jobs",
            "2",
        ],
        (0.5, 25.0),
    ),
    "catalog": ([PY, "-m", "identcheck", "catalog", "--jobs", "2"], (0.5, 9.0)),
    "reproduce": (
        [
            PY,
            "-m",
            "numeric",
            "reproduce",
            "--models",
            "gated2",
            "--K",
            "3",
            "--sizes",
            "20000",
            "40000",
            "--reps",
            "4",
            "--jobs",
            "2",
            "--out",
            "{out}",
        ],
        (0.5, 9.0),
    ),
    "confirm": (
        [PY, "-m", "numeric", "confirm", "sigmoid(z + 1)", "--quick", "--jobs", "2", "--out", "{out}"],
        (0.5, 10.0),
    ),
}


def descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (from /proc/PID/task/*/children, recursively)."""
    found, todo = set(), [pid]
    while todo:
        current = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except FileNotFoundError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{current}/task/{task}/children") as handle:
                    children = {int(p) for p in handle.read().split()}
            except FileNotFoundError:
                continue
            todo.extend(children - found)
            found |= children
    return found


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def trial(name: str, delay: float, signum: int, to_group: bool, hang_seconds: float) -> dict:
    argv, _ = COMMANDS[name]
    with tempfile.TemporaryDirectory(prefix="bench-interrupt-") as folder:
        out = Path(folder) / "out"
        argv = [a.replace("{out}", str(out)) for a in argv]
        stdout = open(Path(folder) / "stdout", "w+")
        process = subprocess.Popen(
            argv, cwd=ROOT, stdout=stdout, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        seen: set[int] = set()
        end = time.monotonic() + delay
        while time.monotonic() < end and process.poll() is None:  # watch the workers come and go
            seen |= descendants(process.pid)
            time.sleep(0.05)
        if process.poll() is not None:
            process.communicate()
            return {"command": name, "delay": delay, "finished_first": True}
        before = descendants(process.pid)
        seen |= before
        sent = time.monotonic()
        (os.killpg if to_group else os.kill)(process.pid, signum)
        try:
            code = process.wait(timeout=hang_seconds)
            hang = False
        except subprocess.TimeoutExpired:
            hang, code = True, None
        reaction = time.monotonic() - sent
        orphans_at_exit = sorted(p for p in before if alive(p))
        if hang:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        time.sleep(0 if hang else 2.0)
        orphans_later = sorted(p for p in seen if alive(p))
        for p in orphans_later:  # leave the machine clean
            os.kill(p, signal.SIGKILL)
        stderr = process.stderr.read().strip().splitlines()
        stdout.seek(0)
        printed = bool(stdout.read().strip())
        stdout.close()
        integrity = None
        stores = sorted(out.rglob("fits.sqlite")) if out.exists() else []
        if stores:
            integrity = all(
                sqlite3.connect(f"file:{s}?mode=ro", uri=True).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                for s in stores
            )
        return {
            "command": name,
            "delay": delay,
            "finished_first": False,
            "signal": signal.Signals(signum).name,
            "to": "group" if to_group else "main",
            "workers": len(before),
            "hang": hang,
            "reaction": reaction,
            "code": code,
            "orphans_at_exit": orphans_at_exit,
            "orphans_later": orphans_later,
            "message": stderr[-1] if stderr else "",
            "stores": len(stores),
            "integrity": integrity,
            "printed": printed,
        }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials-per-command", type=int, default=6)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--hang-seconds", type=float, default=30.0)
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), choices=list(COMMANDS))
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    rows = []
    for i in range(args.trials_per_command):
        for name in args.commands:
            lo, hi = COMMANDS[name][1]
            delay = rng.uniform(lo, hi)
            signum = (signal.SIGINT, signal.SIGTERM)[i % 2]
            to_group = (i // 2) % 2 == 0
            row = trial(name, delay, signum, to_group, args.hang_seconds)
            rows.append(row)
            if row["finished_first"]:
                print(f"{name:9s} at {delay:5.1f} s: the command ended first (not counted)", flush=True)
                continue
            print(
                f"{name:9s} at {delay:5.1f} s {row['signal']:7s} to {row['to']:5s} workers {row['workers']}: "
                + ("HANG" if row["hang"] else f"exit {row['code']} in {row['reaction']:.2f} s")
                + (" (output complete)" if row["printed"] else "")
                + f", orphans {len(row['orphans_at_exit'])}/{len(row['orphans_later'])}"
                + ("" if row["integrity"] is None else f", store {'ok' if row['integrity'] else 'DAMAGED'}")
                + f" | {row['message'][:150]}",
                flush=True,
            )
    done = [r for r in rows if not r["finished_first"]]
    reactions = [r["reaction"] for r in done if not r["hang"]]
    expected = {"SIGINT": (130, -2), "SIGTERM": (143, -15)}
    print(f"\nload average at end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    print(
        f"interrupts: {len(done)} (+{len(rows) - len(done)} commands that ended first); with workers running: "
        f"{sum(r['workers'] > 0 for r in done)}"
    )
    print(f"hangs (> {args.hang_seconds:g} s): {sum(r['hang'] for r in done)}")
    if reactions:
        print(
            f"reaction: median {statistics.median(reactions):.2f} s, max {max(reactions):.2f} s, "
            f"over 2 s: {sum(t > 2 for t in reactions)}"
        )
    print(
        f"exit codes as expected (130/143): {sum(r['code'] == expected[r['signal']][0] for r in done)}; "
        "killed by the signal during start-up: "
        f"{sum(r['code'] == expected[r['signal']][1] and not r['printed'] for r in done)}, "
        "after the command completed (output printed): "
        f"{sum(r['code'] == expected[r['signal']][1] and r['printed'] for r in done)}; "
        f"other: {[(r['command'], r['code']) for r in done if r['code'] not in expected[r['signal']]]}"
    )
    print(
        f"orphans at the main process's exit: {sum(len(r['orphans_at_exit']) for r in done)}; 2 s later: "
        f"{sum(len(r['orphans_later']) for r in done)}"
    )
    checked = [r for r in done if r["integrity"] is not None]
    print(f"stores checked: {len(checked)}, intact: {sum(r['integrity'] for r in checked)}")
    for name in args.commands:
        mine = [r["reaction"] for r in done if r["command"] == name and not r["hang"]]
        hangs = sum(r["hang"] for r in done if r["command"] == name)
        if mine or hangs:
            print(
                f"  {name:9s} {len(mine) + hangs} interrupts, {hangs} hangs, "
                f"reaction median {statistics.median(mine) if mine else float('nan'):.2f} s, "
                f"max {max(mine, default=float('nan')):.2f} s"
            )
    bad = sum(r["hang"] for r in done) + sum(len(r["orphans_later"]) for r in done)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
