"""One sqlite layer for numeric's two fit stores: their format, and how a store is created, checked,
opened, written, read and merged.

Each store is a :class:`Layout`: ``fits.sqlite`` (:mod:`numeric.experiments.store`, the attention
models' :class:`~numeric.experiments.store.FitRecord`, schema version 2) and ``declared.sqlite``
(:mod:`numeric.experiments.declared.store`, a declared model's
:class:`~numeric.experiments.declared.store.DeclaredRecord`, schema version 1). The stores keep their
records, settings and messages; everything about sqlite is here, once.

**Format.** A store is one sqlite file ``FOLDER/<Layout.file>``; ``PRAGMA user_version`` holds the
layout's schema version, and its tables are created by the layout's SQL — the text these stores have
always been created with, so a store written before reads, resumes and merges as it did. Every
layout has

- ``settings(id, json)``: the canonical JSON of the settings that produced a record, by its id (a
  hash of that content, computed by the store);
- ``fits``: one row per finished fit, its columns the record dataclass's fields in order (int and
  bool → INTEGER, float → REAL, str → TEXT; a bool is kept as 0 / 1 and read back as a bool, None as
  NULL and read back as None), its primary key the layout's key columns (:func:`fits_table`).

A layout may hold more tables (``declared.sqlite``: ``declaration``, its one model), whose first
rows are written with the schema.

**Guarantees.**

- *Whole or absent.* The tables, the version and the first rows are written in one transaction,
  rolled back on any exception — KeyboardInterrupt included — so an interrupted creation leaves an
  empty file, which the next open fills; never half a schema that every later open refuses.
- *Checked before the first fit.* :func:`open_writable` fails at once, in one line naming the file,
  if it cannot be written (a rolled-back write probes it), is not a store of this layout and
  version, or has other columns.
- *A commit per record* (``synchronous=FULL``, :func:`insert`): a kill loses only the fits in flight.
- *Reading never writes.* :func:`open_read_only` opens with ``mode=ro`` (the path escaped as a URI)
  and refuses a missing file (:class:`~numeric.errors.NoFitStore`), an empty one, or one that is not
  a store of this layout and version.
- *Merge counts a key once* (:func:`merge`): added the first time it is met (in the target or a
  source); met again, it is already present if its record equals the kept one in everything but
  the wall-clock time (``Layout.timeless``; NaN equal to NaN), else a conflict — the kept record
  stays. Every source is checked before anything is written, and the records go in one
  transaction: an error or an interrupt adds none.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import NoFitStore, NumericError

__all__ = [
    "SETTINGS_TABLE",
    "Layout",
    "count",
    "fits_table",
    "finished_keys",
    "insert",
    "merge",
    "open_read_only",
    "open_writable",
    "read_records",
    "read_settings_rows",
    "without_seconds",
]

#: the settings table of every store: (name, SQL)
SETTINGS_TABLE = ("settings", "CREATE TABLE settings (id TEXT PRIMARY KEY, json TEXT NOT NULL)")

_SQL_TYPES = {"int": "INTEGER", "float": "REAL", "str": "TEXT", "bool": "INTEGER", "float | None": "REAL"}


def _type_name(field: dataclasses.Field) -> str:
    """A field's annotation as written (postponed annotations are strings already)."""
    return field.type if isinstance(field.type, str) else getattr(field.type, "__name__", str(field.type))


def fits_table(record: type, key: Sequence[str]) -> tuple[str, str]:
    """The ``fits`` table of ``record`` (a dataclass): one column per field, in order, keyed by ``key``."""
    columns = ", ".join(f"{f.name} {_SQL_TYPES[_type_name(f)]}" for f in dataclasses.fields(record))
    return "fits", f"CREATE TABLE fits ({columns}, PRIMARY KEY ({', '.join(key)}))"


def without_seconds(record: Any) -> tuple:
    """A record's values but its wall-clock time (the field ``seconds``): what merge compares."""
    return tuple(getattr(record, f.name) for f in dataclasses.fields(record) if f.name != "seconds")


