"""Witness paths: lifts, exact invariances, closed-form ratios, the first-order limit."""

import json

import numpy as np
import pytest
import sympy as sp

from identcheck import Component, Relation
from identcheck import check as identcheck_check
from numeric.confirm.curves import first_order_limit, ratio_curve
from numeric.confirm.splits import compensated_split as _compensated_split
from numeric.confirm.witness import (
    NULL_TOL,
    Path,
    _euler_path,
    _weight_path,
    lift_probe,
    relation_construction,
)
from numeric.losses.attention_voronoi import voronoi_loss
from numeric.model.attention import Model
from numeric.model.attention_params import HMoEParams, NumericError

R = sp.Rational
X = np.random.default_rng(3).uniform(-1, 1, size=(4000, 2))
TS = (1e-1, 1e-2, 1e-3)


class FakeProbe:
    def __init__(self, name, components):
        self.name, self.components = name, tuple(components)


M1 = ((R(1, 2), R(1, 4)), (R(1, 4), R(-3, 4)))
ZERO = ((R(0), R(0)), (R(0), R(0)))
A1 = (R(1), R(-3, 4))


def _truth():
    M = np.zeros((1, 2, 2, 2))
    M[0, 0] = [[0.5, 0.25], [0.25, -0.75]]
    a = np.array([[[[1.0, -0.75], [0.5, 0.5]], [[-0.25, 1.0], [0.75, -0.5]]]])
    return HMoEParams(np.array([[1.0, 1.5]]), M, a)


def test_lift_of_a_pair_a2_minus_a1_keeps_the_pair_at_the_filler_gate():
    probe = FakeProbe("shared M, a2 = -a1", [Component(M1, A1), Component(M1, tuple(-v for v in A1))])
    lift = lift_probe(probe, "type1")
    G = lift.params
    assert (G.H, G.N, G.K) == (1, 2, 2)
    assert lift.slots == ((0, 0, 0), (0, 0, 1))
    np.testing.assert_array_equal(G.a[0, 0], [[1, -0.75], [-1, 0.75]])
    np.testing.assert_array_equal(G.a[0, 1], [[0.75, -0.5625], [-0.75, 0.5625]])  # fillers 3/4·a, pair kept
    np.testing.assert_array_equal(G.M[0, 0], [[0.5, 0.25], [0.25, -0.75]])
    np.testing.assert_array_equal(G.M[0, 1], 0)
    np.testing.assert_array_equal(G.omega, [[1.0, 1.5]])


def test_lift_puts_M_zero_at_the_last_gate_and_distinct_M_in_heads():
    M2 = ((R(-1, 2), R(0)), (R(0), R(1, 4)))
    probe = FakeProbe("gate beside", [Component(ZERO, A1), Component(M2, (R(1, 8), R(5, 8)))])
    lift = lift_probe(probe, "type1")
    assert lift.slots == ((0, 1, 0), (0, 0, 0))
    only_zero = lift_probe(FakeProbe("M = 0", [Component(ZERO, A1)]), "type1").params
    assert np.any(only_zero.M[0, 0] != 0)  # (A.4): a default M_1 is supplied


def _relation(keys, coefficients, family=None, labels=None):
    labels = labels or [f"t{i}" for i in range(len(keys))]
    return Relation(tuple(zip(labels, coefficients)), None, family, None, False, keys=tuple(keys))


@pytest.mark.parametrize(
    "condition, keys, family, construction",
    [
        ("type1", [(0, ()), (1, ())], None, "weights"),
        ("type1", [(0, ()), (0, (("a", 0),)), (0, (("a", 1),))], "Euler/homogeneity", "euler-scale"),
        ("type1", [(0, ()), (1, (("a", 0),)), (1, (("M", 0, 0),))], None, "first-order"),
        ("type1", [(0, ()), (0, (("a", 0), ("a", 0))), (0, (("M", 0, 0),))], "heat", "split"),
        ("type2", [("phi", 0), ("phi", 1)], None, "weights"),
        ("type2", [("phi", 0), ("u", 0, 0, (("a", 0),))], "Euler/homogeneity", "euler-scale"),
        ("type2", [("phi", 0), ("u", 0, 0, (("a", 0),))], None, "null-vector"),
    ],
)
def test_constructions_are_chosen_by_the_terms_structure_not_their_labels(condition, keys, family, construction):
    """The labels are meaningless here: only the keys say which term is which."""
    assert relation_construction(_relation(keys, [1.0, -0.5, 0.25][: len(keys)], family), condition) == construction


