"""The one sqlite layer of numeric's two fit stores (numeric/experiments/sqlite_store.py; docs/numeric.md, "The store").

The oracle is independent of the code under test: the schemas below are the stores' SQL copied as
sqlite keeps it (``fits.sqlite`` version 2, ``declared.sqlite`` version 1), and old stores are built
from it with raw sqlite3. Every test runs on both stores.
"""

import json
import sqlite3
from contextlib import closing
from dataclasses import dataclass

import pytest

from identcheck.declaration import canonical_json, digest, read_example
from numeric.errors import NumericError
from numeric.experiments import store as fits_store
from numeric.experiments.declared import store as declared_store
from numeric.experiments.declared.sweep import DeclaredGrid, run_declared
from numeric.experiments.sweep import Grid, run_grid

FITS_SCHEMA = (
    "CREATE TABLE settings (id TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE fits (settings_id TEXT, model TEXT, K INTEGER, n INTEGER, rep INTEGER, seed INTEGER, "
    "voronoi_loss REAL, loss_kind TEXT, mse REAL, truth_mse REAL, start_mse REAL, regression_l2 REAL, "
    "regression_se REAL, iterations INTEGER, converged INTEGER, active_bounds INTEGER, seconds REAL, "
    "params TEXT, PRIMARY KEY (settings_id, model, K, n, rep))",
)
DECLARED_SCHEMA = (
    "CREATE TABLE declaration (digest TEXT PRIMARY KEY, name TEXT NOT NULL, canonical TEXT NOT NULL, "
    "declaration TEXT NOT NULL)",
    "CREATE TABLE settings (id TEXT PRIMARY KEY, json TEXT NOT NULL)",
    "CREATE TABLE fits (settings_id TEXT, n INTEGER, rep INTEGER, digest TEXT, seed INTEGER, objective_kind TEXT, "
    "objective REAL, truth_objective REAL, start_objective REAL, worse_than_truth INTEGER, loss REAL, "
    "iterations INTEGER, converged INTEGER, active_bounds INTEGER, seconds REAL, record TEXT, "
    "PRIMARY KEY (settings_id, n, rep))",
)
MODEL = read_example("softmax-gaussian-moe")
MODEL_ROW = (digest(MODEL), MODEL.name, canonical_json(MODEL), json.dumps(MODEL.to_dict(), sort_keys=True))
SID = "0123456789abcdef"
FITS_SETTINGS = (
    '{"box":2.0,"experiment":"","gd_objective":"mean","init":"paper","optimizer":"lm","seed":0,"truth":{"name":"t"}}'
)
DECLARED_SETTINGS = '{"box":2.0,"init_scale":1.0,"method":"em","restarts":0,"seed":0,"start":"paper"}'


@dataclass(frozen=True)
class Kind:
    """One store as the tests see it: its file, the oracle's schema, and its public functions."""

    file: str
    version: int
    schema: tuple
    columns: tuple  # the fits table's columns, in order
    bools: tuple  # the columns that read back as bool
    objective: str  # a column of the result (differing: a conflict)

    def row(self, n=300, rep=0, objective=0.25, seconds=1.5, flag=1, loss=0.125):
        """A fits row in column order (bools as sqlite keeps them: 0 / 1)."""
        if self.file == "fits.sqlite":
            values = (SID, "mha", 2, n, rep, 7, objective, "voronoi", 0.5, 0.375, 2.0, 0.0625, 0.01, 40, flag, 3)
            return values + (seconds, '{"omega": [], "M": [], "a": []}')
        record = json.dumps({"seconds": seconds, "atoms": [[1.0, 2.0]]}, sort_keys=True)
        values = (SID, n, rep, MODEL_ROW[0], 7, "loglik", objective, 0.5, -1.0, flag, loss, 40, 1 - flag, 3)
        return values + (seconds, record)

    def build(self, folder, rows):
        """An old store: the oracle's schema and ``rows``, written with raw sqlite3."""
        folder.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(folder / self.file)) as connection:
            for statement in self.schema:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {self.version}")
            settings = FITS_SETTINGS if self.file == "fits.sqlite" else DECLARED_SETTINGS
            connection.execute("INSERT INTO settings VALUES (?, ?)", (SID, settings))
            if self.file == "declared.sqlite":
                connection.execute("INSERT INTO declaration VALUES (?, ?, ?, ?)", MODEL_ROW)
            for row in rows:
                connection.execute(f"INSERT INTO fits VALUES ({','.join('?' * len(row))})", row)
            connection.commit()

    def expected(self, row) -> dict:
        return {c: (bool(v) if c in self.bools else v) for c, v in zip(self.columns, row)}

    def records(self, folder) -> list:
        if self.file == "fits.sqlite":
            return fits_store.read_records(folder)
        return declared_store.read_declared(folder)[1]

    def open(self, folder):
        if self.file == "fits.sqlite":
            return fits_store.open_for_writing(folder)
        return declared_store.open_declared(folder, MODEL)

    def merge(self, target, sources) -> dict:
        if self.file == "fits.sqlite":
            return fits_store.merge_stores(target, sources)
        counts = declared_store.merge_declared(target, sources)
        assert counts.pop("model") == MODEL.name
        return counts


