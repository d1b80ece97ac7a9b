"""A reproduce run long enough to interrupt or watch (shared by test_interrupt.py and test_sweep.py)."""

import sys


def slow_reproduce_argv(folder) -> list:
    """``python -m numeric reproduce`` of gated2 at K = 3, two sizes × 4 repetitions, 2 workers, into ``folder``."""
    return [
        sys.executable,
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
        str(folder),
    ]
