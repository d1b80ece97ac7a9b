import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from identcheck.terms import type1_term_set

dyadic = st.integers(-8, 8).map(lambda k: sp.Rational(k, 8))


@st.composite
def components(draw, dim=2):
    """A random component (M symmetric, a ≠ 0) with dyadic entries."""
    upper = {(j, k): draw(dyadic) for j in range(dim) for k in range(j, dim)}
    M = tuple(tuple(upper[(min(i, j), max(i, j))] for j in range(dim)) for i in range(dim))
    a = tuple(draw(st.lists(dyadic, min_size=dim, max_size=dim).filter(lambda v: any(x != 0 for x in v))))
    return M, a


points = st.lists(st.floats(-1, 1, allow_nan=False), min_size=2, max_size=2)


@pytest.fixture(scope="session")
def term_set_2d():
    return type1_term_set(2)


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
