r"""Condition (i) across atoms: the bases of all true atoms together, linearly independent.

The expansion of f_G − f_{G*} sums the cells of every true atom θ*_1 … θ*_k (of every part), so
the coefficients of each cell can be read off only if the union of the cells' bases,

    { b(v; θ*_j) : b in the basis of atom j, j = 1..k },

is linearly independent (with, for a softmax part, its denominator's terms: :mod:`.denominator`).
The per-atom bases are each independent (:mod:`.basis`); this decides
the union with the same rank rule (:func:`~identcheck.rank.rule.decide_rank`), on a collocation
matrix whose points are drawn in equal shares from every atom's sampling region (its box, or its
tube), rows equilibrated by powers of two. A
dependence means two atoms' terms coincide (a sign pair of an odd expert with a constant gate,
equal gate slopes with equal experts): their cells' equations couple, which a per-cell system
does not see. An independence is proved by the interval certificate (:func:`.basis.certified`);
without ``proof`` it is float64 evidence.
"""

from __future__ import annotations

import flint
import numpy as np

from ..rank.rule import RankDecision, decide_rank
from ..terms.compile import arb_precision
from .basis import POINTS_EXTRA, POINTS_FACTOR, SEED, TINY_ROW, SpanBasis, certified, exact_rows, sample_points
from .taylor import derivatives_of

__all__ = ["joint_independence"]


def joint_independence(bases: tuple[SpanBasis, ...], extra: tuple = ()) -> RankDecision:
    """The rank decision on the union of ``bases`` (atoms with the same variables, in order) and
    the ``extra`` columns, ((AtomFunction, multi-indices), …): the derivatives of those functions
    at their truths (the softmax denominator's terms, :mod:`.denominator`), on the same points."""
    variables = bases[0].atom.variables
    names = [v.name for v in variables]
    for atom in [b.atom for b in bases] + [a for a, _ in extra]:
        if [v.name for v in atom.variables] != names:
            raise ValueError("the atoms must share their variables")
    columns = [(derivatives_of(b.atom), b.basis) for b in bases] + [(derivatives_of(a), tuple(k)) for a, k in extra]
    count = sum(len(kappas) for _, kappas in columns)
    rng = np.random.default_rng(SEED + 1)
    share = (POINTS_FACTOR * count + POINTS_EXTRA) // len(bases) + 1
    points = np.concatenate([sample_points(b.atom, share, rng) for b in bases])  # each atom's own region
    matrix = np.concatenate([d.evaluate(kappas, points) for d, kappas in columns], axis=1)
    good = np.all(np.isfinite(matrix), axis=1) & (np.max(np.abs(matrix), axis=1) > TINY_ROW)
    points, matrix = points[good], matrix[good]
    scales = 2.0 ** -np.ceil(np.log2(np.max(np.abs(matrix), axis=1)))

    def high_precision(digits: int):
        with arb_precision(digits):
            blocks = [d.evaluate_arb(kappas, points) for d, kappas in columns]
            rows: list[list] = [sum((block[r] for block in blocks), []) for r in range(len(points))]
            return flint.arb_mat([[v * float(s) for v in row] for row, s in zip(rows, scales)])

    scaled = matrix * scales[:, None]
    rows = exact_rows(columns, points, scales)
    return certified(decide_rank(scaled, high_precision=high_precision, rows=rows), scaled, rows)
