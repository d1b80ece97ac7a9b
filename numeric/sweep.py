"""The paper's experiment as a grid of fits, stored one record per fit, resumable (SPEC §4).

Grid: models × K × sample sizes × repetitions (default: mha, gated1, gated2; K = 3, 4; 10 sizes
log-spaced from 10⁴ to 10⁵; 10 repetitions — 600 fits). Each fit's seed is derived from
(base seed, model, K, n, repetition) with ``numpy.random.SeedSequence``, so a record does not
depend on the order or the process that ran it: ``--jobs 1`` and ``--jobs 2`` give the same
records (bar the timing column).

**Store.** A sqlite database in the output folder, one row per finished fit, keyed by the grid
point and the settings (optimizer, init, box). Each row is committed when its fit finishes
(``synchronous=FULL``), so an interrupted run — Ctrl-C or kill -9 — loses at most the fits in
flight, and rerunning the same grid skips every finished fit.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .models import MODELS
from .params import NumericError

__all__ = ["Grid", "open_store", "run_grid", "load_records", "DEFAULT_SIZES", "QUICK"]

DEFAULT_SIZES = tuple(int(round(v)) for v in np.logspace(4, 5, 10))
QUICK = {"sizes": (2000, 4000, 8000, 16000), "reps": 3, "Ks": (3,)}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS fits (
    model TEXT, K INTEGER, n INTEGER, rep INTEGER, optimizer TEXT, init TEXT, box REAL, seed INTEGER,
    voronoi_loss REAL, loss_kind TEXT, mse REAL, truth_mse REAL, iterations INTEGER, converged INTEGER,
    active_bounds INTEGER, seconds REAL,
    PRIMARY KEY (model, K, n, rep, optimizer, init, box, seed)
)
"""


@dataclass(frozen=True)
class Grid:
    """What to run."""

    models: tuple = MODELS
    Ks: tuple = (3, 4)
    sizes: tuple = DEFAULT_SIZES
    reps: int = 10
    optimizer: str = "lm"
    init: str = "paper"
    box: float = 2.0
    seed: int = 0

    def validate(self) -> "Grid":
        for m in self.models:
            if m not in MODELS:
                raise NumericError(f"--models: unknown model {m!r}; choose from {', '.join(MODELS)}")
        if not self.models or not self.Ks or not self.sizes:
            raise NumericError("--models, --K and --sizes must not be empty")
        for K in self.Ks:
            if not 2 <= K <= 16:
                raise NumericError(f"--K {K}: must be from 2 to 16")
        for n in self.sizes:
            if not 100 <= n <= 10_000_000:
                raise NumericError(f"--sizes {n}: must be from 100 to 10,000,000")
        if len(set(self.sizes)) < 2:
            raise NumericError("--sizes: need at least two distinct sample sizes for a rate")
        if not 1 <= self.reps <= 1000:
            raise NumericError(f"--reps {self.reps}: must be from 1 to 1000")
        if self.seed < 0:
            raise NumericError(f"--seed {self.seed}: must be >= 0")
        return self

    def points(self):
        for model in self.models:
            for K in self.Ks:
                for n in self.sizes:
                    for rep in range(self.reps):
                        yield model, K, n, rep

    def fit_seed(self, model: str, K: int, n: int, rep: int) -> int:
        sequence = np.random.SeedSequence([self.seed, MODELS.index(model), K, n, rep])
        return int(sequence.generate_state(1, dtype=np.uint32)[0])


