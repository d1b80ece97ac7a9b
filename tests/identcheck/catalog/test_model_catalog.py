"""``identcheck catalog --models``: a row per shipped declaration, its verdict or its refusal."""

from identcheck.catalog.models import model_catalog_markdown, model_catalog_rows, model_catalog_text


def test_rows_say_the_verdict_or_the_refusal():
    rows = model_catalog_rows(names=["deepseek-tanh", "deepseek-d1"])
    tanh, relu = rows
    assert tanh["verdict"] == "inconclusive" and tanh["refused"] is None  # β1* = (5, 5): a gate constant in x
    assert {a["rbar"] for atoms in tanh["parts"].values() for a in atoms} == {2}
    assert relu["verdict"] is None and "relu is not differentiable at 0" in relu["refused"]
    table = model_catalog_markdown(rows).splitlines()
    assert table[2] == "| model | verdict | cells of two atoms: r̄ and exponents | s |"
    assert table[4].startswith("| deepseek-tanh | inconclusive (numeric) | routed: r̄(2) = 2")
    assert table[5].startswith("| deepseek-d1 | refused | refused: parts.routed.expert=")
    text = model_catalog_text(rows).splitlines()
    assert text[0].startswith("deepseek-tanh  inconclusive (numeric)") and len(text) == 4


ROWS = [{"model": "deepseek-d1", "verdict": None, "refused": "relu is not differentiable at 0", "seconds": 0.0}]


def test_a_failing_models_verdict_says_where_it_bites():
    """mha fails through the PDE Σ_j a_j ∂u/∂a_j = u, a first derivative against F: order 1."""
    (mha,) = model_catalog_rows(names=["mha"])
    assert mha["verdict"] == "not identifiable" and mha["bites"] == {"order": 1, "cells": "exact-fitted"}
    row = model_catalog_markdown([mha]).splitlines()[4]
    assert row.startswith("| mha | not identifiable (proof; order 1: bites in exact-fitted cells) |"), row


def test_the_command_prints_text_markdown_or_json(capsys, monkeypatch):
    import json

    from identcheck.catalog import models
    from identcheck.cli.main import main

    monkeypatch.setattr(models, "model_catalog_rows", lambda progress=None, jobs=1: ROWS)
    assert main(["catalog", "--models"]) == 0
    assert capsys.readouterr().out == model_catalog_text(ROWS)
    assert main(["catalog", "--models", "--markdown"]) == 0
    assert capsys.readouterr().out == model_catalog_markdown(ROWS)
    assert main(["catalog", "--models", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == ROWS
    assert main(["catalog", "--models", "--experts"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "--models: not with --experts" in err
