"""Least-squares fits of the shipped declarations mha, setting1, setting2 against numeric's hand-written fits.

Same data (numeric.experiments.data.sample), same start (numeric.fitting.attention_fit.initial_params)
and same box (Box.around), mapped to the declared flat vector by numeric.model.attention_declared:
the declared least squares (numeric/fitting/least_squares.py, on the declared normal equations)
and the hand-written lm (numeric/fitting/optimizers.py, on attention.py's) end at the same MSE to
1e-9 relative after the same number of iterations, and at the same parameters; the hand-written lm
run on the declared array code through DeclaredAttention does too. The declared losses
(numeric/losses/nested_voronoi.py: the shipped ``loss``, ``function_cells`` and ``measure``) equal
numeric/losses' L1,r / L2, L2 on function cells and the measure-level loss to 1e-12 relative at
fixed parameters (switched-off channels and three gates included) and to 1e-6 after the fits.
"""

import numpy as np
import pytest

from identcheck.declaration import digest, read_example
from numeric.experiments.data import sample
from numeric.fitting.attention_box import Box
from numeric.fitting.attention_fit import fit, initial_params
from numeric.fitting.box import declared_box
from numeric.fitting.fit import fit_declared
from numeric.fitting.least_squares import least_squares
from numeric.fitting.optimizers import optimise
from numeric.fitting.starts import paper_start
from numeric.losses import voronoi_loss as declared_loss
from numeric.losses.attention_cells import function_assignment
from numeric.losses.attention_voronoi import voronoi_loss
from numeric.losses.measure import measure_loss
from numeric.model import compile_model
from numeric.model.attention import Model
from numeric.model.attention_declared import (
    DECLARATIONS,
    DeclaredAttention,
    attention_code,
    declaration_for,
    declared_layout,
    declared_model,
    declared_order,
    from_declared,
    to_declared,
)
from numeric.model.attention_params import HMoEParams
from numeric.model.attention_truth import load_truth

N_SAMPLES, K = 3000, 3


def _hand_fit(kind, seed):
    truth = load_truth()
    P = truth.params
    m = truth.model(kind)
    X, Y = sample(truth, m, N_SAMPLES, seed)
    box = Box.around(P, P.H, P.N, K)
    theta0 = initial_params(P, K, N_SAMPLES, seed, box)
    shape = (P.H, P.N, K, P.dim)
    theta, iterations, converged = optimise("lm", m, X, Y, theta0, shape, box)
    mse = float(np.mean((m.value(HMoEParams.from_vector(theta, *shape), X) - Y) ** 2))
    return X, Y, box, theta0, theta, iterations, converged, mse


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_the_declared_least_squares_fit_is_the_hand_written_one(kind):
    X, Y, box, theta0, theta, iterations, converged, mse = _hand_fit(kind, seed=2)
    model = declared_model(kind)
    layout = declared_layout(model, 2, K)
    order = declared_order(model, layout, 2)
    out = least_squares(layout, theta0[order], X, Y, Box(box.lo[order], box.hi[order]))
    assert abs(out.mse - mse) <= 1e-9 * mse
    assert (out.iterations, out.converged) == (iterations, converged)
    fitted = from_declared(model, layout, out.theta)
    np.testing.assert_allclose(fitted.to_vector(), theta, rtol=1e-6, atol=1e-8)
    hand = HMoEParams.from_vector(theta, 2, 2, K, 2)
    for declared, expected in zip(_declared_losses(kind, model, layout.unpack(out.theta)), _hand_losses(kind, hand)):
        assert abs(declared - expected) <= 1e-6 * expected


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_the_hand_written_optimiser_on_the_declared_code(kind):
    X, Y, box, theta0, theta, iterations, converged, mse = _hand_fit(kind, seed=3)
    truth = load_truth()
    shape = (2, 2, K, 2)
    declared = DeclaredAttention(kind, truth.phi)
    out, its, conv = optimise("lm", declared, X, Y, theta0, shape, box)
    value = declared.value(HMoEParams.from_vector(out, *shape), X)
    assert abs(float(np.mean((value - Y) ** 2)) - mse) <= 1e-9 * mse
    assert (its, conv) == (iterations, converged)


def _hand_losses(kind, params):
    P = load_truth().params
    name = "L1" if kind == "mha" else "L2"
    out = [
        voronoi_loss(params, P, name),
        voronoi_loss(params, P, name, assignment=function_assignment(Model(kind), params, P)),
    ]
    return out + ([measure_loss(params, P)] if kind != "mha" else [])