@dataclass(frozen=True, slots=True)
class Layout:
    """One store's file, schema and record: everything the shared operations need to know of it."""

    file: str  # the file name in a store's folder
    version: int  # PRAGMA user_version
    tables: tuple[tuple[str, str], ...]  # (name, CREATE TABLE text) in creation order: settings and fits among them
    record: type  # the record dataclass: its fields are the fits table's columns
    key: tuple[str, ...]  # the fits table's primary key
    kind: str = "fit store"  # how a refusal names a file that is not one
    older: str = ""  # why a store of an older version (with a fits table) is refused; "" : not of this version
    timeless: Callable[[Any], tuple] = without_seconds  # a record's values but its wall-clock time

    def path(self, folder) -> Path:
        return Path(folder) / self.file

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self.record))

    @property
    def bools(self) -> frozenset[str]:
        return frozenset(f.name for f in dataclasses.fields(self.record) if _type_name(f) == "bool")


def _tables(connection: sqlite3.Connection) -> set[str]:
    return {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def check(connection: sqlite3.Connection, layout: Layout, path: Path) -> None:
    """Refuse, in one line naming ``path``, a file that is not a store of ``layout`` at its version."""
    version = connection.execute("PRAGMA user_version").fetchone()[0]
    tables = _tables(connection)
    if version != layout.version or not {name for name, _ in layout.tables} <= tables:
        old = layout.older and "fits" in tables and version < layout.version
        why = layout.older if old else f"it is not a {layout.kind} of this version"
        raise NumericError(f"{str(path)!r}: {why}; move it away or choose another folder")
    columns = [row[1] for row in connection.execute("PRAGMA table_info(fits)")]
    if columns != list(layout.columns):
        raise NumericError(f"{str(path)!r}: its fits table has columns {columns}, expected {list(layout.columns)}")


def open_writable(layout: Layout, folder, first_rows: Iterable[tuple[str, tuple]] = ()) -> sqlite3.Connection:
    """Open (creating) the store of ``layout`` in ``folder`` for writing; fail now, before any fit, if
    it cannot be written or is not such a store.

    A new store gets its tables, its version and ``first_rows`` ((table, row) pairs) in one
    transaction; an existing one is probed with a write that is rolled back."""
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NumericError(f"folder {str(folder)!r}: cannot create ({exc.strerror})") from None
    path = layout.path(folder)

    def prepare(connection: sqlite3.Connection) -> None:
        connection.execute("PRAGMA synchronous=FULL")
        _create_or_probe(connection, layout, first_rows)
        check(connection, layout, path)

    # a sqlite error here (read-only, locked, not a database) is the file's: one line naming it
    return _connected(path, "cannot be written as a fit store", prepare, path)


def _connected(path: Path, what: str, prepare: Callable[[sqlite3.Connection], None], *args, **kwargs):
    """``sqlite3.connect(*args, **kwargs)``, then ``prepare`` it; closed on any failure, and a sqlite
    error raised as one line: ``'path': what (sqlite's message)``."""
    try:
        connection = sqlite3.connect(*args, **kwargs)
    except sqlite3.DatabaseError as exc:
        raise NumericError(f"{str(path)!r}: {what} ({exc})") from None
    try:
        prepare(connection)
    except sqlite3.DatabaseError as exc:
        connection.close()
        raise NumericError(f"{str(path)!r}: {what} ({exc})") from None
    except BaseException:
        connection.close()
        raise
    return connection


def _create_or_probe(connection: sqlite3.Connection, layout: Layout, first_rows) -> None:
    """In one write transaction (``BEGIN IMMEDIATE``: a read-only file or folder fails here): an
    empty file gets the whole schema, committed; an existing store is probed, rolled back."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        if _tables(connection):
            connection.execute("CREATE TABLE IF NOT EXISTS _writable_probe (x)")
            connection.rollback()
            return
        for _, statement in layout.tables:
            connection.execute(statement)
        connection.execute(f"PRAGMA user_version = {int(layout.version)}")
        for table, row in first_rows:
            connection.execute(f"INSERT INTO {table} VALUES ({','.join('?' * len(row))})", row)
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def open_read_only(layout: Layout, folder) -> sqlite3.Connection:
    """Open the store of ``layout`` in ``folder`` read-only; refuse what is not such a store."""
    path = layout.path(folder)
    if not path.exists():
        raise NoFitStore(str(folder))
    if path.stat().st_size == 0:
        raise NumericError(f"{str(path)!r}: an empty file, not a fit store")
    uri = path.resolve().as_uri() + "?mode=ro"  # escaped: '?' or '#' in a folder's name
    return _connected(path, "not a fit store", lambda connection: check(connection, layout, path), uri, uri=True)


def _placeholders(layout: Layout) -> str:
    return ",".join("?" * len(layout.columns))


def _values(layout: Layout, record) -> tuple:
    return tuple(getattr(record, name) for name in layout.columns)


def insert(connection: sqlite3.Connection, layout: Layout, settings: tuple[str, str], record) -> None:
    """Store ``record`` and its ``settings`` (id, JSON), committed at once (a record of the same key
    is replaced: a rerun of a fit)."""
    try:
        connection.execute("INSERT OR IGNORE INTO settings VALUES (?, ?)", settings)
        connection.execute(f"INSERT OR REPLACE INTO fits VALUES ({_placeholders(layout)})", _values(layout, record))
        connection.commit()
    except BaseException:
        connection.rollback()
        raise


def finished_keys(connection: sqlite3.Connection, layout: Layout) -> set[tuple]:
    """The keys of the records in the store: the fits a rerun skips."""
    return {tuple(row) for row in connection.execute(f"SELECT {', '.join(layout.key)} FROM fits")}


def read_records(connection: sqlite3.Connection, layout: Layout) -> list:
    """Every record, ordered by key; bools read back as bools, NULL as None."""
    columns, bools = layout.columns, layout.bools
    cursor = connection.execute(f"SELECT {', '.join(columns)} FROM fits ORDER BY {', '.join(layout.key)}")
    records = []
    for row in cursor:
        values = dict(zip(columns, row))
        for name in bools:
            if values[name] is not None:
                values[name] = bool(values[name])
        records.append(layout.record(**values))
    return records


def read_settings_rows(connection: sqlite3.Connection) -> list[tuple[str, str]]:
    """The (id, JSON) rows of the settings table."""
    return [tuple(row) for row in connection.execute("SELECT id, json FROM settings")]


def count(connection: sqlite3.Connection) -> int:
    """How many records the store holds."""
    return connection.execute("SELECT COUNT(*) FROM fits").fetchone()[0]


def _comparable(values: tuple) -> tuple:
    return tuple(None if isinstance(v, float) and v != v else v for v in values)


def merge(layout: Layout, target, sources: Sequence, first_rows: Iterable[tuple[str, tuple]] = ()) -> dict:
    """Copy every record of the stores in ``sources`` into the store in ``target`` (created with
    ``first_rows`` if needed); returns ``{"added", "already_present", "conflicts"}``.

    Each key counts once: added when first met, then already present (equal but for the time) or a
    conflict (the kept record stays). Nothing is written if a source is not a store, or if there is
    none."""
    sources = list(sources)
    if not sources:
        raise NumericError(param="sources", value="[]", reason="no store to merge: give at least one source folder")
    for source in sources:
        open_read_only(layout, source).close()
    connection = open_writable(layout, target, first_rows)
    placeholders, added, skipped, conflicts = _placeholders(layout), 0, 0, 0
    try:
        kept = {tuple(getattr(r, k) for k in layout.key): r for r in read_records(connection, layout)}
        for source in sources:
            other = open_read_only(layout, source)
            try:
                connection.executemany("INSERT OR IGNORE INTO settings VALUES (?, ?)", read_settings_rows(other))
                for record in read_records(other, layout):
                    key = tuple(getattr(record, k) for k in layout.key)
                    if key not in kept:
                        connection.execute(f"INSERT INTO fits VALUES ({placeholders})", _values(layout, record))
                        kept[key] = record
                        added += 1
                    elif _comparable(layout.timeless(kept[key])) == _comparable(layout.timeless(record)):
                        skipped += 1
                    else:
                        conflicts += 1
            finally:
                other.close()
        connection.commit()
    except BaseException:
        connection.rollback()
        raise
    finally:
        connection.close()
    return {"added": added, "already_present": skipped, "conflicts": conflicts}
