"""The store of a declared model's fits: one :class:`DeclaredRecord` per finished fit, in sqlite, one model per store.

``DIR/declared.sqlite`` (schema version 1, ``PRAGMA user_version``) holds three tables:

- ``declaration(digest, name, canonical, declaration)``: exactly one row — the declaration's
  digest (:func:`identcheck.declaration.digest`), its canonical content (the JSON the digest hashes)
  and the declaration as read (labels and notes too). A store belongs to one model: opening it for
  writing with another declaration is refused in one line, and :func:`merge_declared` refuses a
  source of another model — records of two models never pool.
- ``settings(id, json)``: the fit settings (method, start, restarts, box, seed, the start's scale);
  ``id`` is the first 16 hex digits of the SHA-256 of the digest and the settings' canonical JSON.
- ``fits``: one row per fit, keyed by (settings id, n, repetition): the digest, the objective and
  the truth's on the same data, ``worse_than_truth``, the declared loss, convergence, and the whole
  fit record as JSON (``record``: fitted parameters, per-parameter errors, the loss's cells) — a
  rate can be computed from the store alone.

Each fit is committed when it ends (``synchronous=FULL``): a kill loses only the fits in flight.
Reading never writes (:func:`read_declared` opens read-only). The hand-written models' store
(``fits.sqlite``, :mod:`numeric.experiments.store`) is a separate file, unchanged.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from identcheck.declaration import Declaration, canonical_json, digest

from ...errors import NoFitStore, NumericError

__all__ = [
    "DECLARED_FILE",
    "DECLARED_SCHEMA_VERSION",
    "DeclaredRecord",
    "DeclaredSettings",
    "DeclaredStore",
    "count_declared",
    "finished_declared",
    "insert_declared",
    "merge_declared",
    "open_declared",
    "read_declared",
]

DECLARED_FILE = "declared.sqlite"
DECLARED_SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class DeclaredSettings:
    """Everything besides (n, repetition) that changes a declared fit's result (the model is the store's)."""

    method: str
    start: str = "paper"
    restarts: int = 0
    box: float = 2.0
    seed: int = 0
    init_scale: float = 1.0

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True, separators=(",", ":"))

    def id(self, model_digest: str) -> str:
        return hashlib.sha256((model_digest + self.to_json()).encode()).hexdigest()[:16]

    @classmethod
    def from_json(cls, text: str) -> "DeclaredSettings":
        return cls(**json.loads(text))

    def describe(self) -> str:
        restarts = f" + {self.restarts} broad restarts" if self.restarts else ""
        return f"{self.method}, start {self.start}{restarts}, box {self.box:g}, seed {self.seed}"


@dataclass(frozen=True, slots=True)
class DeclaredRecord:
    """One finished fit of a declared sweep: the store's row (its columns are these fields)."""

    settings_id: str
    n: int
    rep: int
    digest: str
    seed: int
    objective_kind: str
    objective: float
    truth_objective: float
    start_objective: float
    worse_than_truth: bool
    loss: float | None  # the declared loss (None: the declaration states per-parameter errors only)
    iterations: int
    converged: bool
    active_bounds: int
    seconds: float
    record: str = field(repr=False)  # JSON of DeclaredFit.to_dict() without the declaration

    @property
    def key(self) -> tuple:
        return (self.settings_id, self.n, self.rep)

    def fit(self) -> dict:
        """The whole fit record (:meth:`numeric.fitting.DeclaredFit.to_dict`, declaration left out)."""
        return json.loads(self.record)

    def values(self) -> tuple:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self))

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


@dataclass(frozen=True, slots=True)
class DeclaredStore:
    """What a declared store holds besides its fits: the model and the settings by id."""

    digest: str
    name: str
    canonical: dict = field(repr=False)
    declaration: dict = field(repr=False)
    settings: dict = field(repr=False)  # settings id → DeclaredSettings


