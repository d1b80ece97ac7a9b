"""Fits of declared models: recovery for every gate kind, EM's monotone log-likelihood, EM and
direct maximisation agreeing, the papers' start, and a fit's record."""

import json

import numpy as np
import pytest

from identcheck.declaration import digest, read_example
from numeric.fitting import declared_box, em, fit_declared, fix_parameters, maximise, paper_start
from numeric.model import compile_model, log_likelihood, sample_declared
from tests.numeric.model.declarations import GATES, gate_declaration


@pytest.mark.parametrize("kind", list(GATES))
def test_an_exact_fit_recovers_its_truth_better_with_more_data(kind):
    model = compile_model(gate_declaration(kind))
    small, large = (
        np.mean([fit_declared(model, n, seed=seed).loss["value"] for seed in (0, 1)]) for n in (1000, 16000)
    )
    assert large < 0.7 * small, f"{kind}: loss {small:.4g} at n=1000, {large:.4g} at n=16000"


@pytest.mark.slow
@pytest.mark.parametrize("kind", list(GATES))
def test_an_exact_fit_recovers_its_truth_at_n_1e5(kind):
    """The loss reads the experts and variances: a top-1 gate's β are identified only through the sign of
    β1₁ − β1₂ (the kept atom's weight is 1 whatever β0), so gate errors are not asked of every kind."""
    fit = fit_declared(compile_model(gate_declaration(kind)), 100_000, seed=0)
    assert not fit.worse_than_truth
    assert fit.loss["value"] < 0.03


@pytest.mark.slow
def test_deepseekmoe_d1_fits_at_least_as_well_as_its_truth_for_ten_seeds():
    """½ shared κ2·relu(κ1 x + κ0) + ½ softmax-routed η2·relu(η1 x), fitted 2 and 3 around 1 and 2, n = 10⁵."""
    model = compile_model(read_example("deepseek-d1"))
    fits = [fit_declared(model, 100_000, seed=seed) for seed in range(10)]
    assert [f.seed for f in fits if f.worse_than_truth] == []


def _problem(name, n, seed, fitted=True):
    model = compile_model(read_example(name) if isinstance(name, str) else name)
    layout = model.layout(fitted)
    X, Y = sample_declared(model, n, seed)
    box = declared_box(model, layout)
    theta0 = paper_start(model, layout, box, n, np.random.default_rng(seed))
    return model, layout, X, Y, fix_parameters(model, layout, box, theta0), theta0


@pytest.mark.parametrize("accelerate", [False, True], ids=["plain", "squarem"])
@pytest.mark.parametrize("name", ["deepseek-d1", "deepseek-d2", "softmax-gaussian-moe"])
def test_em_never_lowers_the_log_likelihood(name, accelerate):
    model, layout, X, Y, box, theta0 = _problem(name, 2000, seed=3)
    result = em(layout, theta0, X, Y, box, tol=1e-12, max_iter=60, accelerate=accelerate)
    history = np.array(result.history)
    assert np.all(np.diff(history) >= -1e-12 * np.abs(history[1:])), np.diff(history).min()
    assert result.log_likelihood == pytest.approx(log_likelihood(layout, layout.unpack(result.theta), X, Y), rel=1e-12)


@pytest.mark.parametrize("kind", ["softmax", "normalized-sigmoid", "laplace"])
def test_em_and_direct_maximisation_agree_on_a_small_problem(kind):
    model, layout, X, Y, box, theta0 = _problem(gate_declaration(kind), 3000, seed=2)
    by_em = em(layout, theta0, X, Y, box, tol=1e-12, max_iter=3000)
    direct = maximise(layout, theta0, X, Y, box, ftol=1e-15, gtol=1e-10)
    assert by_em.log_likelihood == pytest.approx(direct.log_likelihood, rel=1e-7)
    np.testing.assert_allclose(by_em.theta, direct.theta, atol=1e-2)  # a flat likelihood moves the gate a little


def test_the_papers_start_without_perturbation_is_the_truth_split():
    """Every true atom at least once, weights split equally: with δ = 0 the start's model is the truth's."""
    model = compile_model(read_example("deepseek-d1"))
    layout = model.layout(True)
    box = declared_box(model, layout, factor=3.0)
    theta0 = paper_start(model, layout, box, 1000, np.random.default_rng(0), c=0.0)
    start = layout.unpack(theta0)
    routed, shared = start.atoms
    np.testing.assert_allclose(shared[:, 0], [0.5, 0.5])  # ω* = 1 split over two atoms
    np.testing.assert_allclose(np.exp(routed[:, 1]), [np.exp(-1) / 2, 1.0, np.exp(-1) / 2])  # true atom 1 twice
    X, Y = sample_declared(model, 500, seed=0)
    truth = log_likelihood(model.layout(False), model.truth(), X, Y)
    assert log_likelihood(layout, start, X, Y) == pytest.approx(truth, rel=1e-13)


def test_a_fit_records_its_objective_the_truths_and_the_declaration():
    declaration = read_example("deepseek-d2")
    fit = fit_declared(declaration, 3000, seed=5, restarts=1)
    data = json.loads(json.dumps(fit.to_dict()))
    assert data["digest"] == digest(declaration) and data["canonical"]["parts"]["routed"]["fitted"] == 3
    assert data["objective"] >= data["truth_objective"] and data["worse_than_truth"] is False
    assert len(data["restarts"]) == 2 and data["objective"] == max(data["restarts"])
    assert data["loss"]["value"] > 0 and "routed" in data["errors"]["errors"]


def test_a_fit_worse_than_the_truth_is_flagged():
    fit = fit_declared(read_example("deepseek-d2"), 3000, seed=5, max_iter=1)
    assert fit.objective < fit.truth_objective and fit.worse_than_truth


def test_least_squares_reaches_the_truths_mse():
    fit = fit_declared(read_example("least-squares"), 4000, seed=1)
    assert fit.method == "lm" and fit.objective <= fit.truth_objective


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [({"method": "lm"}, "method"), ({"start": "near"}, "start"), ({"restarts": -1}, "restarts")],
)
def test_bad_fit_arguments_name_the_parameter(kwargs, param):
    with pytest.raises(ValueError) as error:
        fit_declared(read_example("deepseek-d2"), 100, **kwargs)
    assert error.value.param == param
