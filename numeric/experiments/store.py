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

from ..errors import NoFitStore
from ..model.attention import exact_constants
from ..model.attention_params import HMoEParams, NumericError

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


def _sql_type(annotation: str) -> str:
    return {"int": "INTEGER", "float": "REAL", "str": "TEXT", "bool": "INTEGER"}[annotation]


_FIELDS = [f.name for f in dataclasses.fields(FitRecord)]
_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS settings (id TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS fits ("
    + ", ".join(f"{f.name} {_sql_type(str(f.type))}" for f in dataclasses.fields(FitRecord))  # str: postponed
    + ", PRIMARY KEY (settings_id, model, K, n, rep))",
]


def _path(folder) -> Path:
    return Path(folder) / STORE_FILE


def _check_version(connection: sqlite3.Connection, path: Path) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if version != SCHEMA_VERSION or not {"settings", "fits"} <= tables:
        if "fits" in tables and version < SCHEMA_VERSION:
            why = "it was written by an older version of numeric (no settings table, no fitted parameters)"
        else:
            why = "it is not a fit store of this version"
        raise NumericError(f"{str(path)!r}: {why}; move it away or choose another folder")
    columns = [row[1] for row in connection.execute("PRAGMA table_info(fits)")]
    if columns != _FIELDS:
        raise NumericError(f"{str(path)!r}: its fits table has columns {columns}, expected {_FIELDS}")


def open_for_writing(folder) -> sqlite3.Connection:
    """Open (creating) ``folder/fits.sqlite`` for writing; fail now, before any fit, if it cannot be written."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NumericError(f"folder {str(folder)!r}: cannot create ({exc.strerror})") from None
    path = _path(folder)
    try:
        connection = sqlite3.connect(path)
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:
            _create_schema(connection)
        _check_version(connection, path)
        connection.execute("PRAGMA synchronous=FULL")
        # a write that is rolled back: a read-only file or folder fails here, not after the first fit
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("CREATE TABLE IF NOT EXISTS _writable_probe (x)")
        connection.rollback()
    except sqlite3.DatabaseError as exc:  # includes OperationalError: read-only, locked, not a database
        raise NumericError(f"{str(path)!r}: cannot be written as a fit store ({exc})") from None
    return connection


def _create_schema(connection: sqlite3.Connection) -> None:
    """The tables and the version in one transaction: an interrupt (Ctrl-C, kill -9) leaves the
    schema whole or absent — an empty file, which the next run fills — never half a schema that no
    later run accepts (each CREATE TABLE used to commit on its own)."""
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("BEGIN IMMEDIATE")
    try:
        for statement in _SCHEMA:
            connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def _open_read_only(folder) -> sqlite3.Connection:
    path = _path(folder)
    if not path.exists():
        raise NoFitStore(str(folder))
    if path.stat().st_size == 0:
        raise NumericError(f"{str(path)!r}: an empty file, not a fit store")
    try:
        connection = sqlite3.connect(
            path.resolve().as_uri() + "?mode=ro", uri=True
        )  # escaped: '?' or '#' in a folder name
        _check_version(connection, path)
    except sqlite3.DatabaseError as exc:
        raise NumericError(f"{str(path)!r}: not a fit store ({exc})") from None
    return connection


def insert(connection: sqlite3.Connection, settings: Settings, record: FitRecord) -> None:
    """Store ``record`` (and its settings), committed at once: a kill loses only fits in flight."""
    connection.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (settings.id, settings.to_json()))
    connection.execute(f"INSERT OR REPLACE INTO fits VALUES ({','.join('?' * len(_FIELDS))})", record.values())
    connection.commit()


def finished_keys(connection: sqlite3.Connection) -> set:
    return {tuple(row) for row in connection.execute("SELECT settings_id, model, K, n, rep FROM fits")}


def _rows(connection) -> list[FitRecord]:
    cursor = connection.execute(f"SELECT {', '.join(_FIELDS)} FROM fits ORDER BY settings_id, model, K, n, rep")
    records = []
    for row in cursor:
        values = dict(zip(_FIELDS, row))
        values["converged"] = bool(values["converged"])
        records.append(FitRecord(**values))
    return records


def read_records(folder) -> list[FitRecord]:
    """Every record of the store in ``folder`` (read-only)."""
    connection = _open_read_only(folder)
    try:
        return _rows(connection)
    finally:
        connection.close()


def kept_fits(folder) -> tuple[int, int]:
    """(stores, finished fits) under ``folder``, at any depth (``numeric confirm`` keeps one store per
    truth): what an interrupted run kept. A store interrupted while being created holds no fit."""
    stores = sorted(Path(folder).rglob(STORE_FILE)) if Path(folder).is_dir() else []
    fits = 0
    for store in stores:
        try:
            connection = _open_read_only(store.parent)
        except NumericError:
            continue
        try:
            fits += connection.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
        finally:
            connection.close()
    return len(stores), fits


def read_settings(folder) -> dict:
    """settings id → :class:`Settings` of the store in ``folder`` (read-only)."""
    connection = _open_read_only(folder)
    try:
        return {row[0]: Settings.from_json(row[1]) for row in connection.execute("SELECT id, json FROM settings")}
    finally:
        connection.close()


def merge_stores(target, sources) -> dict:
    """Copy every record of the stores in ``sources`` into the store in ``target`` (created if needed).

    A record whose key is already in the target is skipped; if its values differ (another machine's
    floating point), it is counted as a conflict and the target's record is kept.
    """
    for source in sources:
        _open_read_only(source).close()
    connection = open_for_writing(target)
    added = skipped = conflicts = 0
    try:
        for source in sources:
            other = _open_read_only(source)
            try:
                for settings_id, text in other.execute("SELECT id, json FROM settings"):
                    connection.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (settings_id, text))
                existing = {r.key: r for r in _rows(connection)}
                for record in _rows(other):
                    if record.key not in existing:
                        connection.execute(f"INSERT INTO fits VALUES ({','.join('?' * len(_FIELDS))})", record.values())
                        added += 1
                    elif _same_result(existing[record.key], record):
                        skipped += 1
                    else:
                        conflicts += 1
            finally:
                other.close()
        connection.commit()
    finally:
        connection.close()
    return {"added": added, "already_present": skipped, "conflicts": conflicts}


def _same_result(a: FitRecord, b: FitRecord) -> bool:
    """Equal in everything but the wall-clock time (NaN equal to NaN)."""

    def values(r):
        return [None if isinstance(v, float) and v != v else v for v in dataclasses.replace(r, seconds=0.0).values()]

    return values(a) == values(b)
