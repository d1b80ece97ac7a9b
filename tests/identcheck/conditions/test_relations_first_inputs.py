"""What a condition hands the rank rule's relations proved first (identcheck.rank.relations_first):
``Condition.relations_prover`` keeps only proved relations with rational coefficients on the
matrix's own columns; ``remembered`` proves a relation once per matrix; ``gram_of`` is the Gram
matrix of a subset of the columns; a provisional null space is read by the templates' residuals.
"""

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from identcheck.check import make_condition
from identcheck.conditions.base import Condition, remembered
from identcheck.families.base import Template
from identcheck.families.relations import explain_null_space
from identcheck.rank.decision import RankDecision
from identcheck.results import Relation
from identcheck.terms.compile import arb_precision
from identcheck.util.budget import Outcome

KEYS = (("a",), ("b",), ("c",))


def _relation(exact, keys, proved=True):
    return Relation(
        terms=tuple((k[0], 1.0) for k in keys),
        exact=exact,
        keys=keys,
        family="test family",
        hypothesis=None,
        proved=proved,
    )


def _prover(relations):
    """Condition.relations_prover on a stand-in condition whose explain returns ``relations``."""
    stand_in = SimpleNamespace(relations_first=True, explain=lambda probe, matrix, decision: tuple(relations))
    return Condition.relations_prover(stand_in, None, SimpleNamespace(keys=KEYS))


GOOD = _relation((("a", "1"), ("b", "-3/4")), (("a",), ("b",)))


@pytest.mark.parametrize(
    "bad",
    [
        _relation((("a", "1"), ("b", "-3/4")), (("a",), ("b",)), proved=False),  # not proved (or timed out)
        _relation((("a", "1"), ("c", "sqrt(2)")), (("a",), ("c",))),  # not rational
        _relation((("a", "1"), ("c", "0.5")), (("a",), ("c",))),  # a decimal: its binary value was proved
        _relation((("a", "1"), ("d", "2")), (("a",), ("d",))),  # a key the matrix does not have
        _relation(None, (("a",), ("b",))),  # no exact coefficients (a raw relation read as floats)
    ],
)
def test_only_proved_rational_relations_on_the_matrix_columns_are_handed_over(bad):
    found = _prover([bad, GOOD])("provisional")
    assert found.records == (GOOD,)
    assert found.vectors == (((0, Fraction(1)), (1, Fraction(-3, 4))),)
    assert _prover([bad])("provisional") is None  # nothing left: the rule climbs the ladder


def test_a_condition_without_relations_first_hands_nothing_over():
    stand_in = SimpleNamespace(relations_first=False, explain=None)
    assert Condition.relations_prover(stand_in, None, SimpleNamespace(keys=KEYS)) is None


def _counting_prove(outcomes):
    calls = []

    def prove(coefficients, thorough=False, family=None):
        calls.append(thorough)
        return outcomes.pop(0)

    return prove, calls


COEFFICIENTS = [(0, 1), (2, Fraction(-1, 2))]


def test_a_proof_is_made_once_per_matrix():
    prove, calls = _counting_prove([Outcome(True)])
    once = remembered(prove, {})
    assert once(COEFFICIENTS, False, "f") and once(COEFFICIENTS, True, "f")
    assert calls == [False]  # a proof found without simplify stands when simplify is asked later


def test_a_failed_quick_attempt_is_tried_again_thoroughly_but_not_quickly():
    prove, calls = _counting_prove([Outcome(False), Outcome(True)])
    once = remembered(prove, {})
    assert not once(COEFFICIENTS, False, "f")
    assert not once(COEFFICIENTS, False, "f")  # the same attempt: not repeated
    assert once(COEFFICIENTS, True, "f")  # a more thorough one is made
    assert calls == [False, True]


