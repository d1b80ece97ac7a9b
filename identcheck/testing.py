"""Property-based testing of your own gate activation, in your own pytest suite (needs hypothesis).

Strategies (hypothesis) for the objects of the theory, with exact dyadic parameters as the
checker uses:

- :func:`dyadics`, :func:`symmetric_matrices`, :func:`expert_vectors`, :func:`components`
- :func:`probes`: the structured families of docs/method.md §2 (random, shared M, M = 0, a₂ = −a₁,
  a₂ = c·a₁), drawn rather than fixed;
- :func:`points`: input points in [−1, 1]^d; :func:`catalog_activations`: the catalog's φ.

Ready-made property checks:

- :func:`linear_expert_pde_residual` — the identity's PDE (5), Σ_j a_j ∂u/∂a_j − u, evaluated from
  identcheck's own symbolic term set (so it also tests the term builder); it is rounding-sized
  for every (M, a, x).
- :func:`assert_identifiable` — the real check: runs :func:`identcheck.check` on φ and fails,
  with the witness probe and its first relation, unless the verdict is "identifiable". This is
  the assertion that says φ works as a gate.
- :func:`family_residual` / :func:`assert_no_named_family_relation` — "no relation of the *named*
  family F holds for φ" — one of the five families in :data:`FAMILIES`, and only that one. Passing
  all five does **not** make φ identifiable: ``(z + 1/2)/(1 + z**2)`` passes all five, yet
  :func:`assert_identifiable` fails on it (a relation outside the families ties two experts
  through the shared-M probes). By the reduction proved in :mod:`identcheck.pde` (step 1), every family relation on
  components (M, a) equals exp(xᵀMx)·(polynomial in x)·H(aᵀx) for the family's hypothesis H
  (zφ' − kφ, φ'' − cφ, φ'' − czφ', φ'', φ(−z) − sφ(z) − q(z)); so the relation holds at the
  sampled inputs exactly when H vanishes at z = aᵀx. The residual is the distance of H's
  defining vectors from dependence: the smallest singular value of the column-normalised
  matrix [zφ'(z), φ(z)] for Euler (the constant k free), and likewise for the others. It is
  numerical evidence at the sampled points, with the tolerance you pass.

Example (docs/examples/test_my_activation.py, run by identcheck's own suite)::

    from hypothesis import given
    from hypothesis import given
    from identcheck.testing import assert_identifiable, assert_no_named_family_relation, components, points

    @given(components(2), points(2, 32))
    def test_sigmoid_with_bias_escapes_euler(component, x):
        assert_no_named_family_relation("sigmoid(z + 1)", "euler", component, x)

    def test_sigmoid_with_bias_is_identifiable():
        assert_identifiable("sigmoid(z + b)", params={"b": "-1/2"})   # params as on the command line

``params`` (here and in every function of this module that takes φ) are the values the command
line's ``--param NAME=VALUE`` takes, as text (``"-1/2"``, ``"1e-3"``) read exactly by its own
parser (:func:`identcheck.parse.grammar.parse_param`, never evaluated), or as numbers.
"""

from __future__ import annotations

import warnings
from functools import lru_cache

import numpy as np
import sympy as sp
from hypothesis import strategies as st

from .catalog.activations import CATALOG
from .check import check
from .errors import IdentcheckError
from .parse.activation import parse_activation
from .terms.compile import compile_terms
from .terms.probes import DENOMINATOR, Component, Probe
from .terms.type1 import type1_term_set

__all__ = [
    "FAMILIES",
    "assert_identifiable",
    "assert_no_family_relation",
    "assert_no_named_family_relation",
    "catalog_activations",
    "components",
    "dyadics",
    "expert_vectors",
    "family_residual",
    "linear_expert_pde_residual",
    "points",
    "probes",
    "symmetric_matrices",
]

#: The named families whose hypotheses :func:`family_residual` tests — not every relation.
FAMILIES = ("euler", "heat", "gaussian", "zero_second", "symmetry")
SYMMETRY_DEGREE = 3  # q(z) may be a polynomial of degree ≤ 3


def dyadics(bound: int = 1, denominator: int = DENOMINATOR, nonzero: bool = False):
    """Rationals k/denominator in [−bound, bound] (sympy), exact in float64, arb and sympy."""
    values = st.integers(-bound * denominator, bound * denominator)
    if nonzero:
        values = values.filter(lambda k: k != 0)
    return values.map(lambda k: sp.Rational(k, denominator))


def symmetric_matrices(dim: int, bound: int = 1, denominator: int = DENOMINATOR):
    """Symmetric dim × dim matrices of dyadic rationals, as tuples of rows."""
    n = dim * (dim + 1) // 2
    return st.lists(dyadics(bound, denominator), min_size=n, max_size=n).map(lambda upper: _symmetric(dim, upper))


