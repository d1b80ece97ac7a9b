"""Step 2b of the rank rule: a dependence settled by relations proved first (identcheck.rank.rule).

The columns are functions of one variable evaluated in arb (as in test_rank); ``prove_null`` stands
for a condition that names and proves relations, and returns what it is told to. Each test checks
the decision against what is known by hand — the true relation, the ladder's own decision on the
same matrix — and that nothing of the ladder ran when 2b settled it.
"""

from fractions import Fraction

import flint
import numpy as np
import pytest

from identcheck.rank import rule
from identcheck.rank.decision import SETTLED_BY
from identcheck.rank.relations_first import settle_by_relations
from identcheck.rank.rule import ProvedNull, decide_rank

from .test_rank import DEPENDENT, POINTS, _exp, _functions_matrix, _rows_of


def _counting(provider):
    """The provider, recording the digits asked (the ladder's evaluations)."""
    asked = []

    def at(digits):
        asked.append(digits)
        return provider(digits)

    return at, asked


def _returning(vectors, records=None, seen=None):
    """A prove_null that returns ``vectors`` (None: nothing proved), recording the provisional decision."""

    def prove_null(provisional):
        if seen is not None:
            seen.append(provisional)
        if vectors is None:
            return None
        return ProvedNull(tuple(vectors), tuple(records if records is not None else range(len(vectors))))

    return prove_null


#: exp, sin and 2·exp − 3·sin: 2·col0 − 3·col1 − col2 = 0, exactly
RELATION = ((0, Fraction(2)), (1, Fraction(-3)), (2, Fraction(-1)))


def test_a_proved_relation_settles_the_dependence_without_the_ladder():
    matrix, provider = _functions_matrix(DEPENDENT, POINTS)
    at, asked = _counting(provider)
    seen = []
    d = decide_rank(matrix, at, prove_null=_returning([RELATION], ["the relation"], seen))
    assert asked == []  # no high-precision evaluation at all
    assert (d.independent, d.nullity, d.precision_digits) == (False, 1, 16)
    assert d.settled_by == "proved relations, other columns float64" and not d.provisional
    assert len(d.history) == 1 and d.explained == ("the relation",)
    v = d.null_space[:, 0] / d.null_space[2, 0]
    assert np.allclose(v, [-2, 3, 1], atol=1e-15)  # the exact relation, not a float64 estimate
    # what prove_null was handed: one provisional direction, float64's estimate of the same relation
    (provisional,) = seen
    assert provisional.provisional and provisional.nullity == 1 and provisional.settled_by is None
    w = provisional.null_space[:, 0] / provisional.null_space[2, 0]
    assert np.allclose(w, [-2, 3, 1], atol=1e-8)
    ladder = decide_rank(matrix, provider)  # the second method: the ladder alone
    assert (ladder.independent, ladder.nullity, ladder.settled_by) == (False, 1, "precision ladder")


@pytest.mark.parametrize(
    "vectors",
    [
        None,  # nothing proved
        [],  # fewer relations than float64's near-null directions
        [RELATION, RELATION],  # more relations than directions
    ],
)
def test_anything_short_of_k_proved_relations_leaves_the_ladder_as_it_was(vectors):
    matrix, provider = _functions_matrix(DEPENDENT, POINTS)
    tried = decide_rank(matrix, provider, prove_null=_returning(vectors))
    ladder = decide_rank(matrix, provider)
    assert tried.settled_by == ladder.settled_by == "precision ladder"
    assert (tried.independent, tried.nullity, tried.history, tried.precision_digits) == (
        ladder.independent,
        ladder.nullity,
        ladder.history,
        ladder.precision_digits,
    )
    assert tried.explained == ()


def test_relations_dependent_over_q_do_not_count_twice():
    """Two near-null directions (two dependences); the relation given twice is rank 1 over Q: refused."""
    cols = DEPENDENT + [lambda x: x.exp() - x.sin()]  # col3 = col0 − col1
    matrix, provider = _functions_matrix(cols, POINTS)
    second = ((0, Fraction(1)), (1, Fraction(-1)), (3, Fraction(-1)))
    assert decide_rank(matrix, provider, prove_null=_returning([RELATION, RELATION])).settled_by == "precision ladder"
    d = decide_rank(matrix, provider, prove_null=_returning([RELATION, second]))
    assert (d.independent, d.nullity, d.settled_by) == (False, 2, "proved relations, other columns float64")
    ladder = decide_rank(matrix, provider)
    assert ladder.nullity == 2  # the second method agrees on the nullity
    # the two null spaces are the same plane
    q_new, _ = np.linalg.qr(d.null_space)
    q_old, _ = np.linalg.qr(ladder.null_space)
    assert np.allclose(q_new @ q_new.T, q_old @ q_old.T, atol=1e-10)


