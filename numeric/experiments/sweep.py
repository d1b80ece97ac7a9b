"""The paper's experiment as a grid of fits, stored one record per fit, resumable (docs/method.md §10).

Grid: models × K × sample sizes × repetitions (default: mha, gated1, gated2; K = 3, 4; 10 sizes
log-spaced from 10⁴ to 10⁵; 10 repetitions — 600 fits). Each fit's seed is derived from
(base seed, model, K, n, repetition) with ``numpy.random.SeedSequence``, so a record does not
depend on the order or the process that ran it: ``jobs=1`` and ``jobs=2`` give the same
records (bar the timing column).

**Store** (:mod:`numeric.experiments.store`): one :class:`~numeric.experiments.store.FitRecord` per finished fit, kept
apart by its settings (the truth's content with φ, optimizer, gd objective, init, box, seed).
Each row is committed when its fit finishes (``synchronous=FULL``), so an interrupted run —
Ctrl-C or kill -9 — loses at most the fits in flight, and rerunning the same grid skips every
finished fit. With ``jobs > 1`` the fits run in :class:`identcheck.util.pool.WorkerPool`: the
workers ignore Ctrl-C, die with their parent (``PR_SET_PDEATHSIG`` on Linux), and an interrupt
(SIGINT, SIGTERM) of the main process kills them at once; the fits in flight are lost, the store
kept.

**Presets** (``numeric reproduce --preset NAME``): ``figure1`` is the paper's grid above;
``local`` measures the theorems in their regime (:data:`PRESETS`, docs/theorems.md).
"""

from __future__ import annotations

import difflib
import importlib
import json
import time
from dataclasses import dataclass
from typing import NotRequired, TypedDict

import numpy as np
from threadpoolctl import threadpool_limits

from identcheck.util.pool import WorkerPool
from identcheck.util.progress import StatusLine

from ..errors import Param
from ..model.attention import MODELS
from ..model.attention_params import NumericError
from ..model.attention_truth import MIN_SIGNAL_TO_NOISE, load_truth, truth_from_dict
from ..shipped import SHIPPED
from .store import FitRecord, Settings, finished_keys, insert, open_for_writing

__all__ = ["Grid", "Leg", "PRESETS", "run_grid", "run_preset", "DEFAULT_SIZES", "QUICK"]

#: The module numeric.fitting.attention_fit (the package's attribute ``numeric.fit`` is the function it re-exports).
#: A worker looks ``fit`` up in it at call time, so that a test can watch the fits a worker runs
#: by patching ``numeric.fitting.attention_fit.fit``.
_fitting = importlib.import_module("..fitting.attention_fit", __package__)

DEFAULT_SIZES = tuple(int(round(v)) for v in np.logspace(4, 5, 10))


class QuickGrid(TypedDict):
    """A quick run's grid: fewer, smaller sizes and fewer repetitions (and the plain grid's K)."""

    sizes: tuple[int, ...]
    reps: int
    Ks: NotRequired[tuple[int, ...]]


QUICK: QuickGrid = {"sizes": (2000, 4000, 8000, 16000), "reps": 3, "Ks": (3,)}


@dataclass(frozen=True)
class Grid:
    """What to run: the grid points and every setting of the fits but the truth."""

    models: tuple = MODELS
    Ks: tuple = (3, 4)
    sizes: tuple = DEFAULT_SIZES
    reps: int = 10
    optimizer: str = "lm"
    init: str = "paper"
    box: float = 2.0
    seed: int = 0
    gd_objective: str = "mean"
    experiment: str = ""

    def validate(self) -> "Grid":
        for m in self.models:
            if m not in MODELS:
                raise NumericError(f"models: unknown model {m!r}; choose from {', '.join(MODELS)}")
        if not self.models or not self.Ks or not self.sizes:
            raise NumericError("models, K and sizes must not be empty")
        for K in self.Ks:
            if not 1 <= K <= 16:
                raise NumericError(param="K", value=K, reason="must be from 1 to 16")
        for n in self.sizes:
            if not 100 <= n <= 10_000_000:
                raise NumericError(f"sizes: n={n} must be from 100 to 10,000,000")
        if len(set(self.sizes)) < 2:
            raise NumericError("sizes: need at least two distinct sample sizes for a rate")
        if not 1 <= self.reps <= 1000:
            raise NumericError(param="reps", value=self.reps, reason="must be from 1 to 1000")
        if self.seed < 0:
            raise NumericError(param="seed", value=self.seed, reason="must be >= 0")
        if self.gd_objective not in ("mean", "sum"):
            raise NumericError(param="gd_objective", value=self.gd_objective, reason="choose mean or sum")
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

    def settings(self, truth) -> Settings:
        return Settings(
            truth.to_dict(),
            self.optimizer,
            self.gd_objective,
            self.init,
            float(self.box),
            int(self.seed),
            self.experiment,
        )


