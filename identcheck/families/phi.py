"""φ's family hypotheses, each proved or refuted exactly with sympy (cached per φ).

zφ'' ≡ 0 (zero second derivative), zφ' = kφ (Euler/homogeneity), φ'' = cφ (heat type),
φ'' = c·z·φ' (Gaussian type), φ(−z) = sφ(z) + q(z) with q a polynomial (symmetry), φ a
polynomial (its degree): read by the type-1 and type-2 families (:mod:`.type1`, :mod:`.type2`),
by the certificates (:mod:`identcheck.families.proofs`) and by the symbolic proofs (:mod:`identcheck.pde`).
A numeric screen at fixed points settles "clearly not" before ``simplify`` runs; every check runs
under the budget of :mod:`identcheck.util.budget`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..parse.activation import Z
from ..util.budget import PROPERTIES_SECONDS, SIMPLIFY_SECONDS, clock, current_pool, run

__all__ = ["PhiProperties", "phi_properties"]


@dataclass(frozen=True, slots=True)
class PhiProperties:
    """The family hypotheses that sympy proved for φ (None where it did not)."""

    zero_second: bool
    euler: sp.Expr | None
    heat: sp.Expr | None
    gaussian: sp.Expr | None
    symmetry: tuple | None  # (s, q)
    degree: int | None
    timed_out: tuple = ()  # the hypotheses whose check ran out of its budget (taken as not holding)


SCREEN_POINTS = (-0.731, -0.113, 0.257, 0.619, 1.333)
CHEAP_SECONDS = 1.0  # the expand tried before simplify
SCREEN_GAP = 1e-9  # relative spread above which sampled values are "clearly" not constant / zero


def _simplify(expr: sp.Expr, name: str, timed_out: list, deadline: float):
    """``sp.simplify(expr)`` under ``SIMPLIFY_SECONDS``, and not past ``deadline``
    (:func:`~identcheck.util.budget.clock`, CPU time; the budget of all of φ's hypotheses together,
    :mod:`budget`); None when it failed or timed out (then ``name`` is appended to ``timed_out``)."""
    seconds = min(SIMPLIFY_SECONDS, deadline - clock())
    if seconds <= 0:
        timed_out.append(name)
        return None
    try:
        value, late = run(sp.simplify, expr, seconds=seconds)
    except Exception:
        return None
    if late:
        timed_out.append(name)
    return value


def _samples(expr: sp.Expr):
    """expr at a few fixed points (30 digits), or None where it cannot be evaluated to numbers
    (or not within ``CHEAP_SECONDS``: evalf of a deep composition's derivatives can be slow)."""
    values, _ = run(_evaluate, expr, seconds=CHEAP_SECONDS)
    return values


def _evaluate(expr: sp.Expr):
    values = []
    for point in SCREEN_POINTS:
        try:
            value = complex(expr.evalf(30, subs={Z: point}))
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if not np.isfinite(value):
            return None
        values.append(value)
    return values


def _clearly_not_constant(expr: sp.Expr) -> bool:
    """The numeric screen before ``simplify``: values that clearly differ settle "not constant"
    (sound up to the 30-digit evaluation; a hypothesis wrongly screened out only costs a family
    name, the relation is still reported)."""
    values = _samples(expr)
    if values is None:
        return False
    scale = max(1.0, max(abs(v) for v in values))
    return max(abs(v - values[0]) for v in values) > SCREEN_GAP * scale


def _clearly_not_zero(expr: sp.Expr) -> bool:
    values = _samples(expr)
    return values is not None and max(abs(v) for v in values) > SCREEN_GAP


def _constant(expr: sp.Expr, name: str, timed_out: list, deadline: float):
    """expr simplified, if it is a constant; else None (numeric screen first)."""
    if _clearly_not_constant(expr):
        return None
    value = _simplify(expr, name, timed_out, deadline)
    if value is None:
        return None
    if value.has(Z) or value.has(sp.nan, sp.zoo) or not value.is_finite:
        return None
    return value


_PROPERTIES: dict = {}  # φ's derivatives → PhiProperties, for the answers that did not time out
_PROPERTIES_CAP = 256
_LATE: dict = {}  # the last answer that timed out, reused only within the same pool (one check)


def phi_properties(derivatives: tuple) -> PhiProperties:
    """Check each family hypothesis for φ exactly (sympy); cached per φ.

    Each ``simplify`` has ``SIMPLIFY_SECONDS``, all together ``PROPERTIES_SECONDS``
    (:mod:`budget`); a hypothesis whose check ran out is taken as not holding (its relations are
    then reported unrecognised, never dropped) and named in ``timed_out``. Such an answer is not
    cached beyond the current check (its :func:`~identcheck.util.budget.pool`): a later check asks sympy again."""
    if derivatives in _PROPERTIES:
        return _PROPERTIES[derivatives]
    late = _LATE.get(derivatives)
    if late is not None and late[0] == current_pool() is not None:  # same check: do not spend it twice
        return late[1]
    properties = _phi_properties(derivatives)
    if properties.timed_out:
        _LATE.clear()
        _LATE[derivatives] = (current_pool(), properties)
        return properties
    if len(_PROPERTIES) >= _PROPERTIES_CAP:
        _PROPERTIES.pop(next(iter(_PROPERTIES)))
    _PROPERTIES[derivatives] = properties
    return properties


def _phi_properties(derivatives: tuple) -> PhiProperties:
    phi, d1, d2 = derivatives
    late: list = []
    deadline = clock() + PROPERTIES_SECONDS
    zero_second = not _clearly_not_zero(d2) and _simplify(d2, "zero second derivative", late, deadline) == 0
    euler = _constant(Z * d1 / phi, "Euler/homogeneity", late, deadline)
    heat = None if zero_second else _constant(d2 / phi, "heat type", late, deadline)
    if heat == 0:
        heat = None
    gaussian = None if zero_second else _constant(d2 / (Z * d1), "Gaussian type", late, deadline)
    if gaussian == 0:
        gaussian = None
    symmetry = None
    for s in (1, -1):
        difference = phi.subs(Z, -Z) - s * phi
        q, _ = run(sp.expand, difference, seconds=CHEAP_SECONDS)  # often enough (odd/even compositions)
        if q is None or not q.is_polynomial(Z):
            q = _simplify(difference, "symmetry", late, deadline)
        if q is not None and q.is_polynomial(Z):
            if symmetry is None or sp.expand(q) == 0:  # prefer q = 0: an odd polynomial is φ(−z) = −φ(z)
                symmetry = (s, sp.expand(q))
            if symmetry[1] == 0:
                break
    degree = sp.degree(phi, Z) if phi.is_polynomial(Z) else None
    return PhiProperties(zero_second, euler, heat, gaussian, symmetry, degree, tuple(dict.fromkeys(late)))