FITS = Kind(
    "fits.sqlite",
    2,
    FITS_SCHEMA,
    tuple(c.split()[0] for c in FITS_SCHEMA[1].split("(", 1)[1].split(", PRIMARY")[0].split(", ")),
    ("converged",),
    "voronoi_loss",
)
DECLARED = Kind(
    "declared.sqlite",
    1,
    DECLARED_SCHEMA,
    tuple(c.split()[0] for c in DECLARED_SCHEMA[2].split("(", 1)[1].split(", PRIMARY")[0].split(", ")),
    ("worse_than_truth", "converged"),
    "objective",
)
KINDS = pytest.mark.parametrize("kind", [FITS, DECLARED], ids=["fits", "declared"])


def _raw(path) -> tuple:
    """(user_version, the tables' SQL, the fits rows) read with raw sqlite3; no file: (0, (), [])."""
    if not path.exists():
        return 0, (), []
    with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT sql FROM sqlite_master WHERE type='table' ORDER BY rowid").fetchall()
        tables = tuple(row[0] for row in tables)
        has_fits = any(sql.startswith("CREATE TABLE fits ") for sql in tables)
        rows = connection.execute("SELECT * FROM fits ORDER BY 1, 2, 3, 4, 5").fetchall() if has_fits else []
    return version, tables, rows


@KINDS
def test_a_new_store_is_written_in_the_old_format(tmp_path, kind):
    kind.open(tmp_path).close()
    assert _raw(tmp_path / kind.file) == (kind.version, kind.schema, [])


@KINDS
def test_an_old_store_still_reads_resumes_and_merges(tmp_path, kind):
    rows = [kind.row(n=300), kind.row(n=600, flag=0)]
    kind.build(tmp_path / "old", rows)
    assert [r.to_dict() for r in kind.records(tmp_path / "old")] == [kind.expected(r) for r in rows]
    connection = kind.open(tmp_path / "old")  # resume: the same store opens for writing, its keys are done
    finished = fits_store.finished_keys if kind is FITS else declared_store.finished_declared
    assert finished(connection) == {r[: 5 if kind is FITS else 3] for r in rows}
    connection.close()
    kind.build(tmp_path / "other", [kind.row(n=1200)])
    assert kind.merge(tmp_path / "merged", [tmp_path / "old", tmp_path / "other"]) == {
        "added": 3,
        "already_present": 0,
        "conflicts": 0,
    }
    assert _raw(tmp_path / "merged" / kind.file) == (kind.version, kind.schema, sorted([*rows, kind.row(n=1200)]))
    assert kind.merge(tmp_path / "old", [tmp_path / "other"])["added"] == 1  # into an old store
    assert _raw(tmp_path / "old" / kind.file)[2] == sorted([*rows, kind.row(n=1200)])


@KINDS
def test_an_old_store_missing_a_fit_resumes_with_that_fit_alone(tmp_path, kind):
    """A whole run's rows copied into an old store but the last: the same command runs one fit."""
    if kind is FITS:
        run = lambda folder: run_grid(Grid(models=("mha",), Ks=(2,), sizes=(300, 600), reps=1), folder, progress=False)  # noqa: E731
    else:
        run = lambda folder: run_declared(MODEL, DeclaredGrid(sizes=(200, 400), reps=1, seed=3), folder, progress=False)  # noqa: E731
    run(tmp_path / "whole")
    whole = _raw(tmp_path / "whole" / kind.file)[2]
    with closing(sqlite3.connect(tmp_path / "whole" / kind.file)) as connection:
        settings = connection.execute("SELECT id, json FROM settings").fetchall()
    old = tmp_path / "old"
    kind.build(old, whole[:-1])
    with closing(sqlite3.connect(old / kind.file)) as connection:
        connection.executemany("INSERT INTO settings VALUES (?, ?)", settings)
        connection.commit()
    counts = run(old)
    assert (counts["ran"], counts["skipped"]) == (1, len(whole) - 1)
    resumed = _raw(old / kind.file)[2]
    assert resumed[:-1] == whole[:-1]  # the old rows untouched
    assert _timeless(kind, resumed) == _timeless(kind, whole)  # the resumed fit: the whole run's, bar its time


def _timeless(kind, rows) -> list:
    """The rows without the wall-clock time (a declared record keeps it in its JSON too)."""
    seconds, out = kind.columns.index("seconds"), []
    for row in rows:
        row = row[:seconds] + row[seconds + 1 :]
        if kind is DECLARED:
            fit = json.loads(row[-1])
            fit.pop("seconds")
            row = row[:-1] + (json.dumps(fit, sort_keys=True),)
        out.append(row)
    return out


class _InterruptedCreation:
    """A sqlite3 connection whose second CREATE TABLE meets Ctrl-C (between two tables)."""

    def __init__(self, connection):
        self._connection, self._creates = connection, 0

    def execute(self, sql, *args):
        if sql.lstrip().upper().startswith("CREATE TABLE"):
            self._creates += 1
            if self._creates == 2:
                raise KeyboardInterrupt
        return self._connection.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self._connection, name)


