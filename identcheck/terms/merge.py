"""Merging terms that are the same function up to a constant factor, for every φ.

Every term set here (type-1 :mod:`~identcheck.terms.type1`, type-2 :mod:`~identcheck.terms.type2`, the
softmax-denominator terms of :mod:`~identcheck.conditions.type1_full`) is built from derivatives
of one base function, and some derivatives coincide up to a constant: at d = 2,
∂²ū/∂M12∂a1 = 2·∂²ū/∂M11∂a2. Such a pair is one term of the Taylor expansion, so the later
one is *merged* into the first (``merged = factor · into``).

A term is handed over as a *group* and a *factor*: the group holds what the factor may not
(the φ-dependent part — the φ^(m) it multiplies, its channel), the factor is a sympy expression
in plain symbols. Two terms merge when they are in the same group and

    factor_t / factor_r  simplifies to a nonzero number c    (then t = c·r for every φ).

Candidates are found by a fingerprint — the factor at four random rational points of its
symbols, normalised by its largest value and rounded to 9 decimals; equal fingerprints make a
candidate pair (a hash look-up, so the set is built in linear time) — and every merge is then
confirmed exactly (``cancel``, then ``simplify``): a merge is never assumed from the fingerprint.
(Two proportional factors whose normalised values straddle a rounding boundary would be missed,
kept as two terms — never wrongly merged; the committed term sets are pinned by tests.) A term
whose fingerprint is all zeros is kept as it is (never merged).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import sympy as sp

__all__ = ["Merge", "merge_proportional", "FINGERPRINT_DIGITS"]

#: Decimals a normalised fingerprint is rounded to: equal fingerprints make a candidate pair.
FINGERPRINT_DIGITS = 9
_SAMPLES = 4
_SEED = 20260201


@dataclass(frozen=True, slots=True)
class Merge:
    """``merged = factor · into``, for every φ."""

    merged: str
    into: str
    factor: sp.Rational

    def __str__(self) -> str:
        return f"{self.merged} = {_factor_text(self.factor)}{self.into}"

    def to_dict(self) -> dict:
        return {"merged": self.merged, "into": self.into, "factor": str(self.factor)}


def _factor_text(factor) -> str:
    return "" if factor == 1 else ("−" if factor == -1 else f"{factor}·")


def merge_proportional(
    labels: Sequence[str], groups: Sequence, factors: Sequence[sp.Expr], symbols=None
) -> tuple[list, list, list]:
    """Which terms are kept, and which merge into an earlier one.

    Parameters
    ----------
    labels : sequence of str
        The terms' display labels (for the :class:`Merge` records).
    groups : sequence of hashable
        Only terms of one group may merge.
    factors : sequence of sympy.Expr
        The terms' factors, in plain symbols (no undefined functions).
    symbols : sequence of sympy.Symbol, optional
        The symbols the fingerprint samples, in the order they are drawn (default: the factors'
        free symbols by name). Must include every free symbol of the factors.

    Returns
    -------
    kept : list of int
        The positions of the distinct terms, in order.
    merges : list of Merge
    placement : list of (int, sympy.Rational)
        For every term: (its position in ``kept``, c) with term = c · kept term.
    """
    if symbols is None:
        symbols = sorted(set().union(*(f.free_symbols for f in factors)), key=lambda s: s.name)
    rng = np.random.default_rng(_SEED)
    samples = [
        dict(zip(symbols, (sp.Rational(int(v), 16) for v in rng.integers(-12, 13, len(symbols)))))
        for _ in range(_SAMPLES)
    ]
    kept: list[int] = []
    merges: list[Merge] = []
    placement: list[tuple] = []
    representatives: dict = {}  # (group, fingerprint) → positions in kept
    for position, (label, group, factor) in enumerate(zip(labels, groups, factors)):
        fingerprint = _fingerprint(factor, samples)
        match = None
        for slot in representatives.get((group, fingerprint), ()) if fingerprint is not None else ():
            ratio = _exact_ratio(factor, factors[kept[slot]])
            if ratio is not None:
                match = (slot, ratio)
                break
        if match is not None:
            slot, ratio = match
            merges.append(Merge(label, labels[kept[slot]], ratio))
            placement.append((slot, ratio))
            continue
        if fingerprint is not None:
            representatives.setdefault((group, fingerprint), []).append(len(kept))
        placement.append((len(kept), sp.Integer(1)))
        kept.append(position)
    return kept, merges, placement


def _fingerprint(factor: sp.Expr, samples) -> tuple | None:
    """The factor's values at the sample points over the largest in magnitude, rounded to
    :data:`FINGERPRINT_DIGITS` decimals (None when all are 0)."""
    values = np.array([float(factor.xreplace(point)) for point in samples])
    scale = values[np.argmax(np.abs(values))]
    return tuple(np.round(values / scale, FINGERPRINT_DIGITS)) if scale != 0 else None


def _exact_ratio(factor: sp.Expr, representative: sp.Expr):
    """factor / representative as a nonzero rational when it is a number, else None."""
    ratio = sp.cancel(factor / representative)
    if not ratio.is_number:
        ratio = sp.simplify(ratio)
    if ratio.is_number and ratio != 0:
        return sp.nsimplify(ratio)
    return None
