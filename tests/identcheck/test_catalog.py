"""The committed catalog table is regenerated and compared: a stale docs/catalog.md fails here.

Regenerate with: identcheck catalog --markdown --out docs/catalog.md
"""

from pathlib import Path

from identcheck.catalog import CATALOG, catalog_rows, to_markdown

COMMITTED = Path(__file__).resolve().parents[2] / "docs" / "catalog.md"


def test_catalog_has_at_least_twenty_activations_with_and_without_bias():
    names = [phi for phi, _ in CATALOG]
    assert len(names) >= 20
    assert "sigmoid(z + 1)" in names and "sigmoid(z)" in names and "z" in names


def test_committed_catalog_is_current():
    rows = catalog_rows(jobs=2)
    fresh = to_markdown(rows)
    assert fresh == COMMITTED.read_text(encoding="utf-8"), (
        "docs/catalog.md is stale: run `identcheck catalog --markdown --out docs/catalog.md`"
    )
    by_phi = {row["phi"]: row for row in rows}
    assert by_phi["z"]["type1"]["verdict"] == by_phi["z"]["type2"]["verdict"] == "not identifiable"
    assert by_phi["sigmoid(z + 1)"]["type1"]["verdict"] == by_phi["sigmoid(z + 1)"]["type2"]["verdict"] == "identifiable"
