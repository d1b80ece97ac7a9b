"""What a verdict may claim: no r̄ from a decision that ran out of time, no proof from evidence.

Each test is a reproducer of a claim the check once made without having shown it.
"""

import dataclasses
import time
from types import SimpleNamespace

import sympy as sp

from identcheck.declaration import read_example
from identcheck.evidence import Evidence, Verdict
from identcheck.model import check_atom
from identcheck.model.atom import atom_function, gaussian_density
from identcheck.model.basis import build_basis
from identcheck.model.decide import INCONCLUSIVE, decide_system
from identcheck.model.declared import _settled, check_declaration
from identcheck.model.examples import location_scale_gaussian
from identcheck.model.grading import find_grading
from identcheck.model.system import coefficient_system
from identcheck.model.verdict import _cell, _summary


def test_a_decision_out_of_time_gives_no_rbar():
    basis = build_basis(location_scale_gaussian(), 4)
    grading = find_grading(basis)
    cell = _cell(basis, grading, 2, 4, time.monotonic() + 0.01)
    assert cell.rbar is None, cell.decisions
    assert not any("‖E‖ = inf" in line for d in cell.decisions for line in d.tried)


def test_a_search_that_did_not_run_is_no_evidence():
    basis = build_basis(location_scale_gaussian(), 4)
    decision = decide_system(coefficient_system(basis, find_grading(basis), 2, 2), seconds=0.0)
    assert decision.status == INCONCLUSIVE and decision.residual is None, decision
    assert all(line.endswith("search not run (no time)") for line in decision.tried), decision.tried


def test_a_short_budget_is_inconclusive_or_right():
    for seconds in (0.3, 0.9):
        verdict = check_atom(location_scale_gaussian(), max_order=4, max_cell=3, seconds=seconds)
        for c in verdict.cells:
            assert c.rbar in (None, {2: 4, 3: 6}[c.m]) or (c.rbar > 4), (seconds, verdict.summary)
        if verdict.verdict == Verdict.IDENTIFIABLE:
            assert verdict.evidence == Evidence.PROOF or "evidence" in verdict.summary


def test_a_case_with_no_unknowns_left_is_decided_exactly():
    """N(y | μ³, ν): μ ↦ μ³ is one-to-one but its first derivative vanishes at μ* = 0, so the
    exact-fitted test fails at first order and r̄(1) = 3; at order 3 the case Δμ = 1 has every
    other move forced, and its equations are nonzero numbers."""
    y, mu, nu = sp.Symbol("y", real=True), sp.Symbol("mu", real=True), sp.Symbol("nu", positive=True)
    atom = atom_function(gaussian_density(y, mu**3, nu), [y], [mu, nu], {"mu": 0, "nu": 1}, box={"y": (-6, 6)})
    verdict = check_atom(atom, 3, 1)
    assert verdict.exact_fitted.identifiable is False
    assert verdict.cell(1).rbar == 3, verdict.summary
    assert "exact-fitted test undecided" not in verdict.summary
    assert verdict.verdict == Verdict.IDENTIFIABLE, verdict.summary


def test_the_first_order_shortcut_keeps_only_proved_rbars():
    """check_declaration skips the full order only for an atom whose r̄(m) are all proved."""
    evidence = SimpleNamespace(verdict=Verdict.IDENTIFIABLE, cells=(SimpleNamespace(rbar=2, proved=False),))
    proved = SimpleNamespace(verdict=Verdict.IDENTIFIABLE, cells=(SimpleNamespace(rbar=2, proved=True),))
    assert not _settled(evidence) and _settled(proved)


def _ungraded_atom():
    """F = eˣ·eᵗ + cos(x)·e⁻ᵗ + x²: ∂³F/∂t³ = ∂F/∂t for every t, a relation tying order 3 to order
    1, so no grading exists and the equations are complete only as far as orders were computed."""
    x, t = sp.Symbol("x", real=True), sp.Symbol("t", real=True)
    expr = sp.exp(x) * sp.exp(t) + sp.cos(x) * sp.exp(-t) + x**2
    return atom_function(expr, [x], [t], {"t": 0}, box={"x": (-1, 1)})


def test_without_a_grading_no_rbar_is_proved():
    for order in (3, 4):
        verdict = check_atom(_ungraded_atom(), max_order=order, max_cell=2)
        assert not verdict.grading.graded
        assert verdict.evidence != Evidence.PROOF, (order, verdict.summary)
        assert all(not c.proved for c in verdict.cells if c.rbar is not None), (order, verdict.summary)
        assert "no grading" in verdict.summary, verdict.summary


def test_the_basis_independence_is_proved_in_ball_arithmetic():
    """Condition (i): a float64 SVD is evidence; the proof is the interval certificate."""
    basis = build_basis(location_scale_gaussian(), 4)
    assert basis.independent and basis.independence.proof is not None and basis.independence.proof.proved


def test_an_independence_without_proof_makes_the_verdict_numeric():
    verdict = check_atom(location_scale_gaussian(), max_order=4, max_cell=2)
    assert verdict.evidence == Evidence.PROOF, verdict.summary
    unproved = dataclasses.replace(
        verdict.basis, independence=dataclasses.replace(verdict.basis.independence, proof=None)
    )
    _, evidence, summary = _summary(unproved, verdict.exact_fitted, verdict.cells, 4)
    assert evidence == Evidence.NUMERIC and "not proved" in summary, summary


def test_the_joint_independence_is_proved_or_the_model_is_numeric():
    check = check_declaration(read_example("softmax-gaussian-moe"), max_order=1, max_cell=1)
    assert check.verdict == Verdict.IDENTIFIABLE and check.joint_proved, check.summary
    assert check.evidence == Evidence.PROOF and check.to_dict()["joint_proved"] is True
    unproved = dataclasses.replace(check, joint_proved=False)
    assert unproved.verdict == Verdict.IDENTIFIABLE and unproved.evidence == Evidence.NUMERIC
