"""The shipped declarations mha, setting1, setting2 compiled by numeric against the hand-written models.

numeric/model/attention.py computes the three regression functions and their Jacobians by hand
(docs/method.md §7); the declared array code (numeric/model/layout.py, nested.py, regression.py)
builds them from the declaration: the inner quadratic-softmax gate, the inner experts, the outer
expert of the inner mixture, the head's M tied over its channels. Values and every Jacobian
column agree to ‖declared − hand-written‖∞ ≤ 1e-12 ‖hand-written‖∞ at random parameters, for
d = 1 and 2, K = 1 and 2 channels per head (H = 2 heads, N = 2 gates), and for N = 3;
attention_model (what confirm and ratio compute with) at other shapes of heads, gates, inputs.
"""

import tomllib

import numpy as np
import pytest

from identcheck.declaration import example_path, parse_declaration
from numeric.model import compile_model, jacobian, normal_equations, regression_function
from numeric.model.attention import Model
from numeric.model.attention_declared import (
    DECLARATIONS,
    DeclaredAttention,
    attention_model,
    declared_layout,
    declared_order,
    from_declared,
    to_declared,
)
from numeric.model.attention_params import HMoEParams

RELATIVE = 1e-12


def _declaration(kind, d, N=2):
    """The shipped declaration of ``kind`` in d dimensions with N gates (d = 2, N = 2: as shipped)."""
    data = tomllib.loads(example_path(DECLARATIONS[kind]).read_text(encoding="utf-8"))
    part = data["parts"]["channels"]
    if d == 1:
        data["inputs"]["dim"] = 1
        for atom in part["truth"]:
            atom["a"] = [[row[0]] for row in atom["a"]]
        for group in part["groups"]["truth"]:
            group["M"] = [[[matrix[0][0]]] for matrix in group["M"]]
    if N == 3:
        part["inner"]["components"] = 3
        for atom, extra in zip(part["truth"], ([0.3, -0.2], [-0.7, 0.4], [0.9, 0.1], [-0.4, -0.8])):
            atom["a"] = atom["a"] + [extra[:d]]
        for group in part["groups"]["truth"]:
            group["M"] = [group["M"][0], [[0.5, 0.2], [0.2, 0.3]], group["M"][1]]
    return compile_model(parse_declaration(data))


def _random(H, N, K, d, seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(H, N, d, d))
    M = (M + M.transpose(0, 1, 3, 2)) / 2
    M[:, -1] = 0.0
    return HMoEParams(rng.uniform(0.5, 3.0, size=(H, K)), M, rng.normal(scale=1.5, size=(H, N, K, d)))


def _close(declared, hand):
    assert np.max(np.abs(declared - hand)) <= RELATIVE * np.max(np.abs(hand))


CASES = [(kind, d, K) for kind in DECLARATIONS for d in (1, 2) for K in (1, 2)]


@pytest.mark.parametrize("kind, d, K", CASES)
def test_values_and_jacobians_are_the_hand_written_ones(kind, d, K):
    model = _declaration(kind, d)
    layout = declared_layout(model, 2, K)
    X = np.random.default_rng(3).uniform(-1.0, 1.0, size=(1500, d))
    order = declared_order(model, layout, 2)
    assert sorted(order) == list(range(layout.size))  # a permutation of the hand-written θ
    for seed in range(2):
        params = _random(2, 2, K, d, seed)
        theta = to_declared(model, layout, params)
        np.testing.assert_array_equal(theta, params.to_vector()[order])
        hand_value, hand_jacobian = Model(kind).value_and_jacobian(params, X)
        _close(regression_function(layout, layout.unpack(theta), X), hand_value)
        value, Jt = jacobian(layout, theta, X)
        _close(value, hand_value)
        assert Jt.shape == (params.size, len(X))
        for column in range(params.size):  # every column, each against its own scale
            _close(Jt[column], hand_jacobian[:, order[column]])


