"""The model-level Taylor term set (numeric.confirm.taylor) and the exp(z) algebra of docs/confirm.md."""

import numpy as np
import pytest
import sympy as sp

from numeric.confirm.paths import index_of
from numeric.confirm.taylor import taylor_singular_values, taylor_terms
from numeric.model.attention import Model
from numeric.model.attention_params import HMoEParams
from numeric.model.attention_truth import load_truth

TRUTH = load_truth().params
X = np.random.default_rng(5).uniform(-1.0, 1.0, size=(300, 2))


@pytest.mark.parametrize("kind, phi", [("gated1", "exp(z)"), ("gated1", "tanh(z + 1)"), ("gated2", "sigmoid(z + 1)")])
def test_split_terms_equal_central_second_differences_of_g(kind, phi):
    """Second method: ∂²g/∂a_j∂a_l by central differences of the model's own value."""
    model = Model(kind, phi)
    T, labels = taylor_terms(model, TRUTH, X)
    _, _, a_i = index_of(TRUTH)
    theta, e = TRUTH.to_vector(), 1e-3  # truncation O(e²) ≈ 1e-6, rounding ≈ 1e-16/e² ≈ 1e-10
    for h, i, k, j, l in [(0, 0, 0, 0, 0), (1, 0, 1, 0, 1), (1, 1, 0, 1, 1)]:

        def value(dj, dl):
            t = theta.copy()
            t[a_i(h, i, k, j)] += dj
            t[a_i(h, i, k, l)] += dl
            return model.value(HMoEParams.from_vector(t, TRUTH.H, TRUTH.N, TRUTH.K, TRUTH.dim), X)

        fd = (value(e, e) - value(e, -e) - value(-e, e) + value(-e, -e)) / (4 * e * e)
        column = T[:, labels.index(f"d2/da[{h + 1},{i + 1},{k + 1};{j + 1},{l + 1}]")]
        assert np.abs(fd - column).max() <= 1e-5 * np.abs(column).max()
    assert T.shape[1] == TRUTH.size + TRUTH.H * TRUTH.N * TRUTH.K * 3


def test_a_linear_phi_has_zero_split_terms_and_exp_does_not():
    """φ = z: φ'' = 0, every split term is 0 (Theorem 1's degeneracy), s_min = 0; exp(z): s_min > 0."""
    assert taylor_singular_values(Model("gated1", "z"), TRUTH, X)[-1] == 0.0
    s = taylor_singular_values(Model("gated1", "exp(z)"), TRUTH, X)
    assert s[-1] / s[0] > 1e-7


def test_exp_model_is_A_minus_A_minus_B_over_one_plus_s():
    """docs/confirm.md: with N = 2, M_2 = 0, g = Σ_h [A_h − (A_h − B_h)/(1 + s_h)], s_h = exp(xᵀM_{h,1}x)."""
    model = Model("gated1", "exp(z)")
    g = model.value(TRUTH, X)
    by_hand = np.zeros(len(X))
    for h in range(TRUTH.H):
        s = np.exp(np.einsum("nj,jl,nl->n", X, TRUTH.M[h, 0], X))
        A = sum(TRUTH.omega[h, k] * np.exp(X @ TRUTH.a[h, 0, k]) for k in range(TRUTH.K))
        B = sum(TRUTH.omega[h, k] * np.exp(X @ TRUTH.a[h, 1, k]) for k in range(TRUTH.K))
        by_hand += A - (A - B) / (1 + s)
    assert np.abs(g - by_hand).max() <= 1e-12 * np.abs(g).max()


def test_every_M_derivative_of_one_over_one_plus_s_has_no_pole_free_part():
    """f(q) = 1/(1 + s·e^q): f' = f² − f, so every q-derivative at 0 is a polynomial in r = 1/(1 + s) without
    constant term (docs/confirm.md, 'exp(z)')."""
    S, Q, r = sp.symbols("S Q r", positive=True)
    f = 1 / (1 + S * sp.exp(Q))
    for order in range(1, 5):
        polynomial = sp.expand(sp.simplify(sp.diff(f, Q, order).subs(Q, 0).subs(S, (1 - r) / r)))
        assert sp.Poly(polynomial, r).coeff_monomial(1) == 0
        assert sp.Poly(polynomial, r).degree() == order + 1


