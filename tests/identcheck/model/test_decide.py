"""Decisions of coefficient systems: each verified by a second method (the closed form, exact substitution)."""

import pytest
import sympy as sp

from identcheck.model.basis import build_basis
from identcheck.model.decide import INCONCLUSIVE, NON_TRIVIAL, TRIVIAL, decide_system
from identcheck.model.examples import location_scale_gaussian, softmax_gaussian_moe
from identcheck.model.grading import find_grading
from identcheck.model.system import coefficient_system

from .test_system import ho_nguyen


@pytest.fixture(scope="module")
def gaussian():
    basis = build_basis(location_scale_gaussian(), 6)
    return basis, find_grading(basis)


def _closed_form_holds(solution, m, r):
    p = [solution[f"p_{i}"] for i in range(1, m + 1)]
    a = [solution[f"dmu_{i}"] for i in range(1, m + 1)]
    b = [solution[f"dnu_{i}"] for i in range(1, m + 1)]
    return all(ho_nguyen(p, a, b, alpha) == 0 for alpha in range(1, r + 1)) and all(x > 0 for x in p)


@pytest.mark.parametrize("m, r", [(2, 3), (3, 5)])
def test_exact_solution_below_rbar(gaussian, m, r):
    """r̄(2) = 4, r̄(3) = 6: an exact solution one order below, checked in Ho & Nguyen's closed form."""
    decision = decide_system(coefficient_system(*gaussian, m, r))
    assert decision.status == NON_TRIVIAL and decision.proved and decision.method == "exact solution"
    assert _closed_form_holds(decision.solution, m, r)
    assert any(v != 0 for k, v in decision.solution.items() if k.startswith("d"))
    assert not _closed_form_holds(decision.solution, m, r + 2)  # not a solution of the whole expansion


def test_rbar_two_is_four_proved(gaussian):
    decision = decide_system(coefficient_system(*gaussian, 2, 4))
    assert decision.status == TRIVIAL and decision.proved
    assert set(decision.forced) == {"mu", "nu"}
    assert all("no positive real root" in line or "no complex solution" in line for line in decision.tried)


def test_sum_of_squares_for_a_strongly_identifiable_atom():
    """tanh(η1 x) under a softmax gate: every second derivative a basis term, ½ Σ p_i ‖Δθ_i‖² = 0."""
    basis = build_basis(softmax_gaussian_moe("tanh"), 2)
    assert not basis.relations
    for m in (2, 4):
        decision = decide_system(coefficient_system(basis, find_grading(basis), m, 2))
        assert (decision.status, decision.proved, decision.method) == (TRIVIAL, True, "sum of squares")


def test_moe_square_forces_the_gate_slope():
    """Σ_i p_i Δβ1_i²/2 = 0 is the equation of x²·F: β1 is forced at order 2 for every m."""
    basis = build_basis(softmax_gaussian_moe("linear"), 2)
    decision = decide_system(coefficient_system(basis, find_grading(basis), 3, 2))
    assert decision.status == NON_TRIVIAL and decision.proved and decision.forced == ("beta1",)


def test_an_exhausted_budget_is_labelled(gaussian):
    decision = decide_system(coefficient_system(*gaussian, 3, 6), seconds=0.5)
    assert not decision.proved and decision.status in (INCONCLUSIVE, TRIVIAL)
    assert decision.status == INCONCLUSIVE


@pytest.mark.slow
def test_rbar_three_is_six_evidence(gaussian):
    """Absence at r = 6 for m = 3: the search's evidence only (the Gröbner bases do not finish)."""
    decision = decide_system(coefficient_system(*gaussian, 3, 6))
    assert decision.status == INCONCLUSIVE and not decision.proved and decision.residual > 1e-4


def test_a_solution_is_verified_exactly(gaussian):
    """The decision's solution substituted into the system's own equations gives exactly 0."""
    system = coefficient_system(*gaussian, 3, 5)
    decision = decide_system(system)
    values = {s: decision.solution[s.name] for s in list(system.weights) + [d for ds in system.deltas for d in ds]}
    assert all(sp.expand(e.xreplace(values)) == 0 for e in system.equations)