def _run_one(task) -> FitRecord:
    """Worker: one fit; returns its record.

    BLAS is limited to one thread per fit (threadpoolctl: environment variables come too late once
    numpy is imported). Two processes each running a 2-thread OpenBLAS on 2 cores were measured
    3× slower per fit than two single-threaded ones (docs/reproduction.md).
    """
    settings_json, model, K, n, rep, seed = task
    settings = Settings.from_json(settings_json)
    truth = truth_from_dict(settings.truth, "store")
    with threadpool_limits(limits=1):
        result = _fitting.fit(
            model,
            K,
            n,
            seed=seed,
            optimizer=settings.optimizer,
            truth=truth,
            box_factor=settings.box,
            init=settings.init,
            gd_objective=settings.gd_objective,
        )
    return FitRecord(
        settings_id=settings.id,
        model=model,
        K=int(K),
        n=int(n),
        rep=int(rep),
        seed=int(seed),
        voronoi_loss=result.voronoi_loss,
        loss_kind=result.loss_kind,
        mse=result.mse,
        truth_mse=result.truth_mse,
        start_mse=result.start_mse,
        regression_l2=result.regression_l2,
        regression_se=result.regression_se,
        iterations=int(result.iterations),
        converged=bool(result.converged),
        active_bounds=int(result.active_bounds),
        seconds=result.seconds,
        params=json.dumps(result.params.to_dict()),
    )


def _check_signal(truth, models, allow_weak: bool) -> None:
    if allow_weak:
        return
    for model in models:
        ratio = truth.signal_to_noise(truth.model(model))
        if ratio < MIN_SIGNAL_TO_NOISE:
            raise NumericError(
                reason=(
                    f"truth {truth.name!r}: Var f*(X)/nu^2 = {ratio:.3g} for {model}, below {MIN_SIGNAL_TO_NOISE:g}: "
                    "the fits would measure mostly noise (",
                    Param("allow_weak_truth", True),
                    " to run anyway)",
                )
            )


def run_grid(
    grid: Grid, folder, jobs: int = 1, truth_path=None, progress=True, shard=(0, 1), truth=None, allow_weak_truth=False
) -> dict:
    """Run every fit of ``grid`` not yet in the store; returns counts.

    The truth is ``truth`` (a :class:`~numeric.model.attention_truth.Truth`) or the file ``truth_path`` (default:
    the shipped truth). ``shard = (i, m)`` runs only the fits at positions p ≡ i (mod m) of the
    grid's order: m machines each run one shard into their own store, and
    :func:`numeric.experiments.store.merge_stores` joins them. Records do not depend on the sharding.
    """
    grid.validate()
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise NumericError(param="jobs", value=jobs, reason="must be from 1 to 64")
    index, count = shard
    if not (isinstance(index, int) and isinstance(count, int) and count >= 1 and 0 <= index < count):
        raise NumericError(param="shard", value=shard, shown=f"{index}/{count}", reason="need 0 <= I < M")
    truth = truth if truth is not None else load_truth(truth_path)
    for K in grid.Ks:
        if K < truth.params.K:
            raise NumericError(param="K", value=K, reason=f"below K* = {truth.params.K}, the truth's channels per head")
    _check_signal(truth, grid.models, allow_weak_truth)
    settings = grid.settings(truth)
    mine = [p for position, p in enumerate(grid.points()) if position % count == index]
    connection = open_for_writing(folder)  # fails here, before any fit, if the store cannot be written
    done = finished_keys(connection)
    todo = [p for p in mine if (settings.id, *p) not in done]
    total = len(mine)
    finished = total - len(todo)
    started = time.perf_counter()
    ran = 0

    # progress: "always" (--progress: on a pipe too), True (on a terminal), False (never)
    status = StatusLine.for_command(asked=progress == "always") if progress else StatusLine(enabled=False)

    def record(row: FitRecord):
        nonlocal finished, ran
        insert(connection, settings, row)
        finished += 1
        ran += 1
        elapsed = time.perf_counter() - started
        status.show(f"fits {finished}/{total}  elapsed {elapsed:.0f} s  eta {elapsed / ran * (len(todo) - ran):.0f} s")

    tasks = [(settings.to_json(), model, K, n, rep, grid.fit_seed(model, K, n, rep)) for model, K, n, rep in todo]
    try:
        if jobs == 1:
            for task in tasks:
                record(_run_one(task))
        else:
            with WorkerPool(jobs) as pool:  # an interrupt kills the workers at once; the store keeps every recorded fit
                for _, row in pool.imap_unordered(_run_one, tasks):
                    record(row)
    finally:
        status.clear()
        connection.close()
    return {"total": total, "ran": ran, "skipped": total - len(todo), "settings": settings.id}