@pytest.mark.parametrize("phi, condition", [("z", "type1"), ("z**2", "type1"), ("z", "type2")])
def test_a_relation_read_back_from_json_keeps_its_typed_keys_and_its_construction(phi, condition):
    """identcheck.check/3 stores every relation's keys; read back, they are the live relation's
    tuples (not lists, not names), and the witness construction is the same."""
    result = identcheck_check(phi, condition=condition, dim=1 if condition == "type2" else 2)
    relations = [r for p in result.probes for r in p.relations]
    assert relations
    for live in relations:
        back = Relation.from_dict(json.loads(json.dumps(live.to_dict())))
        assert back.keys == live.keys and back == live
        assert all(isinstance(key, tuple) for key in back.keys)
        assert relation_construction(back, condition) == relation_construction(live, condition)
    typed = {v for r in relations for key in r.keys if isinstance(key[0], int) for v in key[1]}
    assert condition != "type1" or typed <= {("a", 0), ("a", 1), ("M", 0, 0), ("M", 0, 1), ("M", 1, 1)}


def test_a_relation_without_keys_is_refused_by_name():
    relation = Relation((("ū", 1.0), ("ū[2]", -1.0)), None, None, None, False)
    with pytest.raises(NumericError, match="no structural keys"):
        relation_construction(relation, "type1")


def test_euler_path_for_z_is_an_exact_invariance_with_the_hand_loss():
    G, model = _truth(), Model("gated1", "z")
    path = _euler_path(G, [(0, 0)], 1.0, "Euler")
    curve = ratio_curve(model, path, TS, X)
    assert curve.exact_invariance and curve.slope is None and curve.ratio == (0.0, 0.0, 0.0)
    for t, loss in zip(TS, curve.loss):  # |ω/s − ω| + (ω/s)·Σ_i ‖t·a_i‖ (one member per cell, linear)
        s, w = 1 + t, 1.0
        expected = abs(w / s - w) + (w / s) * t * sum(np.linalg.norm(G.a[0, i, 0]) for i in range(2))
        assert loss == pytest.approx(expected, rel=1e-12)
    assert first_order_limit(model, path, X)[1] <= NULL_TOL


def test_euler_path_is_not_invariant_for_a_non_homogeneous_phi():
    """Break-it check: the same path with φ = tanh moves the function (ratio bounded, slope ≈ 0)."""
    G, model = _truth(), Model("gated1", "tanh(z)")
    curve = ratio_curve(model, _euler_path(G, [(0, 0)], 1.0, "Euler"), TS, X)
    assert not curve.exact_invariance and abs(curve.slope) < 0.1


def test_weight_path_for_an_odd_phi_at_a_minus_a_pair_is_exact():
    G = _truth()
    a = G.a.copy()
    a[0, :, 1] = -a[0, :, 0]
    G = HMoEParams(G.omega, G.M, a)
    curve = ratio_curve(Model("gated1", "tanh(z)"), _weight_path(G, {(0, 0): 1.0, (0, 1): 1.0}, "symmetry"), TS, X)
    assert curve.exact_invariance
    assert curve.loss == pytest.approx(tuple(2 * t for t in TS), rel=1e-12)  # |Δω₁| + |Δω₂|
    even = ratio_curve(Model("gated1", "tanh(z)"), _weight_path(G, {(0, 0): 1.0, (0, 1): -1.0}, "symmetry"), TS, X)
    assert not even.exact_invariance  # the sign the relation does not give moves g


def test_straight_scale_line_has_the_closed_form_ratio():
    """Along θ + t·d, d = (δa = a, δω = −ω) of channel 1, φ = z: Δg = −t²·ω·G₁(x) exactly."""
    G, model = _truth(), Model("gated1", "z")
    d = np.zeros(G.size)
    d[0] = -G.omega[0, 0]
    a_index = [G.H * G.K + G.H * 3 + (i * G.K + 0) * 2 + j for i in range(2) for j in range(2)]
    d[a_index] = G.a[0, :, 0].ravel()
    theta = G.to_vector()
    path = Path("witness", "line", "first-order", G, lambda t: HMoEParams.from_vector(theta + t * d, 1, 2, 2, 2), "", d)
    channel = HMoEParams(np.array([[1.0, 0.0]]), G.M, G.a)
    g1 = np.sqrt(np.mean(model.value(channel, X) ** 2))
    curve = ratio_curve(model, path, TS, X)
    for t, ratio in zip(TS, curve.ratio):
        loss = t * 1.0 + (1 - t) * t * sum(np.linalg.norm(G.a[0, i, 0]) for i in range(2))
        assert ratio == pytest.approx(t * t * g1 / loss, rel=1e-8)
    assert curve.slope == pytest.approx(1.0, abs=0.02)
    limit, sensitivity = first_order_limit(model, path, X)
    assert limit == 0.0 and sensitivity <= NULL_TOL


