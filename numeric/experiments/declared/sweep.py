"""A declared model's experiment as a grid of fits: sample sizes × repetitions, one record per fit, resumable.

The grid is the papers' experiment (synthetic data from the declaration's
truth, a fit at each n, repeated): ``sizes`` × ``reps`` fits of one declaration
(:func:`numeric.fitting.fit_declared`) with one :class:`~numeric.experiments.declared.store.DeclaredSettings`.
Each fit's seed is derived from (base seed, n, repetition) with ``numpy.random.SeedSequence``, so a
record depends neither on the order nor on the process that ran it: ``jobs = 1`` and ``jobs = 2``,
one run or an interrupted one resumed, one machine or ``shard = (i, m)`` on m machines joined by
:func:`~numeric.experiments.declared.store.merge_declared` give the same records (bar the timing).

Resumable and interruptible as the hand-written sweep (:mod:`numeric.experiments.sweep`): each record is
committed when its fit ends, a rerun skips every finished fit, and with ``jobs > 1`` the fits run
in :class:`identcheck.util.pool.WorkerPool` (an interrupt kills the workers at once; the fits in
flight are lost, the store kept). The model is compiled once per process
(:func:`numeric.model.compile_model`, cached by digest).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

from identcheck.declaration import Declaration, digest
from identcheck.util.pool import WorkerPool
from identcheck.util.progress import StatusLine

from ...errors import NumericError
from ...fitting import METHODS, START_KINDS, fit_declared
from ...model import DeclaredModel, compile_model
from .store import DeclaredRecord, DeclaredSettings, finished_declared, insert_declared, open_declared

__all__ = ["DeclaredGrid", "run_declared"]

_COMPILED: dict[str, DeclaredModel] = {}  # digest → compiled model, per process


@dataclass(frozen=True, slots=True)
class DeclaredGrid:
    """What to run: sizes × repetitions, and the fit settings."""

    sizes: tuple
    reps: int = 10
    method: str | None = None  # None: em for a density, lm for a regression
    start: str = "paper"
    restarts: int = 0
    box: float = 2.0
    seed: int = 0
    init_scale: float = 1.0

    def validate(self, declaration: Declaration) -> "DeclaredGrid":
        for n in self.sizes:
            if isinstance(n, bool) or not isinstance(n, int) or not 50 <= n <= 10_000_000:
                raise NumericError(param="sizes", value=n, reason="each must be an integer from 50 to 10,000,000")
        if len(set(self.sizes)) < 2:
            raise NumericError(param="sizes", value=list(self.sizes), reason="need two distinct sizes for a rate")
        if isinstance(self.reps, bool) or not isinstance(self.reps, int) or not 1 <= self.reps <= 1000:
            raise NumericError(param="reps", value=self.reps, reason="must be from 1 to 1000")
        allowed = ("em", "direct") if declaration.noise.density else ("lm",)
        if self.method is not None and self.method not in allowed:
            reason = f"{declaration.name!r} is fitted by {' or '.join(allowed)} (of {', '.join(METHODS)})"
            raise NumericError(param="method", value=self.method, reason=reason)
        if self.start not in START_KINDS:
            raise NumericError(param="start", value=self.start, reason=f"not one of {', '.join(START_KINDS)}")
        if self.seed < 0:
            raise NumericError(param="seed", value=self.seed, reason="must be >= 0")
        return self

    def settings(self, declaration: Declaration) -> DeclaredSettings:
        method = self.method or ("em" if declaration.noise.density else "lm")
        return DeclaredSettings(
            method, self.start, int(self.restarts), float(self.box), int(self.seed), float(self.init_scale)
        )

    def points(self):
        for n in sorted(self.sizes):
            for rep in range(self.reps):
                yield n, rep

    def fit_seed(self, n: int, rep: int) -> int:
        return int(np.random.SeedSequence([self.seed, n, rep]).generate_state(1, dtype=np.uint32)[0])


def _model(declaration: Declaration, model_digest: str) -> DeclaredModel:
    if model_digest not in _COMPILED:
        _COMPILED[model_digest] = compile_model(declaration)
    return _COMPILED[model_digest]


def _run_one(task) -> DeclaredRecord:
    """Worker: one fit; returns its record (BLAS limited to one thread per fit, as numeric.experiments.sweep)."""
    declaration, model_digest, settings_json, n, rep, seed = task
    settings = DeclaredSettings.from_json(settings_json)
    with threadpool_limits(limits=1):
        fit = fit_declared(
            _model(declaration, model_digest),
            n,
            seed=seed,
            method=settings.method,
            start=settings.start,
            restarts=settings.restarts,
            box_factor=settings.box,
            init_scale=settings.init_scale,
        )
    data = fit.to_dict()
    data.pop("declaration")  # the store keeps it once; the canonical content stays with each record
    return DeclaredRecord(
        settings_id=settings.id(model_digest),
        n=int(n),
        rep=int(rep),
        digest=fit.digest,
        seed=int(seed),
        objective_kind=fit.objective_kind,
        objective=fit.objective,
        truth_objective=fit.truth_objective,
        start_objective=fit.start_objective,
        worse_than_truth=fit.worse_than_truth,
        loss=float(fit.loss["value"]) if fit.loss else None,
        iterations=fit.iterations,
        converged=fit.converged,
        active_bounds=len(fit.active_bounds),
        seconds=fit.seconds,
        record=json.dumps(data, sort_keys=True),
    )


def run_declared(
    declaration: Declaration, grid: DeclaredGrid, folder, jobs: int = 1, progress=True, shard=(0, 1)
) -> dict:
    """Run every fit of ``grid`` not yet in ``folder``'s declared store; returns counts.

    ``shard = (i, m)`` runs only the fits at positions p ≡ i (mod m) of the grid's order.
    """
    grid.validate(declaration)
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise NumericError(param="jobs", value=jobs, reason="must be from 1 to 64")
    index, count = shard
    if not (isinstance(index, int) and isinstance(count, int) and count >= 1 and 0 <= index < count):
        raise NumericError(param="shard", value=shard, shown=f"{index}/{count}", reason="need 0 <= I < M")
    model_digest = digest(declaration)
    settings = grid.settings(declaration)
    settings_id = settings.id(model_digest)
    mine = [p for position, p in enumerate(grid.points()) if position % count == index]
    connection = open_declared(folder, declaration)  # fails here, before any fit: unwritable, or another model
    done = finished_declared(connection)
    todo = [p for p in mine if (settings_id, *p) not in done]
    finished, ran, started = len(mine) - len(todo), 0, time.perf_counter()
    status = StatusLine.for_command(asked=progress == "always") if progress else StatusLine(enabled=False)
    flagged = 0

    def record(row: DeclaredRecord) -> None:
        nonlocal finished, ran, flagged
        insert_declared(connection, settings, row)
        finished, ran, flagged = finished + 1, ran + 1, flagged + row.worse_than_truth
        elapsed = time.perf_counter() - started
        eta = elapsed / ran * (len(todo) - ran)
        status.show(f"fits {finished}/{len(mine)}  elapsed {elapsed:.0f} s  eta {eta:.0f} s")

    tasks = [
        (declaration, model_digest, settings.to_json(), n, rep, grid.fit_seed(n, rep)) for n, rep in todo
    ]
    try:
        if jobs == 1:
            for task in tasks:
                record(_run_one(task))
        else:
            with WorkerPool(jobs) as pool:
                for _, row in pool.imap_unordered(_run_one, tasks):
                    record(row)
    finally:
        status.clear()
        connection.close()
    return {
        "total": len(mine),
        "ran": ran,
        "skipped": len(mine) - len(todo),
        "worse_than_truth": flagged,
        "settings": settings_id,
        "model": declaration.name,
        "digest": model_digest,
    }