def _exp_head_terms(seed: int):
    """The full second-order Taylor terms of one head of model (9) with φ = exp, N = 2, K = 2, as polynomials in
    r = 1/(1 + s) (s = exp(xᵀM₁x)), x and E_{ik} = exp(a_{ik}ᵀx), at a random rational truth (docs/confirm.md).

    φ and s are kept as functions that are their own derivatives, so sympy never merges exponentials."""
    import itertools
    import random

    class phi(sp.Function):  # noqa: N801 — φ = exp, its own derivative
        def fdiff(self, argindex=1):
            return phi(self.args[0])

    class s_of(sp.Function):  # noqa: N801 — s = exp(q)
        def fdiff(self, argindex=1):
            return s_of(self.args[0])

    x1, x2, r = sp.symbols("x1 x2 r")
    m = sp.symbols("m11 m12 m22")
    q = m[0] * x1**2 + 2 * m[1] * x1 * x2 + m[2] * x2**2
    w = sp.symbols("w1 w2")
    a = {(i, k): sp.symbols(f"a{i}{k}_1:3") for i in (1, 2) for k in (1, 2)}
    E = {key: sp.Symbol(f"E{key[0]}{key[1]}") for key in a}
    z = {key: v[0] * x1 + v[1] * x2 for key, v in a.items()}
    s = s_of(q)
    g = sum(w[k - 1] * (s / (1 + s) * phi(z[1, k]) + 1 / (1 + s) * phi(z[2, k])) for k in (1, 2))
    params = list(w) + list(m) + [v for key in sorted(a) for v in a[key]]

    def kind(p):
        return "w" if p in w else ("m" if p in m else next(("a", key[1]) for key, v in a.items() if p in v))

    keys = [(p,) for p in params]
    for p1, p2 in itertools.combinations_with_replacement(params, 2):
        k1, k2 = kind(p1), kind(p2)
        if k1[0] == "a" and k2[0] == "a" and k1[1] != k2[1]:
            continue  # two channels: 0
        if "w" in (k1[0], k2[0]):
            continue  # ∂²/∂ω∂a = (∂/∂a)/ω, ∂²/∂ω² = 0, ∂²/∂ω∂m: Σ_k ω_k ∂²g/∂ω_k∂m = ∂g/∂m (the model is linear in ω)
        keys.append((p1, p2))
    random.seed(seed)
    values = {v: sp.Rational(random.randint(-9, 9), 7) for v in params}
    gens = [r, x1, x2, *E.values()]
    polys = []
    for key in keys:
        term = sp.diff(g, *key)
        for k2 in z:
            term = term.subs(phi(z[k2]), E[k2])
        term = sp.expand(sp.cancel(sp.together(term.subs(s_of(q), (1 - r) / r))))
        polys.append((key, sp.Poly(term.subs(values), *gens), sp.Poly(term, *gens)))
    return keys, polys, m


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_exp_model_taylor_terms_are_independent_as_polynomials_in_r_x_and_the_exponentials(seed):
    """The algebraic half of docs/confirm.md's argument for exp(z): every term is a polynomial in r (no s left), the
    M-derivatives have no r⁰ part, and the terms — merged where equal up to a constant, zero ones dropped — are
    linearly independent over the monomials r^j x^α E_ik (exact rank at a random rational truth)."""
    keys, polys, m = _exp_head_terms(seed)
    for key, _, symbolic in polys:
        assert not symbolic.as_expr().has(sp.exp)
        if any(p in m for p in key):
            assert all(monomial[0] >= 1 for monomial in symbolic.monoms()), key
    monomials = sorted({mono for _, P, _ in polys for mono in P.monoms()})
    rows = [[P.coeff_monomial(mono) for mono in monomials] for _, P, _ in polys]
    kept = []
    for row in rows:
        if not any(row) or any(sp.Matrix([row, rows[j]]).rank() < 2 for j in kept):
            continue
        kept.append(rows.index(row))
    matrix = sp.Matrix([rows[j] for j in kept])
    assert matrix.rank() == len(
        kept
    )  # independent (with the ∂²g/∂ω∂m terms kept: rank 49 of 52, the ω-linearity relations)
    assert len(kept) == 46
