"""Models: analytic Jacobians against finite differences, and the HMoE form of real attention."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric import HMoEParams, Model, NumericError


def random_params(rng, H=2, N=2, K=3, d=2, scale=1.0):
    M = np.zeros((H, N, d, d))
    A = rng.normal(scale=scale, size=(H, N - 1, d, d))
    M[:, : N - 1] = (A + np.swapaxes(A, 2, 3)) / 2
    return HMoEParams(rng.uniform(0.2, 2.0, (H, K)), M, rng.normal(scale=scale, size=(H, N, K, d)))


@settings(max_examples=25)
@given(seed=st.integers(0, 2**31), model=st.sampled_from(["mha", "gated1", "gated2"]), N=st.integers(2, 3))
def test_jacobian_matches_central_differences(seed, model, N):
    rng = np.random.default_rng(seed)
    p = random_params(rng, N=N)
    X = rng.uniform(-1, 1, (20, 2))
    m = Model(model)
    value, J = m.value_and_jacobian(p, X)
    assert np.allclose(value, m.value(p, X))
    theta = p.to_vector()
    h = 1e-6
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        plus = m.value(HMoEParams.from_vector(theta + e, p.H, p.N, p.K, p.dim), X)
        minus = m.value(HMoEParams.from_vector(theta - e, p.H, p.N, p.K, p.dim), X)
        assert np.allclose(J[:, i], (plus - minus) / (2 * h), atol=1e-6, rtol=1e-5), i


def test_other_phi_via_identcheck_parser():
    rng = np.random.default_rng(0)
    p = random_params(rng)
    X = rng.uniform(-1, 1, (5, 2))
    tanh_model = Model("gated1", "tanh(z)")
    s = np.einsum("nd,hikd->nhik", X, p.a)
    q = np.einsum("nj,hijl,nl->nhi", X, p.M, X)
    sigma = np.exp(q) / np.exp(q).sum(axis=2, keepdims=True)
    expected = np.einsum("hk,nhi,nhik->n", p.omega, sigma, np.tanh(s))
    assert np.allclose(tanh_model.value(p, X), expected)
    with pytest.raises(NumericError, match="not differentiable"):
        Model("gated1", "relu(z)")
    with pytest.raises(NumericError, match="unknown"):
        Model("attention")


def _attention_entry(X, WQ, WK, WV, WO, row, col, gate=None, where=None):
    """Output[row, col] of one multi-head attention layer on the token matrix X (T × dbar)."""
    heads = []
    for h in range(len(WQ)):
        scores = (X[row] @ WQ[h]) @ (X @ WK[h]).T / np.sqrt(WQ[h].shape[1])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        values = X @ WV[h]
        if where == "G2":  # gate after the value projection
            values = gate(values)
        out = weights @ values
        if where == "G1":  # gate after the SDPA output
            out = gate(out)
        heads.append(out)
    return np.concatenate(heads) @ WO[:, col]


def _as_hmoe(WQ, WK, WV, WO, row, col, T, dbar):
    """The paper's representation: x = vec(X), one gating component per token, ω = W_O entries."""
    H, dv = len(WQ), WV[0].shape[1]
    d = T * dbar
    select = [np.eye(d)[j * dbar : (j + 1) * dbar] for j in range(T)]  # x_j = E_j x
    M = np.zeros((H, T, d, d))
    a = np.zeros((H, T, dv, d))
    for h in range(H):
        A = WQ[h] @ WK[h].T / np.sqrt(WQ[h].shape[1])
        for j in range(T):
            B = select[row].T @ A @ select[j]
            M[h, j] = (B + B.T) / 2
            for k in range(dv):
                a[h, j, k] = select[j].T @ WV[h][:, k]
        M[h] -= M[h, T - 1]  # softmax is invariant to a common shift: anchor M_{h,N} = 0
    omega = WO[:, col].reshape(H, dv)
    return HMoEParams(omega, M, a)


@pytest.mark.parametrize("where, model", [(None, "mha"), ("G2", "gated1"), ("G1", "gated2")])
def test_every_attention_entry_is_the_hmoe(where, model):
    rng = np.random.default_rng(3)
    T, dbar, H, dk, dv = 3, 2, 2, 2, 2
    WQ = [rng.normal(size=(dbar, dk)) for _ in range(H)]
    WK = [rng.normal(size=(dbar, dk)) for _ in range(H)]
    WV = [rng.normal(size=(dbar, dv)) for _ in range(H)]
    WO = rng.normal(size=(H * dv, dbar))
    gate = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    m = Model(model)
    for _ in range(5):
        X = rng.uniform(-1, 1, (T, dbar))
        for row in range(T):
            for col in range(dbar):
                params = _as_hmoe(WQ, WK, WV, WO, row, col, T, dbar)
                direct = _attention_entry(X, WQ, WK, WV, WO, row, col, gate, where)
                assert m.value(params, X.reshape(1, -1))[0] == pytest.approx(direct, rel=1e-12, abs=1e-12)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**31), model=st.sampled_from(["mha", "gated1", "gated2"]))
def test_vector_jacobian_product_equals_jacobian_transpose(seed, model):
    rng = np.random.default_rng(seed)
    p = random_params(rng)
    X = rng.uniform(-1, 1, (30, 2))
    w = rng.normal(size=30)
    m = Model(model)
    _, J = m.value_and_jacobian(p, X)
    _, vjp = m.value_and_vjp(p, X)
    assert np.allclose(vjp(w), J.T @ w, rtol=1e-12, atol=1e-12)