@dataclass(frozen=True)
class Leg:
    """One truth of a preset and the models fitted to it (with K = K* + each of ``K_offsets``, or of
    the preset's when empty)."""

    truth: str  # a shipped truth's name (numeric/model/truths/NAME.json)
    models: tuple
    K_offsets: tuple = ()


@dataclass(frozen=True)
class Preset:
    """A named experiment: legs (truth × models), K as offsets from K*, sizes, repetitions, box."""

    name: str
    legs: tuple
    K_offsets: tuple
    sizes: tuple
    reps: int
    box: float
    description: str

    def grids(self, seed: int = 0, quick: bool = False):
        """(truth, Grid) per leg; ``quick`` keeps the shape (both K, every model and truth) with
        smaller sizes and fewer repetitions."""
        sizes, reps = (QUICK_LOCAL["sizes"], QUICK_LOCAL["reps"]) if quick else (self.sizes, self.reps)
        for leg in self.legs:
            truth = load_truth(leg.truth)
            Ks = tuple(truth.params.K + offset for offset in (leg.K_offsets or self.K_offsets))
            experiment = self.name + ("-quick" if quick else "")
            yield truth, Grid(leg.models, Ks, sizes, reps, "lm", "paper", self.box, seed, experiment=experiment)


def local_legs() -> tuple:
    """The ``local`` preset's legs from the shipped models' records (:mod:`numeric.shipped`): one leg
    per (truth, K offsets), in the order the records first name it, fitting every model that names it."""
    legs: dict = {}
    for name, spec in SHIPPED.items():
        for truth, offsets in spec.local_legs:
            legs.setdefault((truth, offsets), []).append(name)
    return tuple(Leg(truth, tuple(models), offsets) for (truth, offsets), models in legs.items())


#: The local regime (docs/theorems.md): exact-specified (K = K*) and over-specified (K* + 1; the
#: gated models also K* + 2, where Setting I's channels can recombine exactly: docs/theorems.md)
#: fits, n from 10⁴ to 10⁶, a box that does not bind, two truths with strongly identified
#: parameters: φ = sigmoid(z) as in the paper and φ = sigmoid(z + 1), which passes the paper's
#: own type-1/type-2 condition.
PRESETS = {
    "local": Preset(
        name="local",
        legs=local_legs(),
        K_offsets=(0, 1),
        sizes=(10_000, 21_544, 46_416, 100_000, 215_443, 464_159, 1_000_000),
        reps=5,
        box=10.0,
        description="theorems in their regime: K = K*, K* + 1 "
        "(and K* + 2 for the gated models, where channels can recombine); "
        "n = 1e4..1e6; box factor 10; truths local_sigmoid, local_sigmoid_b1",
    ),
}
QUICK_LOCAL: QuickGrid = {"sizes": (2_000, 4_000, 8_000, 16_000), "reps": 2}


def run_preset(name: str, folder, jobs: int = 1, quick: bool = False, progress=True, seed: int = 0) -> list[dict]:
    """Run every leg of preset ``name`` into one store (legs are kept apart by their settings)."""
    if name not in PRESETS:
        close = difflib.get_close_matches(name, PRESETS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise NumericError(param="preset", value=name, reason=f"unknown{hint}; choose one of {', '.join(PRESETS)}")
    counts = []
    for truth, grid in PRESETS[name].grids(seed, quick):
        counts.append(run_grid(grid, folder, jobs=jobs, truth=truth, progress=progress) | {"truth": truth.name})
    return counts