def open_store(folder: str | Path) -> sqlite3.Connection:
    """Open (creating) ``folder/fits.sqlite``; a file that is not such a store is an error."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NumericError(f"--out {str(folder)!r}: cannot create ({exc.strerror})") from None
    path = folder / "fits.sqlite"
    try:
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute(_SCHEMA)
        columns = [row[1] for row in connection.execute("PRAGMA table_info(fits)")]
        if "voronoi_loss" not in columns:
            raise sqlite3.DatabaseError("missing columns")
    except sqlite3.DatabaseError as exc:
        raise NumericError(f"{str(path)!r} is not a valid fit store ({exc}); move it away or choose another --out") from None
    return connection


def _key(grid: Grid, model, K, n, rep):
    return (model, K, n, rep, grid.optimizer, grid.init, float(grid.box), grid.fit_seed(model, K, n, rep))


def _run_one(task):
    """Worker: one fit; returns the record (a tuple in schema order).

    BLAS is limited to one thread per fit (threadpoolctl: environment variables come too late once
    numpy is imported). Two processes each running a 2-thread OpenBLAS on 2 cores were measured
    3× slower per fit than two single-threaded ones (docs/reproduction.md).
    """
    from threadpoolctl import threadpool_limits

    from .fit import fit
    from .truth import load_truth

    key, truth_path = task
    model, K, n, rep, optimizer, init, box, seed = key
    with threadpool_limits(limits=1):
        result = fit(model, K, n, seed=seed, optimizer=optimizer, truth=load_truth(truth_path), box_factor=box, init=init)
    return key + (
        result.voronoi_loss,
        result.loss_kind,
        result.mse,
        result.truth_mse,
        result.iterations,
        int(result.converged),
        result.active_bounds,
        result.seconds,
    )


def run_grid(grid: Grid, folder, jobs: int = 1, truth_path=None, progress=True, shard=(0, 1)) -> dict:
    """Run every fit of ``grid`` not yet in the store; returns counts.

    ``shard = (i, m)`` runs only the fits at positions p ≡ i (mod m) of the grid's order: m
    machines each run one shard into their own store, and :func:`merge_stores` joins them.
    Records do not depend on the sharding (every fit has its own seed).
    """
    grid.validate()
    if not 1 <= jobs <= 64:
        raise NumericError(f"--jobs {jobs}: must be from 1 to 64")
    index, count = shard
    if not (isinstance(index, int) and isinstance(count, int) and count >= 1 and 0 <= index < count):
        raise NumericError(f"--shard {index}/{count}: need 0 <= I < M")
    mine = [p for position, p in enumerate(grid.points()) if position % count == index]
    connection = open_store(folder)
    done = {tuple(row) for row in connection.execute("SELECT model, K, n, rep, optimizer, init, box, seed FROM fits")}
    todo = [k for k in (_key(grid, *p) for p in mine) if k not in done]
    total = len(mine)
    finished = total - len(todo)
    started = time.perf_counter()
    ran = 0

    def record(row):
        nonlocal finished, ran
        connection.execute(f"INSERT OR REPLACE INTO fits VALUES ({','.join('?' * len(row))})", row)
        connection.commit()
        finished += 1
        ran += 1
        if progress:
            elapsed = time.perf_counter() - started
            eta = elapsed / ran * (len(todo) - ran)
            print(f"\r\033[Kfits {finished}/{total}  elapsed {elapsed:.0f} s  eta {eta:.0f} s", end="", file=sys.stderr, flush=True)

    tasks = [(key, str(truth_path) if truth_path else None) for key in todo]
    try:
        if jobs == 1:
            for task in tasks:
                record(_run_one(task))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            with ProcessPoolExecutor(max_workers=jobs) as pool:
                futures = [pool.submit(_run_one, task) for task in tasks]
                try:
                    for future in as_completed(futures):
                        record(future.result())
                except KeyboardInterrupt:
                    for future in futures:
                        future.cancel()
                    raise
    finally:
        if progress and tasks:
            print(file=sys.stderr)
        connection.close()
    return {"total": total, "ran": ran, "skipped": total - len(todo)}


def merge_stores(target, sources) -> dict:
    """Copy every record of the stores in ``sources`` into the store in ``target`` (created if needed).

    A record whose key is already in the target is skipped; if its values differ (another machine's
    floating point), it is counted as a conflict and the target's record is kept.
    """
    for source in sources:
        if not (Path(source) / "fits.sqlite").exists():
            raise NumericError(f"{str(source)!r}: no fit store here")
    connection = open_store(target)
    added = skipped = conflicts = 0
    try:
        for source in sources:
            other = open_store(source)
            try:
                for row in other.execute("SELECT * FROM fits"):
                    key = row[:8]
                    existing = connection.execute(
                        "SELECT * FROM fits WHERE model=? AND K=? AND n=? AND rep=? AND optimizer=? AND init=? AND box=? AND seed=?", key
                    ).fetchone()
                    if existing is None:
                        connection.execute(f"INSERT INTO fits VALUES ({','.join('?' * len(row))})", row)
                        added += 1
                    elif tuple(existing) == tuple(row):
                        skipped += 1
                    else:
                        conflicts += 1
            finally:
                other.close()
        connection.commit()
    finally:
        connection.close()
    return {"added": added, "already_present": skipped, "conflicts": conflicts}


def load_records(folder) -> list[dict]:
    """All records of the store in ``folder``, as dicts."""
    path = Path(folder) / "fits.sqlite"
    if not path.exists():
        raise NumericError(f"{str(folder)!r}: no fit store here (run `numeric reproduce --out {folder}` first)")
    connection = open_store(folder)
    try:
        cursor = connection.execute("SELECT * FROM fits ORDER BY model, K, n, rep")
        names = [c[0] for c in cursor.description]
        return [dict(zip(names, row)) for row in cursor]
    finally:
        connection.close()


def records_json(records) -> str:
    return json.dumps(records, indent=2)
