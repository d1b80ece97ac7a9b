import numpy as np
import pytest
import sympy as sp
from hypothesis import strategies as st

from identcheck.terms.type1 import type1_term_set

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


def probe_matrix(term_set, phi, probe_index, seed):
    """(activation, probe, matrix, arb(rows, digits)) for a default d = 2 probe at 4T random points."""
    from identcheck import default_probes, parse_activation
    from identcheck.terms.compile import compile_terms

    act = parse_activation(phi)
    compiled = compile_terms(term_set)
    probe = default_probes(term_set.dim, seed=0)[probe_index]
    thetas = [list(term_set.numeric_params(c.M, c.a).values()) for c in probe.components]
    pts = np.random.default_rng(seed).uniform(-1, 1, size=(4 * len(probe.components) * compiled.n_terms, term_set.dim))
    matrix = compiled.float64(pts, thetas, act)
    return act, probe, matrix, lambda rows, digits: compiled.arb(pts[list(rows)], thetas, act, digits)


@pytest.fixture(scope="session")
def type2_phi_free():
    """The φ-free type-2 work on the default head probes (d = 2, seed 0: factor matrices, their
    reductions, the arb evaluations at 120 digits), done once in the test process: it is cached
    per process (``conditions.type2._phi_free``), so the later type-2 checks of the session reuse
    it and the workers a test forks (catalog ``jobs=2``) inherit it instead of each redoing it."""
    from identcheck.check import make_condition

    condition = make_condition("z", "type2")
    for index, probe in enumerate(condition.probes()):
        shared = condition.matrix(probe, index).shared
        shared.arb(120)
        shared.outputs_arb(120)
    return condition
