"""EM's closed-form step for linear experts (numeric/fitting/em.py, step 4): the weighted least
squares numpy's lstsq computes, moved as far as the box allows; an ill-conditioned atom (posteriors
vanishing but at one sample, as an over-fitted atom of D2 at large n) lets no LinAlgWarning escape,
and em() silences that warning for the whole fit, leaving other warnings' once-per-location memory."""

import importlib
import warnings

import numpy as np
import pytest
from scipy.linalg import LinAlgWarning, solve

from identcheck.declaration import read_example
from numeric.fitting import declared_box, paper_start
from numeric.fitting.em import _linear_step
from numeric.model import compile_model, sample_declared

em_module = importlib.import_module("numeric.fitting.em")  # the package exports the function em under that name


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-3, 3, n)
    Phi = np.vstack([x, np.ones_like(x)])  # h = eta1 x + eta0, as D2's experts
    Y = np.where(x > 0, 2 * x + 1, -x + 0.5) + rng.normal(0, 0.3, n)
    return rng, Phi, Y


def test_a_well_conditioned_step_is_weighted_least_squares():
    rng, Phi, Y = _data()
    rp = rng.uniform(0.1, 1.0, (2, Y.size))
    eta0 = np.array([[0.0, 0.0], [1.0, -1.0]])
    lo, hi = np.full((2, 2), -100.0), np.full((2, 2), 100.0)
    eta, sse = _linear_step(Phi, Y, rp, eta0, lo, hi)
    for i in range(2):
        root = np.sqrt(rp[i])
        expected = np.linalg.lstsq((Phi * root).T, Y * root, rcond=None)[0]
        assert eta[i] == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert sse[i] == pytest.approx(rp[i] @ (Y - expected @ Phi) ** 2, rel=1e-9)


def test_the_box_stops_the_step_on_its_segment():
    rng, Phi, Y = _data(seed=1)
    rp = rng.uniform(0.1, 1.0, (1, Y.size))
    eta0 = np.array([[0.0, 0.0]])
    target = np.linalg.lstsq((Phi * np.sqrt(rp[0])).T, Y * np.sqrt(rp[0]), rcond=None)[0]
    hi = np.array([[abs(target[0]) / 2, 100.0]])  # the slope's bound halves the way
    eta, _ = _linear_step(Phi, Y, rp, eta0 * np.sign(target), -hi, hi)
    assert eta[0] == pytest.approx(target / 2, rel=1e-9)


def _ill_conditioned():
    rng, Phi, Y = _data(n=200)
    rp = np.full((1, Y.size), 1e-30)  # an atom of vanishing weight, but at one sample
    rp[0, 5] = 1e-3
    return Phi, Y, rp


def test_an_ill_conditioned_step_is_clipped():
    Phi, Y, rp = _ill_conditioned()
    A = (Phi * rp[0]) @ Phi.T
    with warnings.catch_warnings():  # the matrix is one scipy warns about
        warnings.simplefilter("error", LinAlgWarning)
        with pytest.raises(LinAlgWarning):
            solve(A, (Phi * rp[0]) @ Y, assume_a="pos")
    eta0 = np.array([[1.0, 0.5]])
    lo, hi = np.full((1, 2), -10.0), np.full((1, 2), 10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LinAlgWarning)  # as em() does for the whole fit
        eta, sse = _linear_step(Phi, Y, rp, eta0, lo, hi)
        target = solve(A, (Phi * rp[0]) @ Y, assume_a="pos")
    assert np.all(np.isfinite(eta)) and np.all((lo <= eta) & (eta <= hi)) and np.isfinite(sse[0])
    # the step as before: along the segment towards the solution, as far as the box allows
    step = target - eta0[0]
    room = np.where(step > 0, (hi[0] - eta0[0]) / step, (lo[0] - eta0[0]) / step)
    assert eta[0] == pytest.approx(eta0[0] + min(1.0, room.min()) * step, rel=1e-9, abs=1e-12)


def test_em_silences_linalg_warnings_for_the_fit_and_keeps_other_warnings_once(monkeypatch):
    """Every expert solve of an EM fit on D2 (linear experts) is made to warn twice: scipy's
    LinAlgWarning, which em() silences, and a RuntimeWarning, which Python's default action shows once
    per location. One filter for the whole fit keeps that memory: the RuntimeWarning is shown once, not
    once per solve (a filter set per solve resets it each time). The caller's filters are intact after."""
    calls = []

    def noisy_solve(*args, **kwargs):
        calls.append(1)
        warnings.warn("ill-conditioned", LinAlgWarning, stacklevel=1)
        warnings.warn("some other warning", RuntimeWarning, stacklevel=1)
        return solve(*args, **kwargs)

    monkeypatch.setattr(em_module, "solve", noisy_solve)
    model = compile_model(read_example("deepseek-d2"))
    layout = model.layout(True)
    X, Y = sample_declared(model, 400, 0)
    box = declared_box(model, layout)
    theta = paper_start(model, layout, box, 400, np.random.default_rng(0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        warnings.simplefilter("error", LinAlgWarning)  # one escaping would raise here
        result = em_module.em(layout, theta, X, Y, box, max_iter=6)
        with pytest.raises(LinAlgWarning):  # the caller's filter again after the fit
            warnings.warn("after", LinAlgWarning, stacklevel=1)
    assert len(calls) >= 6 and np.isfinite(result.log_likelihood)
    assert [str(w.message) for w in caught if w.category is RuntimeWarning] == ["some other warning"]