_TYPES = {"int": "INTEGER", "float": "REAL", "str": "TEXT", "bool": "INTEGER", "float | None": "REAL"}
_FIELDS = [f.name for f in dataclasses.fields(DeclaredRecord)]
_SCHEMA = [
    "CREATE TABLE declaration (digest TEXT PRIMARY KEY, name TEXT NOT NULL, canonical TEXT NOT NULL, "
    "declaration TEXT NOT NULL)",
    "CREATE TABLE settings (id TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE fits ("
    + ", ".join(f"{f.name} {_TYPES[str(f.type)]}" for f in dataclasses.fields(DeclaredRecord))
    + ", PRIMARY KEY (settings_id, n, rep))",
]


def _path(folder) -> Path:
    return Path(folder) / DECLARED_FILE


def _check(connection: sqlite3.Connection, path: Path) -> None:
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if version != DECLARED_SCHEMA_VERSION or not {"declaration", "settings", "fits"} <= tables:
        raise NumericError(f"{str(path)!r}: not a declared-model fit store of this version; move it away")
    columns = [row[1] for row in connection.execute("PRAGMA table_info(fits)")]
    if columns != _FIELDS:
        raise NumericError(f"{str(path)!r}: its fits table has columns {columns}, expected {_FIELDS}")


def _model_row(connection) -> tuple:
    """(digest, name, canonical JSON, declaration JSON) of the store's one model."""
    row = connection.execute("SELECT digest, name, canonical, declaration FROM declaration").fetchone()
    if row is None:  # written in the schema's own transaction: only a file edited by hand lacks it
        raise NumericError("a declared fit store without its model; move it away")
    return tuple(row)