@KINDS
@pytest.mark.parametrize("how", ["open", "merge"])
def test_an_interrupt_while_a_store_is_created_leaves_no_half_schema(tmp_path, monkeypatch, kind, how):
    """Rolled back, not committed: an empty file, which the same command fills (docs/numeric.md)."""
    kind.build(tmp_path / "source", [kind.row()])
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: _InterruptedCreation(connect(*a, **k)))
    target = tmp_path / "target"
    with pytest.raises(KeyboardInterrupt):
        kind.open(target) if how == "open" else kind.merge(target, [tmp_path / "source"])
    monkeypatch.setattr(sqlite3, "connect", connect)
    assert _raw(target / kind.file) == (0, (), [])
    kind.open(target).close()  # the same command again: created whole (and not locked by the interrupted one)
    assert _raw(target / kind.file) == (kind.version, kind.schema, [])
    assert kind.merge(target, [tmp_path / "source"])["added"] == 1


@KINDS
def test_merge_counts_a_key_in_two_sources_once(tmp_path, kind):
    for name in ("a", "b"):
        kind.build(tmp_path / name, [kind.row(), kind.row(n=600)])
    counts = kind.merge(tmp_path / "merged", [tmp_path / "a", tmp_path / "b"])
    assert counts == {"added": 2, "already_present": 2, "conflicts": 0}
    assert _raw(tmp_path / "merged" / kind.file)[2] == [kind.row(), kind.row(n=600)]


@KINDS
def test_merge_without_a_source_is_refused_and_writes_nothing(tmp_path, kind):
    """No source at all (through the API: the command line asks for one) is a one-line error naming
    the sources, before any store is created; the declared store used to fail with an IndexError."""
    with pytest.raises(NumericError, match="no store to merge") as caught:
        kind.merge(tmp_path / "merged", [])
    assert caught.value.param == "sources" and "\n" not in str(caught.value)
    assert not (tmp_path / "merged").exists() or not any((tmp_path / "merged").iterdir())


@KINDS
def test_merge_reports_a_conflict_but_not_a_different_time(tmp_path, kind):
    kind.build(tmp_path / "a", [kind.row()])
    kind.build(tmp_path / "slower", [kind.row(seconds=9.75)])  # the same result, another wall-clock time
    kind.build(tmp_path / "other", [kind.row(objective=0.375)])  # the same key, another result
    counts = kind.merge(tmp_path / "merged", [tmp_path / "a", tmp_path / "slower", tmp_path / "other"])
    assert counts == {"added": 1, "already_present": 1, "conflicts": 1}
    assert _raw(tmp_path / "merged" / kind.file)[2] == [kind.row()]  # the first record kept
    assert kind.merge(tmp_path / "merged", [tmp_path / "other"])["conflicts"] == 1  # against the target too


@KINDS
def test_a_store_of_another_version_is_refused_in_one_line(tmp_path, kind):
    kind.build(tmp_path, [kind.row()])
    with closing(sqlite3.connect(tmp_path / kind.file)) as connection:
        connection.execute(f"PRAGMA user_version = {kind.version + 1}")
        connection.commit()
    before = (tmp_path / kind.file).read_bytes()
    for action in (lambda: kind.records(tmp_path), lambda: kind.open(tmp_path)):
        with pytest.raises(NumericError, match="of this version") as error:
            action()
        assert "\n" not in str(error.value) and kind.file in str(error.value)
    assert (tmp_path / kind.file).read_bytes() == before


@KINDS
def test_bools_and_none_round_trip(tmp_path, kind):
    """True / False come back as bool (not 1 / 0), None as None; sqlite keeps 0 / 1 and NULL."""
    connection = kind.open(tmp_path)
    if kind is FITS:
        settings = fits_store.Settings(truth={"name": "t"})
        for flag in (True, False):
            values = kind.expected(kind.row(n=300 * (1 + flag), flag=flag)) | {"settings_id": settings.id}
            fits_store.insert(connection, settings, fits_store.FitRecord(**values))
    else:
        settings = declared_store.DeclaredSettings("em")
        for flag, loss in ((True, None), (False, 0.125)):
            values = kind.expected(kind.row(n=300 * (1 + flag), flag=flag, loss=loss))
            declared_store.insert_declared(connection, settings, declared_store.DeclaredRecord(**values))
    connection.close()
    records = kind.records(tmp_path)
    for record, flag in zip(records, (False, True)):
        assert [type(getattr(record, c)) for c in kind.bools] == [bool] * len(kind.bools)
        assert [getattr(record, c) for c in kind.bools] == ([flag] if kind is FITS else [flag, not flag])
        assert json.loads(json.dumps(record.to_dict()))["converged"] is (flag if kind is FITS else not flag)
        assert type(record.active_bounds) is int and record.active_bounds == 3
    if kind is DECLARED:
        assert [r.loss for r in records] == [0.125, None]
    raw = _raw(tmp_path / kind.file)[2]
    for column in kind.bools:
        assert {type(r[kind.columns.index(column)]) for r in raw} == {int}
    if kind is DECLARED:
        assert [r[kind.columns.index("loss")] for r in raw] == [0.125, None]
