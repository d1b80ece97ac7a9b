"""Atoms with the same coefficient systems decide them once within a model check
(identcheck/model/shared_decisions.py)."""

import pytest

from identcheck.declaration import read_example
from identcheck.model import shared_decisions as shared
from identcheck.model.decide import TRIVIAL, SystemDecision
from identcheck.model.declared import check_declaration
from identcheck.model.system import CoefficientSystem


class _Counted:
    """decide_system's stand-in: counts its calls, proves nothing unless told to."""

    def __init__(self, proved):
        self.calls, self.proved = [], proved

    def __call__(self, system, seconds):
        self.calls.append(seconds)
        return SystemDecision(system.m, system.order, TRIVIAL, self.proved, "stand-in", (), None, 0.1, ("ran",), 1.0)


def _system(equations):
    return CoefficientSystem(2, 2, ("a", "b"), None, (), (), (), (), tuple(equations))


@pytest.mark.parametrize("proved", [True, False])
def test_the_same_equations_are_decided_once_inside_the_block_and_a_smaller_budget_is_not_reused(monkeypatch, proved):
    import sympy as sp

    counted = _Counted(proved)
    monkeypatch.setattr(shared, "decide_system", counted)
    p, d = sp.symbols("p d")
    one, other = _system([p * d**2]), _system([p * d**2 + d])
    assert shared.decide(one, 5.0).tried == ("ran",)  # outside the block: decided every time
    assert shared.decide(one, 5.0).tried == ("ran",) and len(counted.calls) == 2
    with shared.shared_decisions():
        first = shared.decide(one, 5.0)
        again = shared.decide(_system([p * d**2]), 5.0)  # equal equations, another object
        assert again.tried == ("ran", shared.REUSED) and again.status == first.status and again.seconds == 0.0
        assert len(counted.calls) == 3
        shared.decide(other, 5.0)  # other equations: decided
        assert len(counted.calls) == 4
        more = shared.decide(one, 10.0)  # more time than the first had: reused only if it was a proof
        assert (more.tried[-1] == shared.REUSED) is proved
        assert len(counted.calls) == (4 if proved else 5)
    shared.decide(one, 5.0)
    assert len(counted.calls) == (5 if proved else 6)  # the block's decisions are gone after it


def test_the_gaussian_moes_two_atoms_share_every_system_and_their_verdicts():
    """softmax-gaussian-moe: both true atoms have the same relations with constant coefficients, so every
    system of the second is the first's: reused, with the same outcomes (r̄(2) = 4, exponents alike)."""
    result = check_declaration(read_example("softmax-gaussian-moe"), max_order=4, max_cell=2)
    (_, first), (_, second) = result.results
    assert [d.status for c in first.cells for d in c.decisions] == [d.status for c in second.cells for d in c.decisions]
    reused = [d.tried[-1] == shared.REUSED for c in second.cells for d in c.decisions]
    assert reused and all(reused)
    # the first atom's own order-2 pass decided orders ≤ 2 (its full-order pass reuses them); above, its own
    assert not any(d.tried[-1] == shared.REUSED for c in first.cells for d in c.decisions if d.order > 2)
    assert second.cell(2).rbar == first.cell(2).rbar == 4 and second.cell(2).exponents == first.cell(2).exponents