def _declared_losses(kind, model, params):
    other = model.declaration.other_loss
    out = [declared_loss(model, params).value, declared_loss(model, params, other("function_cells")).value]
    return out + ([declared_loss(model, params, other("measure")).value] if kind != "mha" else [])


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_the_declared_losses_are_the_hand_written_ones(kind):
    """At perturbed truths (spread 0.2 to 1.5), with two channels switched off (ω = 0) and two equal."""
    P = load_truth().params
    model = declared_model(kind)
    layout = declared_layout(model, 2, K)
    box = Box.around(P, P.H, P.N, K)
    for seed, scale in enumerate((0.2, 0.6, 1.0, 1.5)):
        theta = initial_params(P, K, 100, seed, box, init="fixed", init_scale=scale)
        params = HMoEParams.from_vector(theta, 2, 2, K, 2)
        if seed % 2:
            omega, a = params.omega.copy(), params.a.copy()
            omega[0, 1] = omega[1, 2] = 0.0
            a[1, :, 1] = a[1, :, 0]  # two channels of a head at one location: one atom of the measure
            params = HMoEParams(omega, params.M, a)
        declared = _declared_losses(kind, model, layout.unpack(to_declared(model, layout, params)))
        for value, expected in zip(declared, _hand_losses(kind, params)):
            assert expected > 0 and abs(value - expected) <= 1e-12 * expected


@pytest.mark.parametrize("kind", DECLARATIONS)
def test_numeric_fit_computes_with_the_declaration_and_matches_the_hand_written_fit(kind):
    """fit() (what ``numeric fit --model`` runs) on the shipped declaration against code="hand-written"."""
    declared = fit(kind, K, N_SAMPLES, seed=4)
    hand = fit(kind, K, N_SAMPLES, seed=4, code="hand-written")
    assert abs(declared.mse - hand.mse) <= 1e-9 * hand.mse
    assert abs(declared.truth_mse - hand.truth_mse) <= 1e-9 * hand.truth_mse
    for name in ("voronoi_loss", "start_voronoi_loss", "regression_l2"):
        assert abs(getattr(declared, name) - getattr(hand, name)) <= 1e-6 * getattr(hand, name)
    assert (declared.iterations, declared.converged, declared.active_bounds) == (
        hand.iterations,
        hand.converged,
        hand.active_bounds,
    )
    assert isinstance(attention_code(kind, load_truth()), DeclaredAttention)


def test_the_fit_s_declaration_is_the_shipped_one_for_the_default_truth():
    truth = load_truth()
    for kind, name in DECLARATIONS.items():
        assert digest(declaration_for(kind, truth)) == digest(read_example(name))
    tanh = truth.with_phi("tanh(z)")
    assert digest(declaration_for("gated1", tanh)) == digest(read_example("setting1", {"phi": "tanh(z)"}))
    constants = truth.with_phi("sigmoid(z + b)", {"b": "1"})
    assert isinstance(attention_code("gated1", constants), Model)  # a declared φ has no named constants


def test_the_vector_jacobian_product_is_the_hand_written_one():
    truth = load_truth()
    params = HMoEParams.from_vector(
        initial_params(truth.params, K, 100, 0, Box.around(truth.params, 2, 2, K)), 2, 2, K, 2
    )
    X = np.random.default_rng(9).uniform(-1.0, 1.0, size=(70_000, 2))  # more than one block
    w = np.random.default_rng(10).normal(size=len(X))
    for kind in DECLARATIONS:
        value, vjp = DeclaredAttention(kind).value_and_vjp(params, X)
        hand_value, hand_vjp = Model(kind).value_and_vjp(params, X)
        np.testing.assert_allclose(value, hand_value, rtol=1e-12, atol=1e-12 * np.abs(hand_value).max())
        expected = hand_vjp(w)
        assert np.max(np.abs(vjp(w) - expected)) <= 1e-10 * np.max(np.abs(expected))


def test_a_declared_fit_of_the_shipped_file_runs_on_its_tied_layout():
    """``numeric fit --model-file setting1.toml``: the box and the papers' start in the tied layout (one
    M per head, each head starting at a true head's M), a fit at least as good as the truth."""
    model = compile_model(read_example("setting1"))
    layout = model.layout(True)
    box = declared_box(model, layout)
    assert box.lo.shape == box.hi.shape == (layout.size,) == (2 * 3 * 5 + 2 * 3,)
    start = layout.unpack(paper_start(model, layout, box, 10**12, np.random.default_rng(0), c=0.0))
    truth = model.truth().atoms[0]
    tied = layout.parts[0].tied_columns
    np.testing.assert_array_equal(start.atoms[0][:3, tied], truth[[0, 0, 0]][:, tied])  # head 1 at true head 1
    np.testing.assert_array_equal(start.atoms[0][3:, tied], truth[[2, 2, 2]][:, tied])
    np.testing.assert_allclose(start.atoms[0][:, 0], [1.0, 3.0, 1.0, 2.0, 2.4, 2.0])  # ω split over copies
    result = fit_declared(model, 1000, seed=1)
    assert result.converged and not result.worse_than_truth
