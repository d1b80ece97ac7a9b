"""The model-level verdict's ``bites`` (the same record as the check's relations, identcheck/util/bites.py)
and ``unfinished`` (the steps the budget cut), in the verdict, the text and the JSON.

First order, derived by hand: the MHA's linear expert F = exp(M x²)·a x (d = 1) has ∂F/∂a = x·exp(M x²) =
F/a, a relation between a first derivative and F — Euler's Σ_j a_j ∂F/∂a_j = F — so a move of a cancels
against the weight at first order: it bites in exact-fitted cells. Only over-fitted cells: Setting I's
recombination with K ≥ K* + 2 fitted atoms per group (an exact re-pairing, docs/findings.md) needs a cell of
two fitted atoms or more, and is no relation among Taylor terms (order None).
"""

import dataclasses
import json

import sympy as sp

from identcheck.declaration import example_path, parse_declaration
from identcheck.evidence import Verdict
from identcheck.model import verdict_text
from identcheck.model.decide import INCONCLUSIVE, NON_TRIVIAL, SystemDecision
from identcheck.model.declared import DeclaredCheck
from identcheck.model.examples import mha_linear_expert
from identcheck.model.recombination import recombinations
from identcheck.model.text import declared_markdown, declared_text
from identcheck.model.verdict import CellResult, check_atom
from identcheck.util.bites import Bites, Cells


def test_the_linear_experts_euler_relation_bites_in_exact_fitted_cells():
    x, m, a = sp.symbols("x m a", real=True)
    f = sp.exp(m * x**2) * a * x
    assert sp.simplify(a * sp.diff(f, a) - f) == 0  # Euler, by hand: first derivative against F
    verdict = check_atom(mha_linear_expert(dim=1), max_order=2, max_cell=2, seconds=30)
    assert verdict.verdict == Verdict.NOT_IDENTIFIABLE
    assert verdict.bites == Bites(1, Cells.EXACT_FITTED)
    assert all(sum(r.term) == 1 for r in verdict.exact_fitted.breaking) and verdict.exact_fitted.breaking
    data = json.loads(json.dumps(verdict.to_dict()))
    assert data["bites"] == {"order": 1, "cells": "exact-fitted"} and data["unfinished"] == []
    assert "order 1: bites in exact-fitted cells" in verdict_text(verdict)
    model = DeclaredCheck("mha", (("channels", verdict),), False)
    assert model.bites == verdict.bites and model.to_dict()["bites"] == data["bites"]
    assert "order 1: bites in exact-fitted cells" in declared_text(model)
    assert "| order 1: bites in exact-fitted cells |" in declared_markdown(model)


def test_a_local_recombination_bites_only_in_over_fitted_cells():
    text = example_path("setting1").read_text(encoding="utf-8").replace("fitted = 6", "fitted = 8")
    wider = recombinations(parse_declaration(text))
    assert wider and all(r.local for r in wider)
    model = DeclaredCheck("setting1", (), True, recombinations=wider)
    assert model.verdict == Verdict.NOT_IDENTIFIABLE and model.bites == Bites(None, Cells.OVER_FITTED)
    assert model.to_dict()["bites"] == {"order": None, "cells": "over-fitted"}
    assert "bites only in over-fitted cells (|V| ≥ 2)" in declared_text(model)
    narrow = recombinations(parse_declaration(example_path("setting1").read_text(encoding="utf-8")))
    assert DeclaredCheck("setting1", (), True, recombinations=narrow).bites is None  # K = K* + 1: no local path


def test_the_steps_the_budget_cut_are_listed():
    verdict = check_atom(mha_linear_expert(dim=1), max_order=2, max_cell=2, seconds=30)
    assert verdict.unfinished == ()
    searched = SystemDecision(2, 1, NON_TRIVIAL, True, "exact solution", (), {}, None, (), 0.1)
    cut = SystemDecision(
        2, 2, INCONCLUSIVE, False, "out of time (1 of 2 cases not searched)", (), None, None,
        ("case da_1 = 1: search not run (no time)", "case dM_1 = 1: exact solution not found"), 0.1,
    )  # fmt: skip
    cells = (CellResult(2, None, False, (searched, cut)), CellResult(3, None, False, (searched,)))
    shorter = dataclasses.replace(verdict, basis=dataclasses.replace(verdict.basis, requested=4), cells=cells)
    assert shorter.unfinished == (
        "terms built to order 2 of 4",
        "cells of 2 atom(s), order 2: case da_1 = 1: search not run (no time)",
        "cells of 3 atom(s): order 2 not tried (no time left)",
    )
    model = DeclaredCheck("mha", (("channels", shorter),), False, unfinished=("the joint step did not finish",))
    assert model.to_dict()["unfinished"] == ["the joint step did not finish"] + [
        f"{shorter.atom.name}: {u}" for u in shorter.unfinished
    ]
    assert "cut by the budget: terms built to order 2 of 4" in declared_text(model)