def expert_vectors(dim: int, bound: int = 1, denominator: int = DENOMINATOR, min_l1: float = 0.0):
    """Nonzero vectors a of dyadic rationals with Σ|a_j| ≥ ``min_l1`` (the range of z = aᵀx)."""
    return (
        st.lists(dyadics(bound, denominator), min_size=dim, max_size=dim)
        .filter(lambda a: any(a) and sum(abs(v) for v in a) >= min_l1)
        .map(tuple)
    )


def components(dim: int, bound: int = 1, min_l1: float = 0.0):
    """One component θ = (M, a); ``min_l1`` keeps z = aᵀx from living on a tiny interval."""
    return st.builds(Component, symmetric_matrices(dim, bound), expert_vectors(dim, bound, min_l1=min_l1))


@st.composite
def probes(draw, dim: int, bound: int = 1):
    """A probe from one of the structured families (docs/method.md §2), with drawn parameters."""
    kind = draw(st.sampled_from(["random pair", "shared M", "M = 0 pair", "a2 = -a1", "a2 = c*a1"]))
    m1 = draw(symmetric_matrices(dim, bound))
    a1 = draw(expert_vectors(dim, bound))
    zero = tuple(tuple(sp.Integer(0) for _ in range(dim)) for _ in range(dim))
    if kind == "random pair":
        m2, a2 = draw(symmetric_matrices(dim, bound)), draw(expert_vectors(dim, bound))
    elif kind == "shared M":
        m2, a2 = m1, draw(expert_vectors(dim, bound))
    elif kind == "M = 0 pair":
        m1 = m2 = zero
        a2 = draw(expert_vectors(dim, bound))
    elif kind == "a2 = -a1":
        m2, a2 = m1, tuple(-v for v in a1)
    else:
        c = draw(dyadics(2, 2, nonzero=True).filter(lambda v: v != 1))
        m2, a2 = m1, tuple(c * v for v in a1)
    first, second = Component(m1, a1), Component(m2, a2)
    if first == second:
        second = Component(m2, tuple(v + sp.Rational(1, DENOMINATOR) for v in a2))
    return Probe(kind, (first, second))


def points(dim: int, n: int):
    """n input points uniform in [−1, 1]^dim (float64, shape (n, dim)), like the checker's samples.

    Hypothesis draws the seed of a numpy generator rather than each coordinate: the point *set*
    is what matters, and adversarial sets (all points equal) would say nothing about φ.
    """
    return st.integers(0, 2**32 - 1).map(lambda seed: np.random.default_rng(seed).uniform(-1.0, 1.0, size=(n, dim)))


def catalog_activations():
    """Activation texts from the catalog (:mod:`identcheck.catalog.activations`)."""
    return st.sampled_from([phi for phi, _ in CATALOG])


