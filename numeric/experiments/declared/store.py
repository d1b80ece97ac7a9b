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
(``fits.sqlite``, :mod:`numeric.experiments.store`) is a separate file; both go through one sqlite
layer, :mod:`numeric.experiments.sqlite_store` (the format, its guarantees, merge), with this
module's :data:`LAYOUT`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from identcheck.declaration import Declaration, canonical_json, digest

from ...errors import NumericError
from .. import sqlite_store

__all__ = [
    "DECLARED_FILE",
    "DECLARED_SCHEMA_VERSION",
    "DeclaredRecord",
    "DeclaredSettings",
    "DeclaredStore",
    "LAYOUT",
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


def _timeless(record: DeclaredRecord) -> tuple:
    """Its values but the wall-clock time: the field ``seconds`` and the fit record's own."""
    fit = record.fit()
    fit.pop("seconds", None)
    return sqlite_store.without_seconds(dataclasses.replace(record, record=json.dumps(fit, sort_keys=True)))


_KEY = ("settings_id", "n", "rep")
LAYOUT = sqlite_store.Layout(
    file=DECLARED_FILE,
    version=DECLARED_SCHEMA_VERSION,
    tables=(
        (
            "declaration",
            "CREATE TABLE declaration (digest TEXT PRIMARY KEY, name TEXT NOT NULL, canonical TEXT NOT NULL, "
            "declaration TEXT NOT NULL)",
        ),
        sqlite_store.SETTINGS_TABLE,
        sqlite_store.fits_table(DeclaredRecord, _KEY),
    ),
    record=DeclaredRecord,
    key=_KEY,
    kind="declared-model fit store",
    timeless=_timeless,
)


def _model_row(connection) -> tuple:
    """(digest, name, canonical JSON, declaration JSON) of the store's one model."""
    row = connection.execute("SELECT digest, name, canonical, declaration FROM declaration").fetchone()
    if row is None:  # written in the schema's own transaction: only a file edited by hand lacks it
        raise NumericError("a declared fit store without its model; move it away")
    return tuple(row)


def _declaration_row(declaration: Declaration) -> tuple:
    content = json.dumps(declaration.to_dict(), sort_keys=True)
    return (digest(declaration), declaration.name, canonical_json(declaration), content)


def open_declared(folder, declaration: Declaration) -> sqlite3.Connection:
    """Open (creating) ``folder/declared.sqlite`` for ``declaration``; refuse a store of another model.

    Fails now, before any fit, if the store cannot be written. A new store gets its model in the
    schema's own transaction: whole or absent after a kill."""
    folder = Path(folder)
    if (folder / "fits.sqlite").exists():
        raise NumericError(f"folder {str(folder)!r} holds the hand-written models' store: choose another folder")
    row = _declaration_row(declaration)
    connection = sqlite_store.open_writable(LAYOUT, folder, [("declaration", row)])
    try:
        held = _model_row(connection)
    except BaseException:
        connection.close()
        raise
    if held[0] != row[0]:
        connection.close()
        raise NumericError(
            f"{str(LAYOUT.path(folder))!r} holds model {held[1]!r} (digest {held[0][:12]}), not {declaration.name!r} "
            f"(digest {row[0][:12]}): "
            "two models never pool; choose another folder"
        )
    return connection


def count_declared(folder) -> tuple[int, int]:
    """(stores, finished fits) of the declared store in ``folder``: what an interrupted run kept."""
    try:
        connection = sqlite_store.open_read_only(LAYOUT, folder)
    except NumericError:
        return (1 if LAYOUT.path(folder).exists() else 0), 0
    try:
        return 1, sqlite_store.count(connection)
    finally:
        connection.close()


def insert_declared(connection: sqlite3.Connection, settings: DeclaredSettings, record: DeclaredRecord) -> None:
    """Store ``record`` (and its settings), committed at once."""
    sqlite_store.insert(connection, LAYOUT, (record.settings_id, settings.to_json()), record)


def finished_declared(connection: sqlite3.Connection) -> set:
    return sqlite_store.finished_keys(connection, LAYOUT)


def _store(connection) -> DeclaredStore:
    model_digest, name, canonical, declaration = _model_row(connection)
    rows = sqlite_store.read_settings_rows(connection)
    settings = {sid: DeclaredSettings.from_json(text) for sid, text in rows}
    return DeclaredStore(model_digest, name, json.loads(canonical), json.loads(declaration), settings)


def read_declared(folder) -> tuple[DeclaredStore, list[DeclaredRecord]]:
    """The model, the settings and every record of the declared store in ``folder`` (read-only)."""
    connection = sqlite_store.open_read_only(LAYOUT, folder)
    try:
        return _store(connection), sqlite_store.read_records(connection, LAYOUT)
    finally:
        connection.close()


def merge_declared(target, sources) -> dict:
    """Copy every record of the declared stores in ``sources`` into ``target`` (created if needed).

    Every source must hold the same model (digest) as the others and the target, else nothing is
    written. A key is counted once: the first record met is kept; met again, with the same values
    but the wall-clock time it is already present, with other values (another machine's floating
    point) a conflict (:func:`numeric.experiments.sqlite_store.merge`)."""
    sources = list(sources)
    if not sources:
        raise NumericError(param="sources", value="[]", reason="no store to merge: give at least one source folder")
    models = []
    for folder in ([target] if LAYOUT.path(target).exists() else []) + sources:
        connection = sqlite_store.open_read_only(LAYOUT, folder)
        try:
            models.append((folder, _model_row(connection)))
        finally:
            connection.close()
    first = models[0]
    for source, row in models[1:]:
        if row[0] != first[1][0]:
            raise NumericError(
                f"{str(source)!r} holds model {row[1]!r} (digest {row[0][:12]}), {str(first[0])!r} holds "
                f"{first[1][1]!r} (digest {first[1][0][:12]}): two models never pool"
            )
    counts = sqlite_store.merge(LAYOUT, target, sources, [("declaration", first[1])])
    return counts | {"model": first[1][1]}
