r"""A basis of the span of the Taylor terms {∂^κ F(θ*) : |κ| ≤ r}, every relation proved.

Order by order k = 1..r, in term order (:mod:`.taylor`):

1. **Derived.** A term ∂^κ F with a parent κ − e_j whose relation holds for every θ (proved with
   constant coefficients, :mod:`.relation`) is rewritten by differentiating that relation:
   ∂^{κ'} F = Σ c_β ∂^β F ∀θ gives ∂^{κ'+e_j} F = Σ c_β ∂^{β+e_j} F, each β + e_j earlier than κ
   in term order (a monomial order), already written in the basis. No numeric test.
2. **Candidates.** The other terms of order k are tested against the basis so far on a
   collocation matrix A[i, c] = column_c(v_i) at n = 3·T + 20 seeded random points of the box,
   rows equilibrated by powers of two (a row scaling changes no column relation), with
   identcheck's rank rule (:func:`~identcheck.rank.rule.decide_rank`: scaled SVD, then the arb
   precision ladder for borderline directions). A dependence is read in the canonical echelon
   basis in term order (:func:`~identcheck.families.echelon.echelon_basis`): each dependent
   candidate written through earlier basis terms, its coefficients read as exact rationals and
   the relation proved — first for every θ (constant coefficients), else at θ*.
3. The independent candidates join the basis.

Every ∂^κ F(θ*) is then Σ_b e_{κ,b}·b over basis terms b, so a cell's expansion is
Σ_b C_b·b with C_b = Δp·[b = F] + Σ_i p_i Σ_κ e_{κ,b} Δθ_i^κ/κ!: a polynomial in the cell's
p_i, Δθ_i and Δp (:mod:`.system`). Condition (i), the basis functions' independence, is the rank
decision on the final basis (``independence``), proved in ball arithmetic by the interval
certificate (:func:`certified`); an independence without ``proof`` is float64 evidence.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import flint
import numpy as np
import sympy as sp

from ..families.echelon import echelon_basis
from ..rank.interval import certify_full_column_rank
from ..rank.rule import RankDecision, decide_rank
from ..terms.compile import arb_precision
from ..util.budget import run
from .atom import AtomFunction
from .relation import AT_ATOM, EVERY_THETA, ModelRelation, derivative_label, name_relation, prove_relation, rational
from .taylor import Derivatives, OutOfTime, derivatives_of, multi_indices, numpy_function

__all__ = ["POINTS_EXTRA", "POINTS_FACTOR", "SEED", "TINY_ROW", "SpanBasis", "build_basis", "sample_points"]

SEED = 20260
POINTS_FACTOR = 3
POINTS_EXTRA = 20
ROUNDS = 8  # draws of points before a matrix with too few usable rows is taken as it is
EXACT_CHECKS = 4  # rational points beyond the unknowns when a relation's coefficients are solved exactly
ZERO_COLUMN = 1e-12  # a candidate column this small against the matrix's largest entry is proposed as ∂^κF = 0
TINY_ROW = 1e-250  # a row whose entries are all below this carries nothing (and its power-of-two scale would overflow)


@dataclass(frozen=True, slots=True)
class SpanBasis:
    """The basis of the span of one atom's Taylor terms to ``order``.

    Attributes
    ----------
    atom : AtomFunction
    order : int
        r: every derivative of order ≤ r is written in the basis.
    basis : tuple of tuple
        The basis terms' multi-indices, in term order (F first).
    expressions : dict
        κ → ((basis position, exact coefficient), ...): ∂^κ F(θ*) in the basis.
    relations : tuple of ModelRelation
        The relations found numerically and proved (or not: ``proved``), in term order.
    derived : int
        How many terms were rewritten by differentiating a relation that holds for every θ.
    independence : RankDecision
        Condition (i) on the final basis.
    decisions : tuple of (int, RankDecision)
        The rank decision of each order's candidates.
    seconds : float
    requested : int
        The order asked for (``order`` is less when a deadline cut the build).
    """

    atom: AtomFunction
    order: int
    basis: tuple
    expressions: dict = field(repr=False)
    relations: tuple
    derived: int
    independence: RankDecision | None = field(repr=False)
    decisions: tuple = field(repr=False)
    seconds: float = 0.0
    requested: int = 0

    @property
    def complete(self) -> bool:
        """Whether every order asked for was built (no deadline cut it)."""
        return self.order >= self.requested

    @property
    def all_proved(self) -> bool:
        return all(r.proved for r in self.relations)

    @property
    def independent(self) -> bool | None:
        return None if self.independence is None else self.independence.independent

    def contributors(self, position: int) -> tuple:
        """The multi-indices κ whose expression has basis term ``position`` (e_{κ,b} ≠ 0)."""
        return tuple(k for k, expr in self.expressions.items() if any(b == position for b, _ in expr))

    def to_dict(self) -> dict:
        return {
            "order": self.order,
            "basis": [derivative_label(k, self.atom.labels) for k in self.basis],
            "relations": [r.to_dict() for r in self.relations],
            "derived": self.derived,
            "requested": self.requested,
            "independent": self.independent,
            "seconds": round(self.seconds, 3),
        }


CERTIFY_SECONDS = 10.0  # CPU seconds, at most, for the interval proof of condition (i)


def build_basis(
    atom: AtomFunction, order: int, derivatives: Derivatives | None = None, deadline: float | None = None
) -> SpanBasis:
    """The :class:`SpanBasis` of ``atom`` to ``order`` (module docstring).

    With a ``deadline`` (a ``time.monotonic()`` value) the orders are built while time is left: an
    order not finished by then is dropped, and the basis's ``order`` is the last complete one
    (``requested`` keeps what was asked). The first order is built whatever the deadline: without it
    nothing can be said, and what has no time left after it is inconclusive."""
    start = time.perf_counter()
    d = derivatives or derivatives_of(atom, deadline)
    q = len(atom.params)
    zero = (0,) * q
    basis = [zero]
    expressions: dict = {zero: ((0, sp.Integer(1)),)}
    identity: dict = {}  # κ → ((β, c), ...) holding for every θ, in raw derivatives
    relations: list = []
    decisions: list = []
    derived = 0
    rng = np.random.default_rng(SEED)
    built = 0
    for k in range(1, order + 1):
        terms = multi_indices(q, k, lowest=k)
        candidates = [kappa for kappa in terms if not _has_identity_parent(kappa, identity)]
        held, d.deadline = d.deadline, (None if k == 1 else d.deadline)  # the first order is always built
        try:
            decision, found = _test(d, basis, candidates, rng) if candidates else (None, [])
        except OutOfTime:
            break
        finally:
            d.deadline = held
        built = k
        if decision is not None:
            decisions.append((k, decision))
        dependent = {kappa for kappa, _ in found}
        for kappa in candidates:
            if kappa not in dependent:
                basis.append(kappa)
                expressions[kappa] = ((len(basis) - 1, sp.Integer(1)),)
        position = {b: i for i, b in enumerate(basis)}
        for kappa, combination in found:
            relation = _prove(d, kappa, combination, atom.labels)
            relations.append(relation)
            expressions[kappa] = tuple((position[b], c) for b, c in combination)
            if relation.holds == EVERY_THETA and relation.proved:
                identity[kappa] = combination
        for kappa in terms:  # in term order: a derived term's pieces come earlier (or are this order's candidates)
            if kappa not in expressions:
                expressions[kappa], identity[kappa] = _derive(kappa, identity, expressions)
                derived += 1
    d.deadline = None  # the final decision runs on columns already compiled
    independence = _final_independence(d, basis, rng)
    return SpanBasis(
        atom,
        built,
        tuple(basis),
        expressions,
        tuple(relations),
        derived,
        independence,
        tuple(decisions),
        time.perf_counter() - start,
        order,
    )


def _has_identity_parent(kappa, identity) -> bool:
    return any(k and kappa[:j] + (k - 1,) + kappa[j + 1 :] in identity for j, k in enumerate(kappa))


def _derive(kappa, identity, expressions):
    """(expression, identity) of κ from a parent's every-θ relation, or None when no parent has one."""
    for j, k in enumerate(kappa):
        if not k:
            continue
        parent = kappa[:j] + (k - 1,) + kappa[j + 1 :]
        if parent not in identity:
            continue
        raw = []
        total: dict = {}
        for beta, c in identity[parent]:
            child = beta[:j] + (beta[j] + 1,) + beta[j + 1 :]
            raw.append((child, c))
            for b, e in expressions[child]:
                total[b] = total.get(b, 0) + c * e
        expression = tuple((b, v) for b, v in sorted(total.items()) if v != 0)
        # the raw relation, differentiated, holds for every θ: it is what κ's own children differentiate
        return expression, tuple(raw)
    return None


