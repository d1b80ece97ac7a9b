"""The symbolic functions become array code once (what numeric does): values and a.e. derivatives by hand."""

import numpy as np
import sympy as sp

from identcheck.declaration import atom_functions, parse_declaration, read_example
from identcheck.parse.grammar import lambdify_modules


def test_the_relu_routed_term_of_d1_and_its_derivative_as_numpy():
    model = read_example("deepseek-d1")
    functions = atom_functions(model, "routed")
    arguments = (*functions.x, functions.y, *functions.params)
    eta1 = functions.params[functions.labels.index("eta1⁽¹⁾")]
    term = sp.lambdify(arguments, functions.term, modules=lambdify_modules(functions.term))
    d_eta1 = sp.diff(functions.term, eta1)
    slope = sp.lambdify(arguments, d_eta1, modules=lambdify_modules(d_eta1))
    x = np.array([-2.0, -0.5, 0.5, 2.0])
    y = np.array([0.3, -1.0, 2.0, 5.0])
    b1, b0, e1, e2, nu = 0.5, -1.0, 12.0, 4.0, 0.4
    mean = e2 * np.maximum(0.0, e1 * x)
    normal = np.exp(-((y - mean) ** 2) / (2 * nu)) / np.sqrt(2 * np.pi * nu)
    by_hand = np.exp(b1 * x + b0) * normal
    values = {"beta1⁽¹⁾": b1, "beta0": b0, "eta1⁽¹⁾": e1, "eta2": e2, "nu": nu}
    assert functions.labels == ("beta1⁽¹⁾", "beta0", "eta2", "eta1⁽¹⁾", "nu")  # the expert's in order of appearance
    ordered = [values[label] for label in functions.labels]
    np.testing.assert_allclose(term(x, y, *ordered), by_hand, rtol=1e-13)
    # d/d eta1 = g · N · (y − h)/ν · eta2 · x · 1[eta1 x > 0]  (relu's almost-everywhere derivative)
    d_by_hand = by_hand * (y - mean) / nu * e2 * x * (e1 * x > 0)
    np.testing.assert_allclose(slope(x, y, *ordered), d_by_hand, rtol=1e-12, atol=1e-300)


def test_a_quadratic_softmax_score_as_numpy(base):
    base["inputs"]["dim"] = 2
    base["parts"]["shared"]["truth"][0]["k1"] = [2.0, 1.0]
    base["parts"]["routed"]["gate"] = {"kind": "quadratic-softmax"}
    for atom in base["parts"]["routed"]["truth"]:
        del atom["beta1"], atom["beta0"]
        atom |= {"M": [[0.0, 0.0], [0.0, 0.0]], "eta1": [1.0, 1.0]}
    base["loss"]["parts"]["routed"] = {"terms": [{"params": ["M", "eta1"], "exact": 1, "over": 2}]}
    functions = atom_functions(parse_declaration(base), "routed")
    score = sp.lambdify((*functions.x, *functions.params[:3]), functions.score, modules="numpy")
    x = np.array([[0.3, -0.7], [1.0, 2.0]])
    m = np.array([[1.5, -0.25], [-0.25, 0.5]])
    by_hand = np.einsum("ni,ij,nj->n", x, m, x)
    np.testing.assert_allclose(score(x[:, 0], x[:, 1], m[0, 0], m[0, 1], m[1, 1]), by_hand, rtol=1e-14)
