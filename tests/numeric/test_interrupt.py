"""Ctrl-C and SIGTERM end `numeric reproduce --jobs 2` within 2 s, workers included; the store
keeps every finished fit and the message says how many and that the same command continues
(docs/architecture.md; the pool: tests/identcheck/util/test_pool.py; every command: bench/bench_interrupt.py;
an interrupt while a store is created: tests/numeric/experiments/test_sqlite_store.py)."""

import re
import signal
import sqlite3

import pytest

from tests.identcheck.cli.test_interrupt import interrupt_when_working
from tests.identcheck.util.test_pool import _alive

from .reproduce_support import slow_reproduce_argv


def _fits(folder) -> int:
    try:
        with sqlite3.connect(f"file:{folder / 'fits.sqlite'}?mode=ro", uri=True) as connection:
            return connection.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
    except sqlite3.OperationalError:  # not created yet
        return 0


@pytest.mark.parametrize(
    "signum, to_group", [(signal.SIGINT, True), (signal.SIGTERM, False)], ids=["SIGINT-group", "SIGTERM-main"]
)
def test_an_interrupt_ends_reproduce_keeps_the_store_and_says_so(tmp_path, signum, to_group):
    folder = tmp_path / "store"
    argv = slow_reproduce_argv(folder)
    code, seconds, workers, stdout, stderr = interrupt_when_working(
        argv, signum, to_group, tmp_path, ready=lambda: _fits(folder) >= 1
    )
    assert code == 128 + signum, stderr
    assert seconds < 2.0
    assert not any(_alive(p) for p in workers)
    message = stderr.strip().splitlines()[-1]
    kept = re.fullmatch(
        rf"numeric: interrupted \({signal.Signals(signum).name}\): (\d+) finished fit\(s\) kept in "
        rf"{re.escape(str(folder / 'fits.sqlite'))} .*; run the same command to continue where it stopped",
        message,
    )
    assert kept, message
    assert int(kept.group(1)) == _fits(folder) >= 1  # the store holds what the message says
    with sqlite3.connect(folder / "fits.sqlite") as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
