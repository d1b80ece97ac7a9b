r"""One decision per coefficient system within a model check: atoms with the same system share it.

A coefficient system (:mod:`.system`) is a set of polynomial equations in the cell's weights p_i and
moves Δθ_i; what :func:`~identcheck.model.decide.decide_system` finds — an exact non-trivial
solution, a proof of absence, or the search's evidence — is a statement about those equations
alone. Two atoms whose bases carry the same relations with the same constant coefficients (the
true atoms of a Gaussian mixture of linear experts: the heat relation and x·∂F/∂b = ∂F/∂a hold
for every θ) have literally the same system for every (m, r), and deciding it twice costs the
second atom the same seconds for the same answer (the three-atom cells at order 6 of
``softmax-gaussian-moe``: about 20 s a case).

Inside :func:`shared_decisions` (one model check: :func:`~identcheck.model.declared.check_declaration`)
:func:`decide` keys each system by its order, cell size, parameter labels and the exact equations
(``sympy.srepr``) and returns a decision already reached for the same key when it is a proof, or
when it had at least the seconds asked for now (a decision cut by a smaller budget is decided
again); the reused decision says so in its ``tried``. Outside it, :func:`decide` is
:func:`~identcheck.model.decide.decide_system`.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace

import sympy as sp

from .decide import DECIDE_SECONDS, SystemDecision, decide_system
from .system import CoefficientSystem

__all__ = ["REUSED", "decide", "shared_decisions"]

REUSED = "the same equations as an earlier atom's system: its decision reused"
_decided: ContextVar[dict | None] = ContextVar("decided", default=None)


@contextmanager
def shared_decisions():
    """Share decisions among the systems decided inside the block (module docstring)."""
    token = _decided.set({})
    try:
        yield
    finally:
        _decided.reset(token)


def decide(system: CoefficientSystem, seconds: float = DECIDE_SECONDS) -> SystemDecision:
    """:func:`~identcheck.model.decide.decide_system`, or the decision of the same equations already
    reached inside :func:`shared_decisions` (a proof, or with at least ``seconds``)."""
    cache = _decided.get()
    if cache is None:
        return decide_system(system, seconds=seconds)
    key = (system.m, system.order, system.labels, tuple(sp.srepr(e) for e in system.equations))
    known = cache.get(key)
    if known is not None and (known[0].proved or known[1] >= seconds):
        return replace(known[0], tried=known[0].tried + (REUSED,), seconds=0.0)
    decision = decide_system(system, seconds=seconds)
    cache[key] = (decision, seconds)
    return decision