def linear_expert_pde_residual(component: Component, x: np.ndarray) -> float:
    """The PDE (5)'s relative residual for the linear expert u at the points ``x``.

    ``max_i |Σ_j a_j ∂u/∂a_j − u| / max_i (|u| + Σ_j |a_j ∂u/∂a_j|)``, zero up to rounding for every
    component: the relation that makes plain multi-head attention's experts slow to learn.

    Parameters
    ----------
    component : Component
        The gating matrix M and expert vector a.
    x : numpy.ndarray, shape (n, d)
        The points.

    Returns
    -------
    float
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    dim = x.shape[1]
    ts, compiled = _mha(dim)
    theta = list(ts.numeric_params(component.M, component.a).values())
    values = compiled.float64(x, [theta], parse_activation("z"))
    u = _column(ts, values, ())
    parts = [float(a) * _column(ts, values, (f"a{j + 1}",)) for j, a in enumerate(component.a)]
    residual = np.abs(np.sum(parts, axis=0) - u)
    scale = np.abs(u) + np.sum(np.abs(parts), axis=0)
    return float(residual.max() / max(scale.max(), np.finfo(float).tiny))


def _column(ts, values, derivative):
    """The values of ∂^derivative u (by structure: the term set's index, merge factor included)."""
    position, factor = ts.index[derivative]
    return float(factor) * values[:, position]


@lru_cache(maxsize=None)
def _mha(dim):
    ts = type1_term_set(dim, "u")
    return ts, compile_terms(ts)


def family_residual(phi, family: str, component: Component, x: np.ndarray, params=None) -> float:
    """How far φ is from satisfying ``family``'s hypothesis at z = aᵀx (0: it does, up to rounding).

    The smallest singular value of the column-normalised matrix whose dependence is the
    hypothesis: [zφ', φ] (euler), [φ'', φ] (heat), [φ'', zφ'] (gaussian), [φ''] (zero_second,
    its norm relative to φ's), and for symmetry the smaller over s = ±1 of the relative
    distance of φ(−z) − sφ(z) from the polynomials of degree ≤ 3.
    """
    if family not in FAMILIES:
        raise IdentcheckError(param="family", value=family, reason=f"unknown; available: {', '.join(FAMILIES)}")
    activation = parse_activation(phi, params)
    x = np.atleast_2d(np.asarray(x, dtype=float))
    z = x @ np.array([float(v) for v in component.a])
    phi0, phi1, phi2 = (activation.numpy_derivative(m)(z) for m in range(3))
    if family == "euler":
        return _smallest([z * phi1, phi0])
    if family == "heat":
        return _smallest([phi2, phi0])
    if family == "gaussian":
        return _smallest([phi2, z * phi1])
    if family == "zero_second":
        return float(np.linalg.norm(phi2) / max(np.linalg.norm(phi0) + np.linalg.norm(phi2), np.finfo(float).tiny))
    mirrored = activation.numpy_derivative(0)(-z)
    basis = np.vander(z, SYMMETRY_DEGREE + 1)
    best = np.inf
    for s in (1.0, -1.0):
        target = mirrored - s * phi0
        if not np.any(target):
            return 0.0
        coeffs, *_ = np.linalg.lstsq(basis, target, rcond=None)
        scale = np.linalg.norm(mirrored) + np.linalg.norm(phi0)
        best = min(best, float(np.linalg.norm(target - basis @ coeffs) / scale))
    return best


def assert_no_named_family_relation(
    phi, family: str, component: Component, x: np.ndarray, tol: float = 1e-8, params=None
):
    """Fail (AssertionError) when the named ``family``'s relation holds for φ at these inputs, up to ``tol``.

    Checks that one family of :data:`FAMILIES` only: a φ can pass all five and still be not
    identifiable (a relation outside the families). For the verdict, use :func:`assert_identifiable`.
    """
    residual = family_residual(phi, family, component, x, params)
    assert residual > tol, (
        f"phi={phi!r} satisfies the {family} hypothesis at z = a'x for a = {component.a} "
        f"(residual {residual:.2e} <= {tol:g}): the {family} relation holds there"
    )


def assert_no_family_relation(phi, family: str, component: Component, x: np.ndarray, tol: float = 1e-8, params=None):
    """Deprecated name of :func:`assert_no_named_family_relation` (it checks the named family only)."""
    warnings.warn(
        "assert_no_family_relation checks the named family only; it is now assert_no_named_family_relation "
        "(use assert_identifiable for the real check)",
        DeprecationWarning,
        stacklevel=2,
    )
    assert_no_named_family_relation(phi, family, component, x, tol, params)


def assert_identifiable(phi, condition: str = "type1", dim: int = 2, params=None, **options):
    """Fail (AssertionError) unless :func:`identcheck.check` finds φ identifiable; return the result.

    The real check — every probe, every relation, not only the named families. The message names
    the verdict, the witness probe and its first relation, written out.

    Parameters
    ----------
    phi : str or sympy.Expr
        The activation, as :func:`identcheck.check` takes it.
    condition, dim : str, int
        As :func:`identcheck.check` (default type-1, d = 2).
    params : mapping of str to str or number, optional
        Named constants, as the command line's ``--param`` takes them: ``{"b": "-1/2"}``.
    **options
        Passed to :func:`identcheck.check` (``seed``, ``certify``, ...).

    Returns
    -------
    CheckResult
    """
    result = check(phi, condition, dim, params, **options)
    if result.verdict.value == "identifiable":
        return result
    witness = next((p for p in result.probes if p.name == result.witness), None)
    relation = witness.relations[0] if witness is not None and witness.relations else None
    detail = f"; witness probe {result.witness!r}" if result.witness else ""
    if relation is not None:
        detail += f": {relation}    [{relation.tag}]"
    raise AssertionError(
        f"phi={result.phi!r} [{result.condition}, d = {result.dim}] is {result.verdict.value} "
        f"({result.evidence.value}): {result.summary}{detail}"
    )


def _smallest(columns) -> float:
    matrix = np.column_stack(columns)
    norms = np.linalg.norm(matrix, axis=0)
    if np.any(norms == 0):
        return 0.0
    return float(np.linalg.svd(matrix / norms, compute_uv=False)[-1])


def _symmetric(dim, upper):
    it = iter(upper)
    m = [[None] * dim for _ in range(dim)]
    for j in range(dim):
        for k in range(j, dim):
            m[j][k] = m[k][j] = next(it)
    return tuple(tuple(row) for row in m)
