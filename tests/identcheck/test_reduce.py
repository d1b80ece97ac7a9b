"""The type-2 reduction keeps a canonical basis of each group: the earliest independent columns."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space

from identcheck.reduce import last_dependent_columns


def greedy_dependent(matrix):
    """Second method: column j is dependent when it does not raise the rank of the columns before it."""
    dropped, rank = set(), 0
    for j in range(matrix.shape[1]):
        new = np.linalg.matrix_rank(matrix[:, : j + 1], tol=1e-9)
        if new == rank:
            dropped.add(j)
        rank = new
    return dropped


def test_hand_example():
    # c1 = 2·c0, c2 independent, c3 = c0 + c2, c4 = 0: dropped 1, 3, 4 (by hand)
    c0, c2 = np.array([1.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0])
    matrix = np.column_stack([c0, 2 * c0, c2, c0 + c2, np.zeros(3)])
    assert last_dependent_columns(null_space(matrix), 3) == {1, 3, 4}


def test_equal_norm_near_ties_resolve_by_term_order():
    # c0 = −c1 exactly (the symmetry of a sign-pair probe): the later column goes, on every basis sign
    c = np.array([0.3, -1.2, 0.7])
    matrix = np.column_stack([c, -c, [1.0, 1.0, 0.0]])
    for sign in (1.0, -1.0):
        assert last_dependent_columns(sign * null_space(matrix), 1) == {1}


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_free=st.integers(1, 5),
    n_dependent=st.integers(1, 4),
)
def test_any_basis_of_the_null_space_gives_the_greedy_columns(seed, n_free, n_dependent):
    rng = np.random.default_rng(seed)
    free = rng.normal(size=(12, n_free))
    combos = rng.integers(-2, 3, size=(n_free, n_dependent)).astype(float)
    combos[0] += (combos == 0).all(axis=0)  # every dependent column is a non-trivial combination
    matrix = np.column_stack([free, free @ combos])[:, rng.permutation(n_free + n_dependent)]
    basis = null_space(matrix)
    rotated = basis @ np.linalg.qr(rng.normal(size=(basis.shape[1],) * 2))[0]  # another basis of it
    expected = greedy_dependent(matrix)
    assert last_dependent_columns(basis, basis.shape[1]) == expected
    assert last_dependent_columns(rotated, basis.shape[1]) == expected


def test_an_ill_separated_null_space_is_refused():
    # two null vectors that differ by 1e-9 only: no second pivot above PIVOT_TOL
    assert last_dependent_columns(np.array([[1.0, 1.0], [0.0, 1e-9]]), 2) is None


@pytest.mark.parametrize("phi", ["tanh(z)", "sin(z)"])
def test_the_reduction_keeps_the_earliest_columns(phi):
    """For the sign-pair probe of odd/periodic φ the kept columns are the greedy ones of the factor
    matrix, recomputed here by ranks of prefixes."""
    from identcheck.check import make_condition

    condition = make_condition(phi, "type2", dim=1)
    probe_index = next(i for i, p in enumerate(condition.probes()) if p.name == "channel 2 = -channel 1")
    matrix = condition.matrix(condition.probes()[probe_index], probe_index)
    reduction, factors = matrix.reduction, matrix.factor_values
    groups = {}
    for i, term in enumerate(condition.term_set.terms):
        groups.setdefault(term.group, []).append(i)
    assert any(reduction.nullities.values())
    for key, columns in groups.items():
        if reduction.nullities.get(key):
            sub = factors[:, columns] / np.linalg.norm(factors[:, columns], axis=0)
            kept = {j for j, c in enumerate(columns) if c in set(reduction.kept.tolist())}
            assert set(range(len(columns))) - kept == greedy_dependent(sub), key
