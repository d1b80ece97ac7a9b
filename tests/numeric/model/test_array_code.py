"""The declared model's array code against an independent computation: sympy's own expression of
the whole density (or regression function), differentiated symbolically
(:func:`identcheck.declaration.model_function`), evaluated at random inputs and parameters.

Same checks for every gate kind (parametrized); top-K, which has no sympy form, against the
softmax renormalised over the selected atoms by hand.
"""

import numpy as np
import pytest
import sympy as sp

from identcheck.declaration import atom_functions, model_function, read_example
from numeric.model import (
    compile_model,
    jacobian,
    log_likelihood,
    log_likelihood_and_gradient,
    posteriors,
    regression_function,
    sample_declared,
)
from tests.numeric.model.declarations import GATES, gate_declaration

SMOOTH = [kind for kind in GATES if kind != "top-k"]


def _symbolic(declaration, layout):
    """(f as a numpy function of (x…, y, θ…), its θ-gradient) from sympy, in ``layout``'s θ order."""
    expression = model_function(declaration, {p.name: p.k for p in layout.parts})
    symbols = []
    for part in layout.parts:
        for i in range(part.k):
            symbols += [sp.Symbol(f"{c}__{part.name}_{i + 1}") for c in part.columns]
    by_name = {s.name: s for s in expression.free_symbols}
    theta = [by_name.get(s.name, s) for s in symbols]
    for part in layout.parts:  # numeric normalises a density's constant weights, ω_i / Σ_j ω_j
        if part.gate.kind == "constant" and declaration.noise.density:
            omegas = [by_name[f"omega__{part.name}_{i + 1}"] for i in range(part.k)]
            expression = expression.xreplace({w: w / sp.Add(*omegas) for w in omegas})
    x = sorted((s for s in expression.free_symbols if s.name.startswith("x")), key=lambda s: s.name)
    y = [s for s in expression.free_symbols if s.name == "y"]
    log_f = sp.log(expression) if declaration.noise.density else expression
    grad = [sp.diff(log_f, t) for t in theta]
    args = [*x, *y, *theta]
    return sp.lambdify(args, log_f, "numpy"), sp.lambdify(args, grad, "numpy")


def _point(layout, rng):
    theta = rng.uniform(-1, 1, size=layout.size)
    for part in layout.parts:
        rows = theta[part.offset : part.offset + part.size].reshape(part.k, part.width)
        if part.variance:
            rows[:, -1] = rng.uniform(0.2, 1.0, size=part.k)
        if part.gate.kind == "constant":
            rows[:, 0] = rng.uniform(0.2, 1.0, size=part.k)
    return theta


@pytest.mark.parametrize("kind", SMOOTH)
def test_value_and_gradient_equal_sympys(kind):
    declaration = gate_declaration(kind, fitted=3)
    model = compile_model(declaration)
    layout = model.layout(True)
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(5, declaration.inputs.dim))
    Y = rng.normal(size=5)
    theta = _point(layout, rng)
    value, gradient = _symbolic(declaration, layout)
    columns = [X[:, j] for j in range(X.shape[1])]
    if declaration.noise.density:
        expected = sum(value(*[c[i] for c in columns], Y[i], *theta) for i in range(5))
        expected_grad = sum(np.array(gradient(*[c[i] for c in columns], Y[i], *theta), dtype=float) for i in range(5))
        ll, grad = log_likelihood_and_gradient(layout, theta, X, Y)
        assert ll == pytest.approx(expected, rel=1e-12)
        assert log_likelihood(layout, layout.unpack(theta), X, Y) == pytest.approx(expected, rel=1e-12)
        np.testing.assert_allclose(grad, expected_grad, rtol=1e-9, atol=1e-10)
    else:
        g, Jt = jacobian(layout, theta, X)
        expected = [value(*[c[i] for c in columns], *theta) for i in range(5)]
        expected_J = np.array([gradient(*[c[i] for c in columns], *theta) for i in range(5)], dtype=float)
        np.testing.assert_allclose(g, expected, rtol=1e-12)
        np.testing.assert_allclose(regression_function(layout, layout.unpack(theta), X), expected, rtol=1e-12)
        np.testing.assert_allclose(Jt.T, expected_J, rtol=1e-9, atol=1e-12)