def test_three_gates_per_head():
    model = _declaration("gated2", 2, N=3)
    layout = declared_layout(model, 2, 2)
    X = np.random.default_rng(4).uniform(-1.0, 1.0, size=(1000, 2))
    params = _random(2, 3, 2, 2, seed=5)
    order = declared_order(model, layout, 3)
    hand_value, hand_jacobian = Model("gated2").value_and_jacobian(params, X)
    value, Jt = jacobian(layout, to_declared(model, layout, params), X)
    _close(value, hand_value)
    _close(Jt, hand_jacobian[:, order].T)


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_normal_equations_in_blocks_are_the_hand_written_ones(kind):
    """JᵀJ and Jᵀr over several blocks, permuted: the same sums."""
    model = _declaration(kind, 2)
    layout = declared_layout(model, 2, 3)
    rng = np.random.default_rng(6)
    X, Y = rng.uniform(-1.0, 1.0, size=(2500, 2)), rng.normal(size=2500)
    params = _random(2, 2, 3, 2, seed=7)
    order = declared_order(model, layout, 2)
    r, JtJ, Jtr = normal_equations(layout, to_declared(model, layout, params), X, Y, chunk=1000)
    hand_r, hand_JtJ, hand_Jtr = Model(kind).normal_equations(params, X, Y, chunk=700)
    _close(r, hand_r)
    _close(JtJ, hand_JtJ[np.ix_(order, order)])
    _close(Jtr, hand_Jtr[order])


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_the_map_goes_back(kind):
    model = _declaration(kind, 2)
    layout = declared_layout(model, 2, 3)
    params = _random(2, 2, 3, 2, seed=8)
    back = from_declared(model, layout, to_declared(model, layout, params))
    for name in ("omega", "M", "a"):
        np.testing.assert_array_equal(getattr(back, name), getattr(params, name))


def test_a_tied_entry_is_one_per_head():
    """A head's M is one entry of θ, read by each of its channels; the truth's channels keep their heads."""
    model = _declaration("gated1", 2)
    layout = declared_layout(model, 2, 3)
    part = layout.parts[0]
    assert part.group_of == (0, 0, 0, 1, 1, 1) and part.groups == 2
    assert layout.size == 2 * 3 * (1 + 2 * 2) + 2 * 3  # per channel ω and two a's; per head M's triangle
    theta = np.arange(layout.size, dtype=float)
    rows = layout.unpack(theta).atoms[0]
    tied = list(part.tied_columns)
    assert [part.columns[c] for c in tied] == ["M_c1_11", "M_c1_12", "M_c1_22"]
    np.testing.assert_array_equal(rows[0, tied], rows[2, tied])
    assert not np.array_equal(rows[0, tied], rows[3, tied])
    np.testing.assert_array_equal(layout.pack(layout.unpack(theta)), theta)
    truth = model.layout(False).parts[0]
    assert truth.group_of == (0, 0, 1, 1) and model.layout(False).size == 4 * 5 + 2 * 3


@pytest.mark.parametrize("kind", ["mha", "gated1", "gated2"])
@pytest.mark.parametrize("shape", [(3, 2, 1, 2), (1, 3, 2, 2), (2, 3, 1, 1)])
def test_any_shape_is_the_hand_written_model(kind, shape):
    """confirm's lifted probes have other H, N, K, d than the shipped truth: attention_model compiles
    the declaration of that shape, and its values, Jacobians and φ are the hand-written model's."""
    H, N, K, d = shape
    params = _random(H, N, K, d, seed=11)
    X = np.random.default_rng(5).uniform(-1, 1, size=(400, d))
    declared, hand = attention_model(kind, "tanh(z)"), Model(kind, "tanh(z)")
    assert isinstance(declared, DeclaredAttention)
    value, J = declared.value_and_jacobian(params, X)
    hand_value, hand_J = hand.value_and_jacobian(params, X)
    _close(value, hand_value)
    _close(J, hand_J)
    z = np.linspace(-2, 2, 9)
    assert np.allclose(declared.activation().numpy_derivative(2)(z), hand.activation().numpy_derivative(2)(z))


def test_named_constants_fall_back_to_the_hand_written_model():
    model = attention_model("gated1", "sigmoid(z + b)", {"b": "1"})
    assert isinstance(model, Model) and model.params == {"b": "1"}
