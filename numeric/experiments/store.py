"""The fit store: one :class:`FitRecord` per finished fit, in sqlite, apart by settings.

A record is a result only together with everything that produced it, so the store keeps two
tables (schema version 2, ``PRAGMA user_version``):

- ``settings(id, json)``: every setting that changes a result — the truth's full content (its
  parameters, φ and its constants, ν), the optimizer, the gd objective, the initialisation and
  the box. ``id`` is the first 16 hex digits of the SHA-256 of the canonical JSON, so the same
  settings always get the same id, on any machine.
- ``fits``: one row per fit, keyed by (settings id, model, K, n, repetition), holding the
  losses, the training MSEs (start, end, truth), the regression error, the convergence facts and
  the fitted parameters (JSON) — a loss can be recomputed from the store alone.

Records of different settings never mix: rates group by settings id and say which. Reading
never writes: :func:`read_records` opens the file read-only and refuses a file that is not a
store. Writing checks the folder is writable before the first fit (:func:`open_for_writing`).
The sqlite side — the format, creating, checking, opening, inserting, merging and what each
guarantees — is :mod:`numeric.experiments.sqlite_store`, shared with the declared models' store;
this module holds the record, the settings and the :data:`LAYOUT`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from identcheck import parse_activation

from ..model.attention import exact_constants
from ..model.attention_params import HMoEParams, NumericError
from . import sqlite_store

__all__ = [
    "FitRecord",
    "Settings",
    "open_for_writing",
    "read_records",
    "read_settings",
    "insert",
    "merge_stores",
    "kept_fits",
    "STORE_FILE",
    "LAYOUT",
]

STORE_FILE = "fits.sqlite"
SCHEMA_VERSION = 2


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything besides (model, K, n, repetition) that changes a fit's result."""

    truth: dict = field(repr=False)  # the truth file's content: name, phi, phi_params, noise_std, omega, M, a
    optimizer: str = "lm"
    gd_objective: str = "mean"
    init: str = "paper"
    box: float = 2.0
    seed: int = 0

    experiment: str = ""  # a preset's name ("local", "local-quick"): its records are not pooled with other grids'

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True, separators=(",", ":"))

    @property
    def id(self) -> str:
        """Hash of what changes a result: the truth's parameters and ν, φ as the parser reads it
        (``sigmoid(z+1)`` and ``sigmoid(z + b)`` with b = 1 are one φ), and the fit settings; not
        the truth's name or description."""
        canonical = dataclasses.asdict(self)
        truth = dict(canonical.pop("truth"))
        truth.pop("name", None)
        truth["phi"] = _canonical_phi(
            truth.get("phi", "sigmoid(z)"), tuple(sorted((truth.pop("phi_params", None) or {}).items()))
        )
        canonical["truth"] = truth
        if not canonical["experiment"]:
            canonical.pop("experiment")
        text = json.dumps(canonical, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @classmethod
    def from_json(cls, text: str) -> "Settings":
        return cls(**json.loads(text))

    def describe(self) -> str:
        phi = self.truth.get("phi", "sigmoid(z)")
        params = self.truth.get("phi_params") or {}
        if params:
            phi += " [" + ", ".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
        gd = f" ({self.gd_objective})" if self.optimizer == "gd" else ""
        return (
            f"truth {self.truth.get('name', '?')}, phi {phi}, {self.optimizer}{gd}, init {self.init}, "
            f"box {self.box:g}, seed {self.seed}"
        )


@lru_cache(maxsize=64)
def _canonical_phi(phi: str, params: tuple) -> str:
    """φ with its constants substituted, as sympy prints the parsed expression."""
    return str(parse_activation(phi, exact_constants(params)).expr)


@dataclass(frozen=True, slots=True)
class FitRecord:
    """One finished fit of a grid: the store's row (its schema is this class's fields)."""

    settings_id: str
    model: str
    K: int
    n: int
    rep: int
    seed: int
    voronoi_loss: float
    loss_kind: str
    mse: float
    truth_mse: float
    start_mse: float
    regression_l2: float
    regression_se: float
    iterations: int
    converged: bool
    active_bounds: int
    seconds: float
    params: str = field(repr=False)  # JSON of HMoEParams.to_dict()

    @property
    def key(self) -> tuple:
        return (self.settings_id, self.model, self.K, self.n, self.rep)

    def fitted(self) -> HMoEParams:
        data = json.loads(self.params)
        return HMoEParams(data["omega"], data["M"], data["a"])

    def values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


_KEY = ("settings_id", "model", "K", "n", "rep")
LAYOUT = sqlite_store.Layout(
    file=STORE_FILE,
    version=SCHEMA_VERSION,
    tables=(sqlite_store.SETTINGS_TABLE, sqlite_store.fits_table(FitRecord, _KEY)),
    record=FitRecord,
    key=_KEY,
    older="it was written by an older version of numeric (no settings table, no fitted parameters)",
)


def open_for_writing(folder) -> sqlite3.Connection:
    """Open (creating) ``folder/fits.sqlite`` for writing; fail now, before any fit, if it cannot be written."""
    return sqlite_store.open_writable(LAYOUT, folder)


def insert(connection: sqlite3.Connection, settings: Settings, record: FitRecord) -> None:
    """Store ``record`` (and its settings), committed at once: a kill loses only fits in flight."""
    sqlite_store.insert(connection, LAYOUT, (settings.id, settings.to_json()), record)


def finished_keys(connection: sqlite3.Connection) -> set:
    return sqlite_store.finished_keys(connection, LAYOUT)


def read_records(folder) -> list[FitRecord]:
    """Every record of the store in ``folder`` (read-only)."""
    connection = sqlite_store.open_read_only(LAYOUT, folder)
    try:
        return sqlite_store.read_records(connection, LAYOUT)
    finally:
        connection.close()


def kept_fits(folder) -> tuple[int, int]:
    """(stores, finished fits) under ``folder``, at any depth (``numeric confirm`` keeps one store per
    truth): what an interrupted run kept. A store interrupted while being created holds no fit."""
    stores = sorted(Path(folder).rglob(STORE_FILE)) if Path(folder).is_dir() else []
    fits = 0
    for store in stores:
        try:
            connection = sqlite_store.open_read_only(LAYOUT, store.parent)
        except NumericError:
            continue
        try:
            fits += sqlite_store.count(connection)
        finally:
            connection.close()
    return len(stores), fits


def read_settings(folder) -> dict:
    """settings id → :class:`Settings` of the store in ``folder`` (read-only)."""
    connection = sqlite_store.open_read_only(LAYOUT, folder)
    try:
        return {sid: Settings.from_json(text) for sid, text in sqlite_store.read_settings_rows(connection)}
    finally:
        connection.close()


def merge_stores(target, sources) -> dict:
    """Copy every record of the stores in ``sources`` into the store in ``target`` (created if needed).

    A key is counted once: the first record met is kept; met again, with the same values but the
    wall-clock time it is already present, with other values (another machine's floating point) a
    conflict (:func:`numeric.experiments.sqlite_store.merge`).
    """
    return sqlite_store.merge(LAYOUT, target, sources)
