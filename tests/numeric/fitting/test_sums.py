"""The E-step's sums for the M-step equal the ones the M-step computes by itself from the posteriors."""

import numpy as np
import pytest

from identcheck.declaration import read_example
from numeric.fitting import declared_box, paper_start
from numeric.fitting.em import _weighted
from numeric.fitting.gate_step import _gradient_and_curvature
from numeric.fitting.sums import e_step
from numeric.model import compile_model, log_likelihood, posteriors, sample_declared
from tests.numeric.model.declarations import gate_declaration


def _problem(declaration, n=1500, seed=4):
    model = compile_model(declaration)
    layout = model.layout(True)
    X, Y = sample_declared(model, n, seed)
    box = declared_box(model, layout)
    theta = paper_start(model, layout, box, n, np.random.default_rng(seed))
    moved = theta + 0.05 * np.random.default_rng(seed).standard_normal(theta.shape) * (box.lo < box.hi)
    return layout, box.clip(moved), X, Y  # off the start, so no sum is zero by symmetry


@pytest.mark.parametrize(
    "declaration",
    [read_example("deepseek-d1"), gate_declaration("top-k", fitted=3), gate_declaration("quadratic-softmax", fitted=3)],
    ids=["deepseek-d1", "top-k", "quadratic-softmax"],
)
def test_the_e_steps_sums_equal_the_m_steps_own(declaration):
    layout, theta, X, Y = _problem(declaration)
    ll, r, sums = e_step(layout, theta, X, Y, chunk=256)  # several blocks, the last one short
    plain_ll, plain_r = posteriors(layout, layout.unpack(theta), X, Y)
    assert ll == pytest.approx(log_likelihood(layout, layout.unpack(theta), X, Y), rel=1e-12)
    assert ll == pytest.approx(plain_ll, rel=1e-12)
    checked = 0
    for part, rp, plain, got in zip(layout.parts, r, plain_r, sums):
        np.testing.assert_allclose(rp, plain, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(got.mass, plain.sum(axis=1), rtol=1e-11)
        rows = layout.unpack(theta).atoms[layout.parts.index(part)]
        if part.gate.log_linear:
            q, grad, full = _gradient_and_curvature(part.gate, X, plain, rows[:, part.gate_columns])
            assert got.gate[0] == pytest.approx(q, rel=1e-11)
            np.testing.assert_allclose(got.gate[1], grad, rtol=1e-9, atol=1e-9 * np.abs(grad).max())
            scale = float(np.abs(plain).sum())  # a top-1 gate's curvature is 0 up to rounding on this scale
            np.testing.assert_allclose(got.gate[2], full, rtol=1e-9, atol=1e-12 * scale)
            checked += 1
        else:
            assert got.gate is None
        if not part.expert.linear:
            sse, A, b = _weighted(part.expert, X, Y, plain, rows[:, part.expert_columns], True)
            np.testing.assert_allclose(got.expert[0], sse, rtol=1e-11)
            np.testing.assert_allclose(got.expert[1], A, rtol=1e-9, atol=1e-9 * np.abs(A).max())
            np.testing.assert_allclose(got.expert[2], b, rtol=1e-9, atol=1e-9 * np.abs(b).max())
            checked += 1
        else:
            assert got.expert is None
    assert checked >= 1