def sample_points(atom: AtomFunction, count: int, rng) -> np.ndarray:
    """``count`` seeded points of the atom's box, the tube's variable around its centre (shape (count, len(v)))."""
    lows = np.array([float(lo) for lo, _ in atom.box])
    highs = np.array([float(hi) for _, hi in atom.box])
    points = lows + (highs - lows) * rng.random((count, len(atom.box)))
    if atom.tube is not None:
        index, centre, width = atom.tube
        others = [i for i in range(len(atom.variables)) if i != index]
        f = numpy_function(tuple(atom.variables[i] for i in others), centre)
        values = np.broadcast_to(np.asarray(f(*[points[:, i] for i in others]), dtype=float), (count,))
        points[:, index] = values + float(width) * rng.uniform(-1, 1, count)
    return points


def _matrix(d: Derivatives, kappas, rng):
    """(float64 matrix, points, power-of-two row scales) for the columns ``kappas``: at least
    POINTS_FACTOR·T + POINTS_EXTRA rows whose entries are finite and not all negligible."""
    wanted = POINTS_FACTOR * len(kappas) + POINTS_EXTRA
    points, raw = np.zeros((0, len(d.atom.variables))), np.zeros((0, len(kappas)))
    for _ in range(ROUNDS):
        more = sample_points(d.atom, wanted, rng)
        values = d.evaluate(kappas, more)
        good = np.all(np.isfinite(values), axis=1) & (np.max(np.abs(values), axis=1) > TINY_ROW)
        points, raw = np.concatenate([points, more[good]]), np.concatenate([raw, values[good]])
        if len(points) >= wanted:
            break
    points, raw = points[:wanted], raw[:wanted]
    scales = 2.0 ** -np.ceil(np.log2(np.max(np.abs(raw), axis=1)))
    return raw * scales[:, None], points, scales


