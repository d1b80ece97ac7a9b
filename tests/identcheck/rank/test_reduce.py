"""Canonical bases of null spaces (identcheck.families.echelon) and the type-2 reduction that keeps the earliest
independent columns of each group."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.linalg import null_space

from identcheck.families.echelon import dependent_columns, echelon_basis


def dependent_set(null_space, nullity):
    found = dependent_columns(null_space, nullity)
    return None if found is None else set(found)


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
    assert dependent_set(null_space(matrix), 3) == {1, 3, 4}


def test_equal_norm_near_ties_resolve_by_term_order():
    # c0 = −c1 exactly (the symmetry of a sign-pair probe): the later column goes, on every basis sign
    c = np.array([0.3, -1.2, 0.7])
    matrix = np.column_stack([c, -c, [1.0, 1.0, 0.0]])
    for sign in (1.0, -1.0):
        assert dependent_set(sign * null_space(matrix), 1) == {1}


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
    assert dependent_set(basis, basis.shape[1]) == expected
    assert dependent_set(rotated, basis.shape[1]) == expected


def test_nearly_parallel_basis_vectors_still_span_their_space():
    # two null vectors 1e-9 apart span the whole plane: orthonormalised first, the pivots are both columns
    assert dependent_set(np.array([[1.0, 1.0], [0.0, 1e-9]]), 2) == {0, 1}


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


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_echelon_basis_is_the_same_for_every_basis_and_has_its_shape(seed):
    rng = np.random.default_rng(seed)
    free = rng.normal(size=(10, 4))
    matrix = np.column_stack([free, free @ rng.integers(-2, 3, size=(4, 3)).astype(float)])
    matrix = matrix[:, rng.permutation(7)]
    basis = null_space(matrix)
    pivots, v = echelon_basis(basis)
    pivots2, v2 = echelon_basis(basis @ np.linalg.qr(rng.normal(size=(3, 3)))[0])
    assert pivots == pivots2 and np.allclose(v, v2, atol=1e-9)
    assert np.allclose(matrix @ v.T, 0, atol=1e-9)
    for i, p in enumerate(pivots):
        assert v[i, p] == pytest.approx(1) and np.allclose(np.delete(v[i, p + 1 :], []), 0, atol=1e-9)
        assert all(abs(v[i, q]) < 1e-9 for q in pivots if q != p)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 12), m=st.integers(2, 6))
def test_pivoted_rows_are_lapacks_column_pivots(seed, n, m):
    """A second method: scipy's column-pivoted QR (LAPACK geqp3) of the transpose picks the same rows
    (random rows: no ties)."""
    import scipy.linalg

    from identcheck.families.echelon import pivoted_rows

    matrix = np.random.default_rng(seed).normal(size=(n, m))
    count = min(n, m)
    _, _, pivots = scipy.linalg.qr(matrix.T, mode="economic", pivoting=True)
    assert pivoted_rows(matrix, count) == [int(p) for p in pivots[:count]]


def test_a_skewed_basis_gives_the_pivots_of_an_orthonormal_one():
    """A skewed basis: v1 ± 1e-4·w spans the same plane as an orthonormal basis; the pivots must agree."""
    rng = np.random.default_rng(3)
    free = rng.normal(size=(8, 3))
    matrix = np.column_stack([free, free @ np.array([[1.0, 0.0], [2.0, 1.0], [0.0, -1.0]])])
    basis = null_space(matrix)
    v, w = basis[:, 0], basis[:, 1]
    skewed = np.column_stack([v + 1e-4 * w, v - 1e-4 * w])
    assert dependent_set(skewed, 2) == dependent_set(basis, 2) == greedy_dependent(matrix)
