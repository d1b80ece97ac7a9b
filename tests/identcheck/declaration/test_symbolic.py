"""The per-atom functions against sympy written by hand, and the normalisation against the model."""

import random

import pytest
import sympy as sp

from identcheck.declaration import atom_functions, gate_weights, model_function, parse_declaration, read_example

x1, x2, y = sp.symbols("x1 x2 y", real=True)


def _normal(y, mean, variance):
    return sp.exp(-((y - mean) ** 2) / (2 * variance)) / sp.sqrt(2 * sp.pi * variance)


def test_softmax_routed_linear_expert_of_d2():
    functions = atom_functions(read_example("deepseek-d2"), "routed")
    b1, b0, e1, e0 = sp.symbols("beta1_1 beta0 eta1_1 eta0", real=True)
    nu = sp.Symbol("nu", positive=True)
    assert functions.params == (b1, b0, e1, e0, nu)
    assert functions.labels == ("beta1⁽¹⁾", "beta0", "eta1⁽¹⁾", "eta0", "nu")
    assert sp.simplify(functions.score - (b1 * x1 + b0)) == 0
    assert sp.simplify(functions.factor - sp.exp(b1 * x1 + b0)) == 0
    assert sp.simplify(functions.expert - (e1 * x1 + e0)) == 0
    assert sp.simplify(functions.density - _normal(y, e1 * x1 + e0, nu)) == 0
    assert sp.simplify(functions.term - sp.exp(b1 * x1 + b0) * _normal(y, e1 * x1 + e0, nu)) == 0
    assert functions.normalised and functions.y == y


def test_the_heat_relation_holds_for_the_declared_density():
    """∂²N/∂μ² = 2 ∂N/∂ν (ν the variance; SPEC's model-level check reads this): here through η0."""
    functions = atom_functions(read_example("deepseek-d2"), "routed")
    e0, nu = sp.Symbol("eta0", real=True), sp.Symbol("nu", positive=True)
    assert sp.simplify(sp.diff(functions.density, e0, 2) - 2 * sp.diff(functions.density, nu)) == 0


def test_constant_shared_relu_expert_of_d1():
    functions = atom_functions(read_example("deepseek-d1"), "shared")
    omega, k2, k1, k0 = sp.symbols("omega k2 k1_1 k0", real=True)
    tau = sp.Symbol("tau", positive=True)
    assert functions.params == (omega, k2, k1, k0, tau) and functions.score is None
    assert functions.factor == omega and not functions.normalised
    assert functions.expert == k2 * sp.Max(0, k1 * x1 + k0)
    # the almost-everywhere derivative numeric uses: k2·x·1[k1 x + k0 > 0]
    assert sp.diff(functions.expert, k1) == k2 * x1 * sp.Heaviside(k1 * x1 + k0)


def test_gate_kinds_against_hand_written_factors(base):
    b1, b0 = sp.symbols("beta1_1 beta0", real=True)
    sigmoid = 1 / (1 + sp.exp(-(b1 * x1 + b0)))
    base["loss"]["symmetries"] = ["permutations"]
    for kind, normalised in (("sigmoid", False), ("normalized-sigmoid", True)):
        base["parts"]["routed"]["gate"] = {"kind": kind}
        functions = atom_functions(parse_declaration(base), "routed")
        assert sp.simplify(functions.factor - sigmoid) == 0 and functions.normalised is normalised
    base["parts"]["routed"]["gate"] = {"kind": "top-k", "of": "normalized-sigmoid", "top_k": 1}
    functions = atom_functions(parse_declaration(base), "routed")
    assert sp.simplify(functions.factor - sigmoid) == 0 and functions.selection == b1 * x1


def test_laplace_and_quadratic_scores_in_two_dimensions(base):
    base["inputs"]["dim"] = 2
    base["parts"]["shared"]["truth"][0]["k1"] = [2.0, 1.0]
    routed = base["parts"]["routed"]
    routed["gate"] = {"kind": "laplace"}
    for atom in routed["truth"]:
        del atom["beta1"], atom["beta0"]
        atom |= {"W": [0.5, -0.5], "beta": 0.0, "eta1": [1.0, 1.0]}
    base["loss"]["parts"]["routed"] = {"terms": [{"params": ["W", "eta1"], "exact": 1, "over": 2}]}
    functions = atom_functions(parse_declaration(base), "routed")
    w1, w2, beta = sp.symbols("W_1 W_2 beta", real=True)
    assert sp.simplify(functions.score - (-sp.sqrt((w1 - x1) ** 2 + (w2 - x2) ** 2) + beta)) == 0
    routed["gate"] = {"kind": "quadratic-softmax"}
    for atom in routed["truth"]:
        del atom["W"], atom["beta"]
        atom["M"] = [[0.0, 0.0], [0.0, 0.0]]
    base["loss"]["parts"]["routed"]["terms"][0]["params"] = ["M", "eta1"]
    functions = atom_functions(parse_declaration(base), "routed")
    m11, m12, m22 = sp.symbols("M_11 M_12 M_22", real=True)
    assert functions.params[:3] == (m11, m12, m22) and functions.labels[:3] == ("M⁽¹¹⁾", "M⁽¹²⁾", "M⁽²²⁾")
    quadratic = (sp.Matrix([[x1, x2]]) @ sp.Matrix([[m11, m12], [m12, m22]]) @ sp.Matrix([x1, x2]))[0]
    assert sp.expand(functions.score - quadratic) == 0