def open_declared(folder, declaration: Declaration) -> sqlite3.Connection:
    """Open (creating) ``folder/declared.sqlite`` for ``declaration``; refuse a store of another model.

    Fails now, before any fit, if the store cannot be written."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NumericError(f"folder {str(folder)!r}: cannot create ({exc.strerror})") from None
    path, mine = _path(folder), digest(declaration)
    if (folder / "fits.sqlite").exists():
        raise NumericError(f"folder {str(folder)!r} holds the hand-written models' store: choose another folder")
    try:
        connection = sqlite3.connect(path)
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("BEGIN IMMEDIATE")  # a read-only file or folder fails here, not after the first fit
        tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not tables:  # the schema and the model in one transaction: whole or absent after a kill
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {DECLARED_SCHEMA_VERSION}")
            content = json.dumps(declaration.to_dict(), sort_keys=True)
            row = (mine, declaration.name, canonical_json(declaration), content)
            connection.execute("INSERT INTO declaration VALUES (?, ?, ?, ?)", row)
        connection.commit()
        _check(connection, path)
    except sqlite3.DatabaseError as exc:
        raise NumericError(f"{str(path)!r}: cannot be written as a fit store ({exc})") from None
    held = _model_row(connection)
    if held[0] != mine:
        connection.close()
        raise NumericError(
            f"{str(path)!r} holds model {held[1]!r} (digest {held[0][:12]}), not {declaration.name!r} "
            f"(digest {mine[:12]}): "
            "two models never pool; choose another folder"
        )
    return connection


def _open_read_only(folder) -> sqlite3.Connection:
    path = _path(folder)
    if not path.exists():
        raise NoFitStore(str(folder))
    try:
        connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
        _check(connection, path)
    except sqlite3.DatabaseError as exc:
        raise NumericError(f"{str(path)!r}: not a fit store ({exc})") from None
    return connection


def count_declared(folder) -> tuple[int, int]:
    """(stores, finished fits) of the declared store in ``folder``: what an interrupted run kept."""
    try:
        connection = _open_read_only(folder)
    except NumericError:
        return (1 if _path(folder).exists() else 0), 0
    try:
        return 1, connection.execute("SELECT COUNT(*) FROM fits").fetchone()[0]
    finally:
        connection.close()


def insert_declared(connection: sqlite3.Connection, settings: DeclaredSettings, record: DeclaredRecord) -> None:
    """Store ``record`` (and its settings), committed at once."""
    connection.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", (record.settings_id, settings.to_json()))
    connection.execute(f"INSERT OR REPLACE INTO fits VALUES ({','.join('?' * len(_FIELDS))})", record.values())
    connection.commit()


def finished_declared(connection: sqlite3.Connection) -> set:
    return {tuple(row) for row in connection.execute("SELECT settings_id, n, rep FROM fits")}


def _rows(connection) -> list[DeclaredRecord]:
    cursor = connection.execute(f"SELECT {', '.join(_FIELDS)} FROM fits ORDER BY settings_id, n, rep")
    out = []
    for row in cursor:
        values = dict(zip(_FIELDS, row))
        values["converged"] = bool(values["converged"])
        values["worse_than_truth"] = bool(values["worse_than_truth"])
        out.append(DeclaredRecord(**values))
    return out


def _store(connection) -> DeclaredStore:
    model_digest, name, canonical, declaration = _model_row(connection)
    rows = connection.execute("SELECT id, json FROM settings")
    settings = {sid: DeclaredSettings.from_json(text) for sid, text in rows}
    return DeclaredStore(model_digest, name, json.loads(canonical), json.loads(declaration), settings)


def read_declared(folder) -> tuple[DeclaredStore, list[DeclaredRecord]]:
    """The model, the settings and every record of the declared store in ``folder`` (read-only)."""
    connection = _open_read_only(folder)
    try:
        return _store(connection), _rows(connection)
    finally:
        connection.close()


def merge_declared(target, sources) -> dict:
    """Copy every record of the declared stores in ``sources`` into ``target`` (created if needed).

    Every source must hold the same model (digest) as the others and the target, else nothing is
    written. A key already in the target is skipped; differing values (another machine's floating
    point) count as a conflict and the target's record is kept."""
    models = []
    for source in sources:
        connection = _open_read_only(source)
        models.append((source, _model_row(connection)))
        connection.close()
    path = _path(target)
    if path.exists():
        connection = _open_read_only(target)
        models.insert(0, (target, _model_row(connection)))
        connection.close()
    first = models[0]
    for source, row in models[1:]:
        if row[0] != first[1][0]:
            raise NumericError(
                f"{str(source)!r} holds model {row[1]!r} (digest {row[0][:12]}), {str(first[0])!r} holds "
                f"{first[1][1]!r} (digest {first[1][0][:12]}): two models never pool"
            )
    name = first[1][1]
    Path(target).mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path)
    added = skipped = conflicts = 0
    try:
        if not {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}:
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {DECLARED_SCHEMA_VERSION}")
            connection.execute("INSERT INTO declaration VALUES (?, ?, ?, ?)", first[1])
        _check(connection, path)
        existing = {r.key: r for r in _rows(connection)}
        for source in sources:
            other = _open_read_only(source)
            try:
                for row in other.execute("SELECT id, json FROM settings"):
                    connection.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", row)
                for record in _rows(other):
                    if record.key not in existing:
                        connection.execute(f"INSERT INTO fits VALUES ({','.join('?' * len(_FIELDS))})", record.values())
                        existing[record.key] = record
                        added += 1
                    elif _same(existing[record.key], record):
                        skipped += 1
                    else:
                        conflicts += 1
            finally:
                other.close()
        connection.commit()
    finally:
        connection.close()
    return {"added": added, "already_present": skipped, "conflicts": conflicts, "model": name}


def _same(a: DeclaredRecord, b: DeclaredRecord) -> bool:
    """Equal in everything but the wall-clock time (the record's ``seconds`` too)."""

    def values(r: DeclaredRecord):
        fit = r.fit()
        fit.pop("seconds", None)
        return dataclasses.replace(r, seconds=0.0, record=json.dumps(fit, sort_keys=True)).values()

    return values(a) == values(b)