def test_uncompensated_split_changes_g_by_the_second_order_term_exactly():
    """φ = z²: ½ω[((a + √t v)ᵀx)² + ((a − √t v)ᵀx)²] − ω(aᵀx)² = ω·t·(vᵀx)² at gate 1 of channel 1."""
    G, model = _truth(), Model("gated1", "z**2")
    v = np.array([[0.6, 0.8], [0.0, 0.0]])
    path = _compensated_split(model, G, 0, 0, v, X, "random", "split", compensate=False)
    q = X @ np.array([[0.5, 0.25], [0.25, -0.75]]) * X
    sigma1 = 1 / (1 + np.exp(-q.sum(axis=1)))
    for t in TS:
        delta = model.value(path.build(t), X) - model.value(G, X)
        np.testing.assert_allclose(delta, 1.0 * t * sigma1 * (X @ v[0]) ** 2, rtol=1e-9, atol=1e-15)
    # t → 0 limit: ‖Q‖ / ℓ with Q = ω σ₁ (vᵀx)² and ℓ = lim L2/t = 2·(ω/2)·‖v‖² = 1 (|V| = 2 cell, squared)
    assert path.limit == pytest.approx(np.sqrt(np.mean((sigma1 * (X @ v[0]) ** 2)[:20_000] ** 2)), rel=1e-5)
    assert path.sensitivity == 1.0
    linear = _compensated_split(Model("gated1", "z"), G, 0, 0, v, X, "random", "split", compensate=False)
    assert linear.limit == 0.0
    assert ratio_curve(Model("gated1", "z"), linear, TS, X).exact_invariance


def test_random_direction_is_not_a_null_direction():
    G, model = _truth(), Model("gated1", "sigmoid(z + 1)")
    d = np.random.default_rng(0).standard_normal(G.size)
    theta = G.to_vector()
    path = Path("random", "r", "line", G, lambda t: HMoEParams.from_vector(theta + t * d, 1, 2, 2, 2), "", d)
    limit, sensitivity = first_order_limit(model, path, X)
    assert sensitivity > 1e-3 and limit > 0
    curve = ratio_curve(model, path, TS, X)
    assert curve.ratio[-1] == pytest.approx(limit, rel=0.05)  # the measured ratio reaches the t → 0 limit
    assert voronoi_loss(path.build(0.0), G, "L2") == 0.0


def test_first_order_witness_is_a_null_direction_by_finite_differences():
    """sigmoid(z): the lifted first-order symmetry relation, projected on the Jacobian's null space.
    Second method: central differences of g along d are ~1e-9 of those along a random direction."""
    from identcheck import check
    from numeric.confirm.witness import witness_path

    result = check("sigmoid(z)")
    probe = next(p for p in result.probes if p.name == result.witness)
    model = Model("gated1", "sigmoid(z)")
    lift = lift_probe(probe, "type1")
    relation = next(r for r in probe.relations if "²" not in str(r) and "∂" in str(r))
    path = witness_path(model, lift, (relation,), "type1", X)
    assert path.construction == "first-order"
    theta, h = lift.params.to_vector(), 1e-4
    shape = (lift.params.H, lift.params.N, lift.params.K, lift.params.dim)

    def derivative(d):
        up = model.value(HMoEParams.from_vector(theta + h * d, *shape), X)
        down = model.value(HMoEParams.from_vector(theta - h * d, *shape), X)
        return np.sqrt(np.mean(((up - down) / (2 * h)) ** 2))

    random = np.random.default_rng(1).standard_normal(theta.size)
    assert derivative(path.direction) < 1e-6 * derivative(random / np.linalg.norm(random))
    curve = ratio_curve(model, path, TS, X)
    assert curve.limit == 0.0 and curve.slope == pytest.approx(1.0, abs=0.05)
    # a lifted vector off the null space is projected back onto it
    from numeric.confirm.witness import _null_space_path

    off = path.direction + 0.3 * random / np.linalg.norm(random)
    projected = _null_space_path(model, lift.params, off, X, "test")
    assert derivative(projected.direction) < 1e-6 * derivative(random / np.linalg.norm(random))
    assert derivative(off) > 1e-2 * derivative(random / np.linalg.norm(random))


def test_m_entries_map_to_their_place_in_theta_at_any_dimension():
    """By hand: the upper triangle row by row, (1,1) (1,2) (1,3) (2,2) (2,3) (3,3) at d = 3; and
    the same as params' own layout (np.triu_indices)."""
    from numeric.confirm.witness import _m_index

    entries = [("M", 0, 0), ("M", 0, 1), ("M", 0, 2), ("M", 1, 1), ("M", 1, 2), ("M", 2, 2)]
    assert [_m_index(n, 3) for n in entries] == [0, 1, 2, 3, 4, 5]
    assert [_m_index(n, 2) for n in (("M", 0, 0), ("M", 0, 1), ("M", 1, 1))] == [0, 1, 2]
    rows, cols = np.triu_indices(4)
    assert [_m_index(("M", int(r), int(c)), 4) for r, c in zip(rows, cols)] == list(range(10))