def test_top_k_is_the_softmax_renormalised_over_the_selected_atoms():
    declaration = gate_declaration("top-k", fitted=3)
    part = compile_model(declaration).layout(True).parts[0]
    gate = type(part.gate)("top-k", 1, 2, True, "softmax", 2)
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(50, 1))
    G = rng.normal(size=(3, 2))
    w = gate.evaluate(X, G).w
    scores = G[:, :1] @ X.T + G[:, 1:]
    for n in range(50):
        kept = np.argsort(-(G[:, 0] * X[n, 0]))[:2]
        expected = np.zeros(3)
        expected[kept] = np.exp(scores[kept, n]) / np.exp(scores[kept, n]).sum()
        np.testing.assert_allclose(w[:, n], expected, rtol=1e-12)


def test_relu_experts_use_the_almost_everywhere_derivative():
    model = compile_model(read_example("deepseek-d1"))
    expert = model.experts[0]  # routed: eta2 * relu(eta1 x)
    X = np.array([[-2.0], [-0.5], [0.5], [2.0]])
    eta = np.array([[4.0, 3.0], [4.0, -3.0]])  # (eta2, eta1) per atom
    h, dh = expert.value_and_gradient(X, eta)
    s = eta[:, 1:2] * X[:, 0]
    np.testing.assert_array_equal(h, eta[:, :1] * np.maximum(s, 0))
    np.testing.assert_array_equal(dh[:, 0], np.maximum(s, 0))
    np.testing.assert_array_equal(dh[:, 1], eta[:, :1] * X[:, 0] * (s > 0))
    assert not expert.linear and compile_model(read_example("deepseek-d2")).experts[0].linear


def test_posteriors_sum_to_one_and_give_the_log_likelihood():
    model = compile_model(read_example("deepseek-d1"))
    layout = model.layout(False)
    X, Y = sample_declared(model, 300, seed=1)
    ll, r = posteriors(layout, model.truth(), X, Y)
    np.testing.assert_allclose(sum(rp.sum(axis=0) for rp in r), 1.0, rtol=1e-12)
    assert ll == pytest.approx(log_likelihood(layout, model.truth(), X, Y), rel=1e-14)


def test_samples_are_deterministic_in_the_seed_and_follow_the_truth():
    model = compile_model(read_example("deepseek-d2"))
    X, Y = sample_declared(model, 20_000, seed=4)
    X2, Y2 = sample_declared(model, 20_000, seed=4)
    np.testing.assert_array_equal(Y, Y2)
    assert X.min() >= -3 and X.max() <= 3
    # E[y | x] = ½ (2x) + ½ (routed softmax weights (e^-1, 1)/(1 + e^-1) of 8x + 2 and −6x + 1)
    w1 = np.exp(-1) / (1 + np.exp(-1))
    mean = 0.5 * 2 * X[:, 0] + 0.5 * (w1 * (8 * X[:, 0] + 2) + (1 - w1) * (-6 * X[:, 0] + 1))
    residual = Y - mean
    assert abs(residual.mean()) < 0.1