def test_gate_weights_sum_to_one():
    functions = atom_functions(read_example("deepseek-d2"), "routed")
    weights = gate_weights(functions, 3)
    assert sp.simplify(sp.Add(*weights) - 1) == 0
    assert weights[0].free_symbols >= {sp.Symbol("beta0__routed_1", real=True), sp.Symbol("beta0__routed_3", real=True)}


def test_the_model_function_of_d2_at_its_truth_is_the_paper_s_density():
    """Model (1) of arXiv 2505.10860 with the D2 truth (normalised: β0 = (−1, 0), β1 = 0), by hand."""
    model = read_example("deepseek-d2")
    f = model_function(model)
    values = {}
    for part in model.parts:
        functions = atom_functions(model, part)
        for i, atom in enumerate(part.truth):
            values |= {functions.indexed(i)[s]: v for s, v in functions.values(atom).items()}
    at_truth = f.xreplace(values)
    r = sp.Rational
    hand = r(1, 2) * _normal(y, 2 * x1, r(1, 5)) + r(1, 2) * (
        sp.exp(-1) * _normal(y, 8 * x1 + 2, r(2, 5)) + _normal(y, -6 * x1 + 1, r(2, 5))
    ) / (sp.exp(-1) + 1)
    for point in ((0, 0), (r(1, 2), 1), (-2, r(-3, 2))):
        subs = {x1: point[0], y: point[1]}
        assert sp.N(at_truth.xreplace(subs) - hand.xreplace(subs), 30) == pytest.approx(0, abs=1e-25)


def test_normalising_the_truth_leaves_the_density_unchanged(base):
    """The printed truth and the normalised one give one density: evaluated at random points."""
    base["parts"]["routed"]["truth"][0] |= {"beta1": 3.0, "beta0": 1.5}
    base["parts"]["routed"]["truth"][1] |= {"beta1": 2.0, "beta0": 2.0}
    model = parse_declaration(base)
    f = model_function(model)

    def density(truths):
        values = {}
        for part in model.parts:
            functions = atom_functions(model, part)
            for i, atom in enumerate(truths[part.name]):
                values |= {functions.indexed(i)[s]: v for s, v in functions.values(atom).items()}
        return f.xreplace(values)

    normalised = density({p.name: p.truth for p in model.parts})
    given_routed = [
        a.replace(beta1=(b1,), beta0=b0) for a, b1, b0 in zip(model.part("routed").truth, (3.0, 2.0), (1.5, 2.0))
    ]
    given = density({"routed": given_routed, "shared": model.part("shared").truth})
    rng = random.Random(3)
    for _ in range(5):
        subs = {x1: sp.Rational(rng.randint(-10, 10), 10), y: sp.Rational(rng.randint(-30, 30), 10)}
        assert sp.N(normalised.xreplace(subs) - given.xreplace(subs), 30) == pytest.approx(0, abs=1e-25)
    assert model.part("routed").truth[1]["beta0"] == 0 and model.part("routed").truth[0]["beta0"] == -0.5


def test_a_regression_function_sums_the_parts():
    model = read_example("least-squares")
    functions = atom_functions(model, "experts")
    assert functions.density is None and functions.y is None
    e2, e0 = sp.symbols("e2 e0", real=True)
    e11, e12, b11, b12, b0 = sp.symbols("e1_1 e1_2 beta1_1 beta1_2 beta0", real=True)
    hand = sp.exp(b11 * x1 + b12 * x2 + b0) * e2 / (1 + sp.exp(-(e11 * x1 + e12 * x2 + e0)))
    assert sp.simplify(functions.term - hand) == 0
    g = model_function(model, {"experts": 3})
    assert len([s for s in g.free_symbols if s.name.startswith("e2__")]) == 3


def test_top_k_has_no_symbolic_model_function(base):
    base["parts"]["routed"]["gate"] = {"kind": "top-k", "top_k": 1}
    with pytest.raises(Exception, match="top-K selection"):
        model_function(parse_declaration(base))


def test_values_are_exact_decimals():
    model = read_example("deepseek-d1")
    functions = atom_functions(model, "routed")
    values = functions.values(model.part("routed").truth[0])
    assert values[sp.Symbol("nu", positive=True)] == sp.Rational(2, 5)
    assert values[sp.Symbol("eta1_1", real=True)] == -12 and values[sp.Symbol("beta0", real=True)] == -1
