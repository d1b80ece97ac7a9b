"""The expert catalog (identcheck/catalog/experts.py): rows regenerated match the committed table."""

from pathlib import Path

from identcheck.catalog.experts import EXPERT_CATALOG, beyond_cell, expert_catalog_markdown, expert_catalog_rows

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "conditions" / "deepseekmoe_catalog.md"


def _literal(line: str) -> str:
    """A committed row without its *model level* column (the 4th; the page is generated with --model-level,
    whose checks tests/identcheck/catalog/test_expert_model_level.py compares)."""
    if not line.startswith("| "):
        return line
    cells = line.split(" | ")
    return " | ".join(cells[:3] + cells[4:]) if len(cells) == 7 else line


def test_regenerated_rows_are_the_committed_ones():
    entries = [e for e in EXPERT_CATALOG if e[0] in ("softplus(dot(e1, x) + e0)", "e0 + e1")]
    assert len(entries) == 2
    rows = expert_catalog_rows(entries=entries)
    weak = {r["expert"]: r["deepseek-weak"] for r in rows}
    assert (
        weak["softplus(dot(e1, x) + e0)"]["verdict"] == "identifiable"
        and weak["e0 + e1"]["verdict"] == "not identifiable"
    )
    # h = e0 + e1: ∂h/∂e0 = ∂h/∂e1 = 1, two first derivatives: order 1
    witness = "D2: random, k = 1 — coinciding members: ∂h2/∂e0 − ∂h2/∂e1 = 0 [order 1: bites in exact-fitted cells]"
    assert weak["e0 + e1"]["witness"] == witness
    table = [
        line for line in expert_catalog_markdown(rows).splitlines() if line.startswith("| `") or line.startswith("|  |")
    ]
    assert len(table) == 6
    committed = [_literal(line) for line in COMMITTED.read_text(encoding="utf-8").splitlines()]
    for line in table:
        assert line in committed, (
            "stale docs/conditions/deepseekmoe_catalog.md: regenerate with "
            f"identcheck catalog --experts --model-level --markdown --out ...\n{line}"
        )


def test_a_row_whose_relations_are_all_unread_says_how_many_and_nothing_else():
    # exp(e1ᵀx + e0'): two atoms sharing e1 are proportional by e^(Δe0), irrational, so no relation is read
    # exactly: S1's 3 members and S2's 6 products (u ≤ v of 3 parameters) tie, S2's shared 1 does not
    [row] = expert_catalog_rows(entries=[("exp(dot(e1, x) + e0)", "")])
    assert row["deepseek-shared"]["reach"] == "9 of unknown reach"
    assert row["deepseek-weak"]["reach"] == "3 of unknown reach"


def test_a_column_says_what_lies_beyond_the_template():
    [row] = expert_catalog_rows(entries=[("e2*gelu(dot(e1, x))", "")])
    routed = row["deepseek-routed"]["beyond_template"]
    assert routed.startswith("12: 6 × atoms tied by a sign symmetry") and "; first: ∂²h2/∂e1⁽¹⁾²[1]" in routed
    header = [line for line in expert_catalog_markdown([row]).splitlines() if line.startswith("| expert")]
    assert header == ["| expert | condition | verdict | witness | reach | beyond its template |"]
    none = {"specific": 0, "families": [], "first": None, "shared": 5, "unknown": 0}
    assert beyond_cell(none) == "none" and beyond_cell(none | {"unknown": 2}) == "none found; 2 of unknown reach"
    assert beyond_cell(None) == ""