def _high_precision(d: Derivatives, kappas, points, scales):
    def evaluate(digits: int):
        with arb_precision(digits):
            rows = d.evaluate_arb(kappas, points)
            return flint.arb_mat([[v * float(s) for v in row] for row, s in zip(rows, scales)])

    return evaluate


def _test(d: Derivatives, basis, candidates, rng):
    """The rank decision on basis + candidates and the dependent candidates' combinations. A
    candidate whose column vanishes on the sample (below ZERO_COLUMN × the matrix's largest entry)
    is proposed as the relation ∂^κF = 0 (proved or not by :func:`_prove`) and the rest tested
    without it: a zero column has no direction for the rank rule to scale."""
    columns = list(basis) + list(candidates)
    matrix, points, scales = _matrix(d, columns, rng)
    sizes = np.max(np.abs(matrix), axis=0)
    vanishing = [columns[j] for j in range(len(basis), len(columns)) if sizes[j] <= ZERO_COLUMN * sizes.max()]
    if vanishing:
        rest = [kappa for kappa in candidates if kappa not in vanishing]
        decision, found = _test(d, basis, rest, rng) if rest else (None, [])
        return decision, [(kappa, ()) for kappa in vanishing] + found
    decision = decide_rank(matrix, high_precision=_high_precision(d, columns, points, scales))
    if decision.independent is not False:
        return decision, []
    echelon = echelon_basis(decision.null_space)
    if echelon is None:
        return decision, []
    pivots, vectors = echelon
    found = []
    for pivot, vector in zip(pivots, vectors):
        if pivot < len(basis):
            continue  # the basis is independent: a pivot there is a numerical artefact
        combination = []
        for j, value in enumerate(vector):
            if j == pivot or j in pivots or abs(value) < 1e-12:
                continue
            exact = rational(-float(value))
            combination.append((columns[j], exact if exact is not None else sp.Float(-value, 15)))
        if any(not isinstance(c, sp.Rational) for _, c in combination):
            combination = _exact_combination(d, columns[pivot], [b for b, _ in combination]) or combination
        found.append((columns[pivot], tuple(combination)))
    return decision, found


