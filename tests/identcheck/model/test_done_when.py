"""The model-level check's acceptance list, each item from a shipped declaration alone (docs/model.md).

The expected values are the literature's, derived independently of the check: r̄(2) = 4 and
r̄(3) = 6 for Gaussian experts (Ho & Nguyen, arXiv 1609.02655, Theorem 4.6: r̄(2) = 4, r̄(3) = 6 for
the location–scale Gaussian, which the softmax-gated linear expert inherits through its heat
relation), D2's exponents (arXiv 2505.10860), ½ Σ p_i ‖Δθ_i‖² = 0 for strongly identifiable atoms
(exponent 2 at every cell size), the MHA's Euler relation Σ_j a_j ∂F/∂a_j = F (F linear in a) and
Setting I's channel recombination at K ≥ K* + 2 (docs/findings.md). The items on times, budgets
and bad input are tests/identcheck/cli/test_model_command.py's and test_declared.py's; the times
are bench/bench_model.py's.
"""

import pytest

from identcheck.declaration import example_path, parse_declaration, read_example
from identcheck.evidence import Evidence, Verdict
from identcheck.model import check_declaration
from identcheck.model.relation import EULER


@pytest.mark.slow  # about 9 s at load 0.5
def test_gaussian_moe_linear_experts_rbar2_is_4_proved():
    result = check_declaration(read_example("softmax-gaussian-moe"))  # the command's defaults: r ≤ 4, m ≤ 2
    assert result.verdict == Verdict.IDENTIFIABLE and result.evidence == Evidence.PROOF, result.summary
    assert result.joint is True and result.joint_proved
    for _, verdict in result.results:
        cell = verdict.cell(2)
        assert cell.rbar == 4 and cell.proved, verdict.summary
        assert cell.witness is not None and cell.witness.order == 3  # the exact solution one order below
        assert cell.exponents == {"beta1_1": 4, "a_1": 2, "b": 4, "nu": 2}  # d = 1: one slope, one a


@pytest.mark.slow  # about 60 s at load 0.5
def test_gaussian_moe_three_atoms_exact_solution_at_5_and_rbar3_6():
    result = check_declaration(read_example("softmax-gaussian-moe"), max_order=6, max_cell=3)
    for _, verdict in result.results:
        cell = verdict.cell(3)
        assert cell.witness is not None and cell.witness.order == 5 and cell.witness.proved, verdict.summary
        assert cell.rbar == 6, verdict.summary  # absence at r = 6: proved, or the search's labelled evidence
        if not cell.proved:
            assert verdict.evidence == Evidence.NUMERIC and "r̄(3) = 6 (evidence)" in verdict.summary
    assert result.verdict == Verdict.IDENTIFIABLE, result.summary


@pytest.mark.slow  # about 25 s for the three at load 0.9
@pytest.mark.parametrize("name", ["deepseek-gelu", "deepseek-sigmoid", "deepseek-tanh"])
def test_strongly_identifiable_experts_take_exponent_2_at_every_cell_size(name):
    result = check_declaration(read_example(name), max_order=2, max_cell=4)
    for part, verdict in result.results:
        assert verdict.verdict == Verdict.IDENTIFIABLE and verdict.exact_fitted.identifiable, (part, verdict.summary)
        for m in (2, 3, 4):
            cell = verdict.cell(m)
            assert cell.rbar == 2 and cell.proved, (part, m, verdict.summary)
            assert set(cell.exponents.values()) == {2}, (part, m, cell.exponents)


def test_mha_is_not_identifiable_at_any_order_tried_through_the_pde():
    result = check_declaration(read_example("mha"))  # r ≤ 4, m ≤ 2
    assert result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF, result.summary
    # the PDE ties a first derivative to F: the failure bites at order 1, in exact-fitted cells
    assert result.to_dict()["bites"] == {"order": 1, "cells": "exact-fitted"} and result.to_dict()["unfinished"] == []
    for _, verdict in result.results:
        assert verdict.verdict == Verdict.NOT_IDENTIFIABLE and not verdict.exact_fitted.identifiable
        assert verdict.to_dict()["bites"] == {"order": 1, "cells": "exact-fitted"}
        assert "bites in exact-fitted cells" in verdict.summary and EULER in verdict.summary, verdict.summary
        assert all(c.witness is not None and c.witness.order == 4 for c in verdict.cells if c.m == 1)


@pytest.mark.slow  # about 10 s at load 1.5
def test_exp_in_setting1_is_independent_at_order_2_with_recombination_at_k_star_plus_2():
    exp = {"phi": "exp(z)"}
    result = check_declaration(read_example("setting1", exp), max_order=2)
    assert result.verdict == Verdict.IDENTIFIABLE and result.evidence == Evidence.PROOF, result.summary
    assert result.joint is True and result.joint_proved
    assert result.recombinations and not any(r.local for r in result.recombinations)  # K = K* + 1: reported
    text = example_path("setting1").read_text(encoding="utf-8")
    assert text.count("fitted = 6") == 1
    wide = check_declaration(parse_declaration(text.replace("fitted = 6", "fitted = 8"), exp), max_order=2)
    assert all(r.local for r in wide.recombinations) and wide.verdict == Verdict.NOT_IDENTIFIABLE, wide.summary
    assert "an ε-path keeps f" in wide.summary
