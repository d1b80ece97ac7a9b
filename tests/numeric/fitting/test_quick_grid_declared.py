"""The quick Figure-1 grid fitted by the shipped declarations and by the hand-written models.

Every point of the quick grid (numeric.experiments.sweep.QUICK: the three models, K = 3, n = 2000
… 16000, 3 repetitions, each with the grid's own seed, so the same data and start) is fitted by
``fit(code="declared")`` — what ``numeric fit`` and a sweep compute with — and by
``fit(code="hand-written")``. The verdict-bearing fields of the two records agree: the final
objective (training MSE) to 1e-9 relative; the losses (Voronoi, regression L², the function-cell
and measure losses) and the per-cell errors to 1e-6 relative; the cell counts, the function
cells' assignment, ``converged`` and the number of parameters on a bound (the box flag) exactly.
"""

import math

import numpy as np
import pytest

from numeric.experiments.sweep import QUICK, Grid
from numeric.fitting.attention_fit import fit
from numeric.losses.attention_cells import cell_errors, function_assignment
from numeric.losses.attention_voronoi import voronoi_loss
from numeric.losses.measure import measure_loss
from numeric.model.attention_truth import load_truth

OBJECTIVE, LOSS = 1e-9, 1e-6
CELL_ERRORS = ("exact_weight", "exact_param", "over_weight", "over_param")

GRID = Grid(Ks=QUICK["Ks"], sizes=QUICK["sizes"], reps=QUICK["reps"])


def _close(declared: float, hand: float, relative: float) -> bool:
    if math.isnan(hand):
        return math.isnan(declared)
    return abs(declared - hand) <= relative * max(abs(hand), 1e-300)


def _verdicts(result, truth) -> tuple[dict, dict, dict]:
    """(objective, losses and cell errors, exact fields) of one fit."""
    fitted, P = result.params, truth.params
    cells = cell_errors(fitted, P)
    assignment = function_assignment(truth.model(result.model), fitted, P)
    losses = {
        "voronoi_loss": result.voronoi_loss,
        "regression_l2": result.regression_l2,
        "function_cells": voronoi_loss(fitted, P, result.loss_kind, assignment=assignment),
        "measure": measure_loss(fitted, P) if result.model != "mha" else math.nan,
        **{f"cell.{name}": getattr(cells, name) for name in CELL_ERRORS},
    }
    exact = {
        "converged": result.converged,
        "active_bounds": result.active_bounds,
        "cells": (cells.n_exact, cells.n_over, cells.n_empty),
        "assignment": assignment,
    }
    return {"mse": result.mse}, losses, exact


@pytest.mark.slow
def test_the_quick_grid_s_records_are_the_hand_written_ones():
    truth = load_truth()
    compared = 0
    for model, K, n, rep in GRID.points():
        seed = GRID.fit_seed(model, K, n, rep)
        declared = _verdicts(fit(model, K, n, seed=seed, truth=truth, code="declared"), truth)
        hand = _verdicts(fit(model, K, n, seed=seed, truth=truth, code="hand-written"), truth)
        where = f"{model} K={K} n={n} rep={rep}"
        assert _close(declared[0]["mse"], hand[0]["mse"], OBJECTIVE), (where, declared[0], hand[0])
        for name, value in hand[1].items():
            assert _close(declared[1][name], value, LOSS), (where, name, declared[1][name], value)
        assert declared[2] == hand[2], where
        compared += 1
    assert compared == len(GRID.models) * len(QUICK["Ks"]) * len(QUICK["sizes"]) * QUICK["reps"]


def test_the_comparison_sees_a_changed_loss():
    """The tolerance check of the grid test fails on a loss moved by 1e-5 relative, and on a NaN."""
    assert _close(1.0 + 1e-7, 1.0, LOSS)
    assert not _close(1.0 + 1e-5, 1.0, LOSS)
    assert not _close(math.nan, 1.0, LOSS)
    assert _close(math.nan, math.nan, LOSS)
    assert not _close(float(np.float64(1.0) + 2e-9), 1.0, OBJECTIVE)