def _exact_combination(d: Derivatives, kappa, support) -> list | None:
    """The relation's coefficients solved exactly when float64 could not read them as small
    rationals (coefficients depending on θ*, such as (4/7)^k): G_κ = Σ_β c_β G_β at rational
    points of the box, in rational arithmetic — possible when the ratios G are rational functions
    of v there; None otherwise (the float reading stays, unproved)."""
    rng = np.random.default_rng(SEED + 2)
    count = len(support) + EXACT_CHECKS
    rows, right = [], []
    for point in sample_points(d.atom, count, rng):
        at = {v: sp.Rational(round(float(x) * 64), 64) for v, x in zip(d.atom.variables, point)}
        values = [d.ratio_at_truth(b).xreplace(at) for b in support]
        target = d.ratio_at_truth(kappa).xreplace(at)
        if not all(isinstance(v, sp.Rational) for v in values + [target]):
            return None
        rows.append(values)
        right.append(target)
    matrix, vector = sp.Matrix(rows), sp.Matrix(right)
    try:
        solution = (matrix.T * matrix).LUsolve(matrix.T * vector)
    except (ValueError, ZeroDivisionError):
        return None
    if matrix * solution != vector:
        return None
    return [(b, c) for b, c in zip(support, solution) if c != 0]


def _prove(d: Derivatives, kappa, combination, labels) -> ModelRelation:
    family = name_relation(kappa, combination)
    exact = all(isinstance(c, sp.Rational) for _, c in combination)
    if not exact:
        return ModelRelation(kappa, combination, AT_ATOM, False, family, labels)
    general = d.difference(kappa, combination, at_truth=False)
    symbols = sorted(general.free_symbols, key=str)
    outcome = prove_relation(general, symbols)
    if outcome:
        return ModelRelation(kappa, combination, EVERY_THETA, True, family, labels)
    at_atom = d.difference(kappa, combination, at_truth=True)
    outcome = prove_relation(at_atom, sorted(at_atom.free_symbols, key=str))
    return ModelRelation(kappa, combination, AT_ATOM, bool(outcome), family, labels, outcome.timed_out)


def exact_rows(columns, points, scales):
    """``rows(indices, digits)`` for the rank rule's proof: those rows of the equilibrated matrix as
    a ``flint.arb_mat`` of balls holding the exact values (the points are exact floats, the scales
    powers of two). ``columns``: (Derivatives, multi-indices) pairs, side by side."""

    def rows(indices, digits: int):
        chosen = points[list(indices)]
        with arb_precision(digits):
            blocks = [d.evaluate_arb(kappas, chosen) for d, kappas in columns]
            values: list[list] = [sum((block[r] for block in blocks), []) for r in range(len(chosen))]
            return flint.arb_mat([[v * float(scales[i]) for v in row] for i, row in zip(indices, values)])

    return rows


def certified(decision: RankDecision, matrix: np.ndarray, rows) -> RankDecision:
    """``decision`` with the interval proof of its independence (:mod:`identcheck.rank.interval`:
    an approximate inverse of a square minor of the exact values, in ball arithmetic) when it says
    independent without one, within CERTIFY_SECONDS of CPU time; unchanged when that fails. A
    float64 independence without ``proof`` is evidence, and the verdicts say so."""
    if decision.independent is not True or decision.proof is not None:
        return decision
    proof, _ = run(certify_full_column_rank, matrix, rows, decision.smallest_singular_value, seconds=CERTIFY_SECONDS)
    return replace(decision, proof=proof) if proof is not None and proof.proved else decision


def _final_independence(d: Derivatives, basis, rng) -> RankDecision:
    matrix, points, scales = _matrix(d, basis, rng)
    rows = exact_rows([(d, basis)], points, scales)
    decision = decide_rank(matrix, high_precision=_high_precision(d, basis, points, scales), rows=rows)
    return certified(decision, matrix, rows)
