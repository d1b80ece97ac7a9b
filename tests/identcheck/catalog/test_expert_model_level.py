"""``identcheck catalog --experts --model-level``: the model-level record of an expert's part, checked
against ``identcheck model`` run on the declaration written as a file (identcheck/catalog/expert_models.py)."""

import json
import tomllib
from pathlib import Path

import pytest

from identcheck.catalog import experts
from identcheck.catalog.expert_models import model_level_cell, model_level_words
from identcheck.cli.main import main
from identcheck.declaration.deepseek_expert import (
    declaration_toml,
    expert_declaration_data,
    generic_atoms,
    parse_base_expert,
)

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "conditions" / "deepseekmoe_catalog.md"
EXP = "exp(dot(e1, x))"  # one parameter: both parts' checks take about a second
GAUSS_2D = "e2*exp(-(x1 - e1)**2 - (x2 - e0)**2)"


@pytest.fixture(scope="module")
def exp_rows():
    return experts.expert_catalog_rows(entries=[(EXP, ""), (GAUSS_2D, "d = 2")], model_level=True)


@pytest.mark.parametrize(("condition", "part"), [("deepseek-shared", "shared"), ("deepseek-routed", "routed")])
def test_the_cell_is_what_identcheck_model_says_of_the_same_declaration(exp_rows, tmp_path, capsys, condition, part):
    """A second path through the command line: the declaration written to a TOML file (seed 0's truth
    drawn here), read by ``identcheck model FILE --json`` at the catalog's order, cells and seconds. Both
    sides build the declaration with ``expert_declaration_data`` (its values are checked by hand in
    tests/identcheck/declaration/test_deepseek_expert.py); the independent oracle here is r̄(2) = 2,
    derived by hand below."""
    atoms = generic_atoms(parse_base_expert(EXP), 0)
    data = expert_declaration_data(condition, EXP, atoms)
    text = declaration_toml(data)
    assert tomllib.loads(text) == data
    path = tmp_path / "model.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["model", str(path), "--order", "4", "--cells", "2", "--seconds", "120", "--json"]) == 0
    direct = json.loads(capsys.readouterr().out)
    record = exp_rows[0][condition]["model_level"]
    assert record["part"] == part and record["refused"] is None
    assert (
        (record["verdict"], record["evidence"]) == (direct["verdict"], direct["evidence"]) == ("identifiable", "proof")
    )
    mine = [a for a in direct["atoms"] if a["part"] == part]
    assert [a["atom"] for a in record["atoms"]] == [a["atom"]["name"] for a in mine] == [f"{part}[1]", f"{part}[2]"]
    for got, want in zip(record["atoms"], mine):
        assert got["verdict"] == want["verdict"]
        assert [(c["m"], c["rbar"], c["proved"], c["exponents"]) for c in got["cells"]] == [
            (c["m"], c["rbar"], c["proved"], c["exponents"]) for c in want["cells"]
        ]
    # h = exp(e1 x): ∂²h/∂e1² = x²h is new at order 2, so two atoms in a cell are told apart at order 2
    assert {c["rbar"] for a in record["atoms"] for c in a["cells"] if c["m"] == 2} == {2}
    assert record["unfinished"] == direct["unfinished"] == []
    assert model_level_words(record) == "identifiable (proof; r̄(2) = 2)"


def test_routed_and_weak_share_one_check_and_one_record(exp_rows, monkeypatch):
    row = exp_rows[0]
    assert row["deepseek-routed"]["model_level"] is row["deepseek-weak"]["model_level"]
    assert row["deepseek-routed"]["model_level"]["conditions"] == ["deepseek-routed", "deepseek-weak"]
    assert row["deepseek-shared"]["model_level"]["conditions"] == ["deepseek-shared"]
    calls = []

    def counted(expert, part, seconds):
        calls.append((expert, part, seconds))
        return {"part": part}

    monkeypatch.setattr(experts, "model_level_cell", counted)
    monkeypatch.setattr(experts, "check", lambda expert, condition: _Stub())
    experts.expert_catalog_rows(entries=[(EXP, "")], model_level=True, model_seconds=7)
    assert sorted(calls) == [(EXP, "routed", 7.0), (EXP, "shared", 7.0)]


class _Stub:  # a literal check's result with nothing found
    verdict, evidence, witness_probe, probes, details = "identifiable", "numeric", None, (), {}


def test_an_expert_in_x2_is_refused_with_its_reason_not_crashed(exp_rows):
    row = exp_rows[1]
    for condition in experts.EXPERT_CONDITIONS:
        record = row[condition]["model_level"]
        assert record["verdict"] is None and "x2 is not a component of x in dimension d = 1" in record["refused"]
        assert row[condition]["verdict"] in ("identifiable", "not identifiable")  # the literal check still ran
    table = experts.expert_catalog_markdown(exp_rows).splitlines()
    assert "| expert | condition | verdict | model level | witness | reach | beyond its template |" in table
    shared = next(line for line in table if line.startswith(f"| `{GAUSS_2D}`"))
    assert "| refused: x2 is not a component of x in dimension d = 1 (x1..x1) |" in shared


def test_the_table_states_the_budget_and_takes_rows_without_a_record(exp_rows):
    """The header names the budget the checks were given (120 s here), a table whose every record was
    refused (no budget) says so in words rather than leaving a gap, and a row without a model-level
    record beside rows with one gets a dash, not a crash."""
    text = experts.expert_catalog_markdown(exp_rows)
    assert "cells of ≤ 2 atoms, 120 s per check" in text
    refused_only = experts.expert_catalog_markdown([exp_rows[1]])
    assert "cells of ≤ 2 atoms, the seconds given per check" in refused_only and ",  per" not in refused_only
    bare = {**exp_rows[0], **{c: {**exp_rows[0][c], "model_level": None} for c in experts.EXPERT_CONDITIONS}}
    table = experts.expert_catalog_markdown([exp_rows[1], bare]).splitlines()
    row = next(line for line in table if line.startswith(f"| `{EXP}`"))
    assert row.split(" | ")[3] == "—"


def test_a_check_the_budget_cut_says_inconclusive_and_names_the_step():
    record = model_level_cell("e2*tanh(dot(e1, x) + e0)", "routed", seconds=0.3)
    assert record["verdict"] == "inconclusive" and record["unfinished"]
    words = model_level_words(record)
    assert words.startswith("inconclusive (numeric; cut by the budget: "), words
    first = record["unfinished"][0]  # the model-wide steps come first (DeclaredCheck.cut)
    named = "the joint independence step" if first.startswith("the joint independence of") else first
    assert f"cut by the budget: {named}" in words


def test_without_the_flag_the_cells_say_null_and_the_table_has_no_model_column(monkeypatch):
    monkeypatch.setattr(experts, "check", lambda expert, condition: _Stub())
    [row] = experts.expert_catalog_rows(entries=[(EXP, "")])
    assert all(row[c]["model_level"] is None for c in experts.EXPERT_CONDITIONS)
    header = [line for line in experts.expert_catalog_markdown([row]).splitlines() if line.startswith("| expert")]
    assert header == ["| expert | condition | verdict | witness | reach | beyond its template |"]


def test_the_committed_page_has_the_model_level_of_exp(exp_rows):
    committed = COMMITTED.read_text(encoding="utf-8")
    assert "| verdict | model level |" in committed
    shown = model_level_words(exp_rows[0]["deepseek-shared"]["model_level"])
    line = next(line for line in committed.splitlines() if line.startswith(f"| `{EXP}`"))
    assert line.split(" | ")[3] == shown