def test_the_other_columns_must_be_independent():
    """k = 1 relation given where the matrix has two dependences: the columns off its pivot are still
    dependent, so the relation cannot bound the nullity by itself — refused without a ladder for
    them; with one, the ladder on those columns finds the second dependence: nullity 1 + 1."""
    cols = DEPENDENT + [lambda x: x.exp() - x.sin()]  # col3 = col0 − col1
    matrix, provider = _functions_matrix(cols, POINTS)
    provisional = rule.RankDecision(False, 0.0, 16, 1, np.eye(4)[:, :1], ((16, 0.0, 0),), (), provisional=True)
    found = ProvedNull((RELATION,), ("r",))
    floor = 16 * np.finfo(float).eps * np.linalg.norm(matrix / np.linalg.norm(matrix, axis=0), 2)
    args = (matrix, found, provisional, None, rule.DEFAULT_LADDER)
    assert settle_by_relations(*args, None, decide_rank, rule._prove_independent, floor) is None

    def gram_of(columns, digits):
        full = provider(digits)
        return rule.raw_gram(flint.arb_mat([[full[i, j] for j in columns] for i in range(full.nrows())]), digits)

    d = settle_by_relations(*args, gram_of, decide_rank, rule._prove_independent, floor)
    assert (d.independent, d.nullity, d.settled_by) == (False, 2, "proved relations, other columns precision ladder")
    assert d.explained == ()  # the second relation is the ladder's: the caller reads them all
    assert len(d.history) == 1 + 2  # the full matrix in float64, then the other columns' two rungs
    ladder = decide_rank(matrix, provider)
    assert ladder.nullity == 2
    q_new, _ = np.linalg.qr(d.null_space)
    q_old, _ = np.linalg.qr(ladder.null_space)
    assert np.allclose(q_new @ q_new.T, q_old @ q_old.T, atol=1e-10)  # the same null plane


def test_fewer_relations_leave_the_ladder_to_the_other_columns():
    """Through decide_rank with ``gram_of``: one relation of two proved, the ladder decides the rest
    on three columns (the Gram matrix of those alone is asked for, never the full one)."""
    cols = DEPENDENT + [lambda x: x.exp() - x.sin()]
    matrix, provider = _functions_matrix(cols, POINTS)
    asked = []

    def gram_of(columns, digits):
        asked.append(tuple(columns))
        full = provider(digits)
        return rule.raw_gram(flint.arb_mat([[full[i, j] for j in columns] for i in range(full.nrows())]), digits)

    def no_full_gram(digits):
        raise AssertionError("the full Gram matrix was asked for")

    d = decide_rank(matrix, gram=no_full_gram, prove_null=_returning([RELATION]), gram_of=gram_of)
    assert (d.independent, d.nullity, d.settled_by) == (False, 2, "proved relations, other columns precision ladder")
    assert asked and all(len(c) == 3 for c in asked)


def test_ill_conditioned_other_columns_are_proved_independent():
    """exp(k·ε·x), k = 0..7 (float64 s_min ≈ 1e-11: borderline), and their sum: one exact relation.
    The columns off its pivot are the eight exponentials — not settled by float64, so the proof of
    step 3a is asked for them, and the decision records its working precision."""
    cols = [_exp(k, 0.05) for k in range(8)]
    total = cols + [lambda x: sum((f(x) for f in cols[1:]), cols[0](x))]
    matrix, provider = _functions_matrix(total, POINTS)
    relation = tuple((j, Fraction(1)) for j in range(8)) + ((8, Fraction(-1)),)
    asked = []
    d = decide_rank(matrix, provider, rows=_rows_of(provider, asked), prove_null=_returning([relation]))
    assert (d.independent, d.nullity) == (False, 1)
    assert d.settled_by == "proved relations, other columns interval proof" and d.precision_digits == 60
    assert asked == [60]
    without_rows = decide_rank(matrix, provider, prove_null=_returning([relation]))
    assert without_rows.settled_by == "precision ladder" and without_rows.nullity == 1


def test_a_zero_column_is_a_provisional_direction():
    """A column float64 sees as exactly zero is handed over as its own direction e_j."""
    cols = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x * 0]
    matrix, provider = _functions_matrix(cols, POINTS)
    assert np.all(matrix[:, 2] == 0)
    seen = []
    d = decide_rank(matrix, provider, prove_null=_returning([((2, Fraction(1)),)], seen=seen))
    (provisional,) = seen
    assert provisional.nullity == 1 and np.allclose(np.abs(provisional.null_space[:, 0]), [0, 0, 1])
    assert (d.independent, d.nullity, d.settled_by) == (False, 1, "proved relations, other columns float64")


def test_an_independence_never_asks_for_relations():
    matrix, provider = _functions_matrix([lambda x: x, lambda x: x.exp(), lambda x: x.sin()], POINTS)
    seen = []
    d = decide_rank(matrix, provider, prove_null=_returning([RELATION], seen=seen))
    assert d.independent is True and d.settled_by == "float64" and seen == []


def test_every_decision_names_what_settled_it():
    assert set(SETTLED_BY) == {
        "float64",
        "interval proof",
        "precision ladder",
        "proved relations, other columns float64",
        "proved relations, other columns interval proof",
        "proved relations, other columns precision ladder",
    }
    matrix, provider = _functions_matrix([_exp(k, 0.002) for k in range(10)], POINTS)
    undecided = decide_rank(matrix, provider, ladder=(20, 25))  # as test_rank's inconclusive case
    assert undecided.independent is None and undecided.settled_by is None


def test_a_relation_the_matrix_does_not_satisfy_is_refused():
    """A 'proved' relation that is not the matrix's (a column mislabelled on the caller's side): its
    residual ‖B v‖ is far above float64's rounding floor, so the whole set is refused — the ladder."""
    matrix, provider = _functions_matrix(DEPENDENT, POINTS)
    wrong = ((0, Fraction(2)), (1, Fraction(3)), (2, Fraction(-1)))  # the sign of sin's coefficient flipped
    d = decide_rank(matrix, provider, prove_null=_returning([wrong]))
    assert d.settled_by == "precision ladder" and d.explained == ()
    twice = ((0, Fraction(2)), (0, Fraction(-3)), (2, Fraction(-1)))  # a column named twice
    assert decide_rank(matrix, provider, prove_null=_returning([twice])).settled_by == "precision ladder"