def test_an_attempt_that_ran_out_of_time_is_not_repeated():
    prove, calls = _counting_prove([Outcome(False, True)])
    once = remembered(prove, {})
    first, again = once(COEFFICIENTS, False, "f"), once(COEFFICIENTS, True, "f")
    assert first.timed_out and again.timed_out and calls == [False]


def test_the_family_is_part_of_the_key():
    prove, calls = _counting_prove([Outcome(False), Outcome(True)])
    once = remembered(prove, {})
    assert not once(COEFFICIENTS, False, "f") and once(COEFFICIENTS, False, "g")
    assert len(calls) == 2


def _gram_mids(raw):
    return np.array([[float(raw[i, j].mid()) for j in range(raw.ncols())] for i in range(raw.nrows())])


@pytest.mark.parametrize("condition", ["type1", "type2"])
def test_gram_of_is_the_submatrix_of_the_whole_gram(condition):
    setup = make_condition("tanh(z)", condition)
    probe = setup.probes()[2]
    columns = [0, 3, 5, 7]
    fresh = setup.matrix(probe, 2)  # type-2: the columns alone multiplied out (no A at hand)
    part = fresh.gram_of(columns, 120)
    whole = setup.matrix(probe, 2)
    full = whole.gram(120)
    again = whole.gram_of(columns, 120)  # type-2: from the A the whole Gram matrix kept
    expected = _gram_mids(full)[np.ix_(columns, columns)]
    for raw in (part, again):
        assert np.allclose(_gram_mids(raw), expected, rtol=1e-14, atol=0)
        for i in range(len(columns)):
            with arb_precision(120):
                assert raw[i, i].overlaps(full[columns[i], columns[i]])
    assert fresh.unsettled is None and whole.unsettled is None


def _provisional(matrix, null, nullity):
    norms = np.linalg.norm(matrix, axis=0)
    s1 = np.linalg.norm(matrix / norms, 2)
    floor = 16 * np.finfo(float).eps * s1
    tolerances = (SimpleNamespace(name="proof", value=floor),)
    return RankDecision(False, 0.0, 16, nullity, null, ((16, 0.0, 0),), tolerances, provisional=True)


def test_a_provisional_null_space_is_read_by_residuals_and_never_raw():
    """Columns e^x, sin x, 2e^x − 3 sin x, cos x: one exact relation. A template of it is recognised
    (its residual is at the rounding floor) even against a poor null direction; a template that is
    no relation is not; an unexplained direction gives no raw relation; no proof is thorough."""
    x = np.random.default_rng(3).uniform(-1, 1, 40)
    matrix = np.column_stack([np.exp(x), np.sin(x), 2 * np.exp(x) - 3 * np.sin(x), np.cos(x)])
    poor = np.array([[2.0], [-3.0], [-1.0], [1e-3]])  # float64 could hand over a direction this rough
    poor /= np.linalg.norm(poor)
    asked = []

    def prove(coefficients, thorough=False, family=None):
        asked.append(thorough)
        return True

    true = Template("test", None, ((0, 2), (1, -3), (2, -1)))
    false = Template("test", None, ((0, 1), (3, -1)))
    labels, keys = ["e", "s", "d", "c"], [("e",), ("s",), ("d",), ("c",)]
    found = explain_null_space(_provisional(matrix, poor, 1), matrix, [false, true], labels, keys, prove)
    assert [r.exact for r in found] == [(("e", "2"), ("s", "-3"), ("d", "-1"))]
    assert asked == [False]
    # two directions asked for, one template to give: the other is not read raw from float64's directions
    two = np.column_stack([poor[:, 0], [0.0, 0.0, 0.0, 1.0]])
    found = explain_null_space(_provisional(matrix, two, 2), matrix, [true], labels, keys, prove)
    assert len(found) == 1 and found[0].family == "test"
    # the same null space, not provisional: the poor direction hides the relation from the 1e-6 test
    ladder_like = RankDecision(False, 0.0, 60, 1, poor, (), ())
    assert explain_null_space(ladder_like, matrix, [true], labels, keys, prove)[0].family is None