@pytest.mark.parametrize("name", ["deepseek-d1", "deepseek-gelu", "deepseek-sigmoid", "deepseek-tanh", "least-squares"])
def test_every_shipped_expert_and_its_gradient_equal_sympys_numbers(name):
    """The generated code against sympy's own evaluation (``evalf``) of h and ∂h/∂η, erf and relu included."""
    declaration = read_example(name)
    model = compile_model(declaration)
    rng = np.random.default_rng(11)
    for part, expert in zip(declaration.parts, model.experts):
        functions = atom_functions(declaration, part)
        symbols = [s for s in functions.params if s.name in expert.params]
        X = rng.uniform(-1, 1, size=(3, declaration.inputs.dim))
        eta = rng.uniform(-2, 2, size=(2, len(symbols)))
        h, dh = expert.value_and_gradient(X, eta)
        for i in range(2):
            for n in range(3):
                at = dict(zip(symbols, eta[i])) | dict(zip(functions.x, X[n]))
                assert h[i, n] == pytest.approx(float(functions.expert.evalf(subs=at)), rel=1e-12, abs=1e-14)
                for e, s in enumerate(symbols):
                    exact = float(sp.diff(functions.expert, s).evalf(subs=at).rewrite(sp.Piecewise).evalf(subs=at))
                    assert dh[i, e, n] == pytest.approx(exact, rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("kind", list(GATES))
def test_gate_weights_are_the_exponentials_of_their_logarithms(kind):
    """The weights come from one exp of the scores (w = e/Σe), the logarithms from log g − log Σe."""
    model = compile_model(gate_declaration(kind))
    layout = model.layout(True)
    theta = _point(layout, np.random.default_rng(4))
    X, _ = sample_declared(model, 400, seed=2)
    for part, G in zip(layout.parts, layout.unpack(theta).atoms):
        values = part.gate.evaluate(X, G[:, part.gate_columns])
        with np.errstate(divide="ignore"):
            np.testing.assert_allclose(values.log_w, np.log(values.w), rtol=1e-12, atol=1e-12)
        if part.gate.normalised:
            np.testing.assert_allclose(values.w.sum(axis=0), 1.0, rtol=1e-12)


#: The gate kinds whose test declaration is a density (a sigmoid gate's weights do not sum to one: a regression).
DENSITY_GATES = [kind for kind in GATES if kind != "sigmoid"]


@pytest.mark.parametrize("kind", DENSITY_GATES)
def test_posteriors_are_each_atoms_share_of_the_density(kind):
    """r_{p,i} = s_p w_{p,i} N_{p,i} / f, computed here directly from the densities."""
    model = compile_model(gate_declaration(kind))
    assert model.density
    layout = model.layout(True)
    theta = _point(layout, np.random.default_rng(5))
    params = layout.unpack(theta)
    X, Y = sample_declared(model, 400, seed=3)
    _, r = posteriors(layout, params, X, Y)
    joint = []
    for index, (part, rows) in enumerate(zip(layout.parts, params.atoms)):
        w = part.gate.evaluate(X, rows[:, part.gate_columns]).w
        h, nu = part.expert.value(X, rows[:, part.expert_columns]), rows[:, -1, None]
        joint.append(params.shares[index] * w * np.exp(-((Y - h) ** 2) / (2 * nu)) / np.sqrt(2 * np.pi * nu))
    f = sum(j.sum(axis=0) for j in joint)
    for rp, j in zip(r, joint):
        np.testing.assert_allclose(rp, j / f, rtol=1e-9, atol=1e-15)


def test_sums_of_parameters_times_inputs_are_matrix_products_with_sympys_values():
    """An expert's sums Σ_j η_j x_j (any order of factors, a subset of the inputs) are arguments
    of the generated code computed by a matrix product; h and ∂h/∂η equal sympy's own numbers."""
    from numeric.model.experts import compile_expert

    x1, x2, x3 = x = sp.symbols("x1 x2 x3", real=True)
    e1, e2, e3, e4 = params = sp.symbols("e1 e2 e3 e4", real=True)
    expression = sp.tanh(x3 * e2 + e1 * x1) * e3 + e4 * x2**2
    code = compile_expert(expression, x, params)
    assert code.scores == (((1, 0), (2, 0)),) or code.scores == (((0, 1), (0, 2)),)
    rng = np.random.default_rng(5)
    X, eta = rng.uniform(-1, 1, size=(40, 3)), rng.normal(size=(3, 4))
    h, dh = code.value_and_gradient(X, eta)
    np.testing.assert_allclose(code.value(X, eta), h, rtol=1e-14, atol=0)
    numeric = sp.lambdify([*x, *params], [expression, *(sp.diff(expression, p) for p in params)], "numpy")
    for atom in range(3):
        expected = numeric(*X.T, *eta[atom])
        np.testing.assert_allclose(h[atom], expected[0], rtol=1e-12, atol=1e-14)
        for e in range(4):
            np.testing.assert_allclose(dh[atom, e], np.broadcast_to(expected[e + 1], (40,)), rtol=1e-12, atol=1e-14)
