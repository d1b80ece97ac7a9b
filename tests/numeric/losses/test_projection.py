"""The Kullback–Leibler projection target (numeric.losses.projection), checked by independent means:
a truth already in the class projects to itself, the quadrature's expectation against a Monte Carlo
mean on a large sample, the analytic gradient against finite differences."""

import numpy as np
import pytest
from scipy.special import expit, logit

from identcheck.declaration import parse_declaration, read_example
from numeric.losses import voronoi_loss
from numeric.losses.projection import kl_projection, projection_objective, quadrature
from numeric.model import ModelParams, compile_model, log_likelihood, sample_declared

IN_CLASS = """
name = "in-class"
[inputs]
kind = "uniform"
dim = 1
low = -2.0
high = 2.0
[noise]
kind = "gaussian-mixture"
variance_floor = 0.001
[parts.experts]
expert = "dot(a, x) + b"
fitted = {fitted}
gate = {{ kind = "normalized-sigmoid" }}
truth = [
  {{ beta1 = 2.0, beta0 = -0.5, a = 1.0, b = 0.5, nu = 0.2 }},
  {{ beta1 = -1.0, beta0 = 0.5, a = -1.5, b = -0.5, nu = 0.3 }},
]
[loss]
symmetries = ["permutations"]
[loss.parts.experts]
target = "kl-projection"
mass = "none"
weight = "none"
terms = [{{ params = ["beta1", "beta0", "a", "b", "nu"], exact = 1, over = 1 }}]
"""

ORDER = (4, 10, 16)


def _model(fitted=2):
    return compile_model(parse_declaration(IN_CLASS.format(fitted=fitted)))


def test_a_truth_in_the_class_is_its_own_projection():
    model = _model()
    projection = kl_projection(model, 0, order=ORDER, starts=1)
    truth = model.truth().atoms[0]
    rows = projection.rows()
    order = np.argsort(rows[:, 0])[::-1]  # by beta1: the truth's order (2, -1)
    assert rows[order] == pytest.approx(truth, abs=1e-3)  # KL is flat to second order: |ΔJ| ~ 1e-9 here
    assert abs(projection.kl) < 1e-9
    assert projection.gradient_norm < 1e-6
    # the loss against the projection is (about) zero at the truth, positive away from it
    assert voronoi_loss(model, model.truth()).value < 1e-4
    moved = truth.copy()
    moved[0, 2] += 0.1
    assert voronoi_loss(model, ModelParams((moved,), np.array([1.0]))).value == pytest.approx(0.1, abs=1e-4)


def test_the_quadrature_expectation_matches_a_monte_carlo_mean():
    model = _model(fitted=3)
    rows = np.array([[2.2, -0.9, 1.1, 0.4, 0.25], [-1.0, 0.5, -1.5, -0.5, 0.3], [1.5, -1.5, 0.8, 0.6, 0.2]])
    value, _, kl = projection_objective(model, 0, rows, order=ORDER)
    X, Y = sample_declared(model, 400_000, seed=3)
    layout = model.layout(True)
    params = ModelParams((rows,), np.array([1.0]))
    mc = log_likelihood(layout, params, X, Y) / len(Y)
    truth_mc = log_likelihood(model.layout(False), model.truth(), X, Y) / len(Y)
    assert -value == pytest.approx(mc, abs=5e-3)  # E* log f_G by two methods (MC s.e. ≈ 1.5e-3)
    assert kl == pytest.approx(truth_mc - mc, abs=2e-3)  # the difference: a common sample, smaller error
    assert kl > 0
    _, _, W = quadrature(model, ORDER)
    assert W.sum() == pytest.approx(1.0, abs=1e-12)


def test_the_gradient_matches_finite_differences():
    model = _model(fitted=3)
    rows = np.array([[2.2, -0.9, 1.1, 0.4, 0.25], [-1.0, 0.5, -1.5, -0.5, 0.3], [1.5, -1.5, 0.8, 0.6, 0.2]])
    _, grad, _ = projection_objective(model, 0, rows, order=ORDER)
    step = 1e-6
    numeric = np.empty(rows.size)
    for i in range(rows.size):
        up, down = rows.copy().ravel(), rows.copy().ravel()
        up[i] += step
        down[i] -= step
        numeric[i] = (
            projection_objective(model, 0, up.reshape(rows.shape), order=ORDER)[0]
            - projection_objective(model, 0, down.reshape(rows.shape), order=ORDER)[0]
        ) / (2 * step)
    assert grad == pytest.approx(numeric, abs=1e-6)


@pytest.mark.slow
def test_deepseek_d4s_projection_is_a_stationary_point_below_the_split_truth():
    model = compile_model(read_example("deepseek-d4"))
    index = [p.name for p in model.declaration.parts].index("routed")
    projection = kl_projection(model, index)
    assert projection.gradient_norm < 1e-5
    assert projection.kl_change < 1e-5
    truth = model.truth().atoms[index]
    split = np.vstack([truth, truth[:1]])
    split[[0, 2], 1] = logit(expit(truth[0, 1]) / 2)  # the papers' start: σ(β0) halved over the two copies
    _, _, kl_split = projection_objective(model, index, split)
    assert 0 < projection.kl < kl_split


def test_the_projections_box_is_the_fits_box():
    from numeric.fitting import declared_box
    from numeric.losses.projection import _box

    for model in (_model(fitted=3), compile_model(read_example("deepseek-d4"))):
        layout = model.layout(True)
        box = declared_box(model, layout)
        for index, part in enumerate(layout.parts):
            lo, hi, _ = _box(model, index)
            span = slice(part.offset, part.offset + part.size)
            assert lo.tolist() == box.lo[span].tolist() and hi.tolist() == box.hi[span].tolist()
