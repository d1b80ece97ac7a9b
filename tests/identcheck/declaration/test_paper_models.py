"""The shipped declarations of arXiv 2602.01468's models (2), (9), (12) against numeric's hand-written ones.

Values (and, for Setting I, every column of the Jacobian) of the declared regression function,
lambdified from sympy, equal numeric/model/attention.py's arrays to ‖declared − numeric‖∞ ≤ 1e-12 ‖numeric‖∞
at the default truth and at random parameters; the declared truth is numeric's default truth; the
per-atom structure is the models': a channel's ω and a_{h,i,k}, its head's tied M_{h,i} (upper
triangle, M_{h,N} = 0 pinned), the softmax over quadratic scores.
"""

import tomllib

import numpy as np
import pytest
import sympy as sp

from identcheck.declaration import atom_functions, example_path, model_function, parse_declaration, read_example
from identcheck.parse.grammar import lambdify_modules
from numeric.model.attention import Model
from numeric.model.attention_params import HMoEParams
from numeric.model.attention_truth import load_truth

MODELS = [("mha", "mha"), ("setting1", "gated1"), ("setting2", "gated2")]
RELATIVE = 1e-12
x1, x2 = sp.symbols("x1 x2", real=True)


def _declared(model, counts):
    """g as a numpy function of (X, params) and the params → its arguments map, for ``counts`` per head."""
    g = model_function(model, {"channels": counts})
    functions = atom_functions(model, "channels")
    symbols, where = [], []
    index = 0
    for h, size in enumerate(counts):
        for k in range(size):
            renamed = functions.indexed(index, h)
            for symbol, entry in zip(functions.params, functions.entries):
                if renamed[symbol] not in symbols:
                    symbols.append(renamed[symbol])
                    where.append((h, k, entry))
            index += 1
    function = sp.lambdify((x1, x2, *symbols), g, modules=lambdify_modules(g))

    def value(X, params: HMoEParams):
        arguments = [_entry(params, h, k, entry) for h, k, entry in where]
        return function(X[:, 0], X[:, 1], *arguments)

    return value, symbols, where, g


def _entry(params: HMoEParams, h, k, entry):
    name, component, index = entry
    if name == "omega":
        return params.omega[h, k]
    if name == "M":
        return params.M[h, component][index]
    return params.a[h, component, k][index]


def _random(H, N, K, seed):
    rng = np.random.default_rng(seed)
    M = rng.normal(size=(H, N, 2, 2))
    M = (M + M.transpose(0, 1, 3, 2)) / 2
    M[:, -1] = 0.0
    return HMoEParams(rng.uniform(0.5, 3.0, size=(H, K)), M, rng.normal(scale=1.5, size=(H, N, K, 2)))


def _close(declared, numeric):
    assert np.max(np.abs(declared - numeric)) <= RELATIVE * np.max(np.abs(numeric))


X = np.random.default_rng(7).uniform(-1.0, 1.0, size=(2000, 2))


@pytest.mark.parametrize("name, kind", MODELS)
def test_the_declared_truth_is_numeric_s_default_truth(name, kind):
    model, truth = read_example(name), load_truth().params
    part = model.part("channels")
    assert part.groups.sizes() == (2, 2) and part.groups.fitted == 2 and part.fitted == 6  # H = 2 heads of K = 3
    for index, (atom, h) in enumerate(zip(part.truth, part.groups.of)):
        k = part.groups.of[:index].count(h)  # the channel's number within its head
        assert atom["omega"] == truth.omega[h, k]
        np.testing.assert_array_equal(np.array(atom["M"]), truth.M[h])
        np.testing.assert_array_equal(np.array(atom["a"]), truth.a[h, :, k])
    assert model.inputs.to_dict() == {"kind": "uniform", "dim": 2, "low": -1.0, "high": 1.0}
    assert model.noise.sigma == load_truth().noise_std and model.notes == ()


@pytest.mark.parametrize("name, kind", MODELS)
def test_the_declared_regression_function_is_numeric_s(name, kind):
    model = read_example(name)
    truth = load_truth().params
    value, *_ = _declared(model, (2, 2))
    _close(value(X, truth), Model(kind).value(truth, X))
    value, *_ = _declared(model, (3, 3))  # a fit's shape: K = 3 channels per head
    for seed in range(3):
        params = _random(2, 2, 3, seed)
        _close(value(X, params), Model(kind).value(params, X))


@pytest.mark.parametrize("name, kind, phi", [("setting1", "gated1", "tanh(z)"), ("setting2", "gated2", "gelu(z)")])
def test_swapping_phi_is_numeric_s_model_with_that_phi(name, kind, phi):
    model = read_example(name, {"phi": phi})
    assert dict(model.functions) == {"phi": phi}
    truth = load_truth().params
    value, *_ = _declared(model, (2, 2))
    _close(value(X, truth), Model(kind, phi).value(truth, X))


def test_three_gates_per_head():
    """N = 3: the softmax over three quadratic scores, the last pinned at zero, as numeric computes it."""
    data = _mapping("setting2")
    params = _random(2, 3, 2, seed=11)
    data["parts"]["channels"]["inner"]["components"] = 3
    data["parts"]["channels"]["groups"]["truth"] = [{"M": params.M[h].tolist()} for h in range(2)]
    data["parts"]["channels"]["truth"] = [
        {"group": h + 1, "omega": float(params.omega[h, k]), "a": params.a[h, :, k].tolist()}
        for h in range(2)
        for k in range(2)
    ]
    model = parse_declaration(data)
    value, symbols, *_ = _declared(model, (2, 2))
    assert len(symbols) == params.size == 2 * 2 + 2 * 2 * 3 + 2 * 3 * 2 * 2
    _close(value(X, params), Model("gated2").value(params, X))


def test_every_jacobian_column_is_numeric_s():
    """∂g/∂θ for the 26 free parameters in numeric's layout θ = (ω, m, a): the tied M's derivative
    collects the K channels of its head, as numeric's column does."""
    model, truth = read_example("setting1"), load_truth().params
    _, symbols, where, g = _declared(model, (2, 2))
    _, jacobian = Model("gated1").value_and_jacobian(truth, X)
    columns = {}
    H, N, K, p = 2, 2, 2, 3
    for symbol, (h, k, (name, component, index)) in zip(symbols, where):
        if name == "omega":
            columns[symbol] = h * K + k
        elif name == "M":
            columns[symbol] = H * K + (h * (N - 1) + component) * p + [(0, 0), (0, 1), (1, 1)].index(index)
        else:
            columns[symbol] = H * K + H * (N - 1) * p + ((h * N + component) * K + k) * 2 + index[0]
    assert sorted(columns.values()) == list(range(truth.size))
    at = [_entry(truth, h, k, entry) for h, k, entry in where]
    for symbol, column in columns.items():
        derivative = sp.diff(g, symbol)
        function = sp.lambdify((x1, x2, *symbols), derivative, modules=lambdify_modules(derivative))
        _close(np.broadcast_to(function(X[:, 0], X[:, 1], *at), (len(X),)), jacobian[:, column])


def test_the_per_atom_structure_is_the_models():
    model = read_example("setting1")
    part, functions = model.part("channels"), atom_functions(model, "channels")
    assert part.parameters == ("omega", "M", "a") and part.tied == ("M",) and part.per_component == ("M", "a")
    assert functions.labels == ("omega", "M[1]⁽¹¹⁾", "M[1]⁽¹²⁾", "M[1]⁽²²⁾", "a[1]⁽¹⁾", "a[1]⁽²⁾", "a[2]⁽¹⁾", "a[2]⁽²⁾")
    assert functions.tied == (False, True, True, True, False, False, False, False)  # M: one per head
    m11, m12, m22 = functions.params[1:4]
    a1 = functions.params[4:6]
    a2 = functions.params[6:8]
    score = m11 * x1**2 + 2 * m12 * x1 * x2 + m22 * x2**2  # xᵀMx, M symmetric
    sigma1 = sp.exp(score) / (sp.exp(score) + 1)  # M_{h,2} = 0: exp(0) = 1
    phi = lambda s: 1 / (1 + sp.exp(-s))  # noqa: E731
    inner = sigma1 * phi(a1[0] * x1 + a1[1] * x2) + (1 - sigma1) * phi(a2[0] * x1 + a2[1] * x2)
    assert sp.simplify(functions.expert - inner) == 0 and functions.factor == functions.params[0]
    assert sp.simplify(functions.inner_weights[0] - sigma1) == 0
    # tied symbols are shared by the channels of a head, the others are the channel's own
    one, two, other = functions.indexed(0, 0), functions.indexed(1, 0), functions.indexed(2, 1)
    assert one[m11] == two[m11] != other[m11] and one[a1[0]] != two[a1[0]]


def test_setting_two_applies_phi_to_the_inner_mixture():
    functions = atom_functions(read_example("setting2"), "channels")
    assert sp.simplify(functions.expert - 1 / (1 + sp.exp(-functions.inner))) == 0
    mha = atom_functions(read_example("mha"), "channels")
    assert mha.expert == mha.inner and read_example("mha").functions == ()


def test_the_losses_are_numeric_s():
    """L1,r (r = 1) for MHA and L2 for the gated models, on channel cells by D = Σ_i ‖ΔM_i‖ + ‖Δa_i‖
    up to gate orders; function cells; the measure-level loss for the gated models."""
    mha = read_example("mha")
    loss = mha.loss.part("channels")
    assert (loss.cells, loss.distance, loss.mass, loss.weight) == (("M", "a"), "sum-of-norms", "omega", "omega")
    assert [(t.params, t.exact.value, t.over.value) for t in loss.terms] == [(("M",), 1, 1), (("a",), 1, 1)]
    assert set(mha.loss.symmetries) == {"inner-orders", "permutations"}
    assert [name for name, _ in mha.losses] == ["function_cells"]
    for name in ("setting1", "setting2"):
        model = read_example(name)
        l2 = model.loss.part("channels")
        assert [(t.exact.at(1, {}), t.over.at(2, {})) for t in l2.terms] == [(1, 2), (1, 2)]
        assert model.other_loss("function_cells").part("channels").cell_by == "function"
        measure = model.other_loss("measure")
        assert measure.part("channels").level == "inner" and "group-permutations" in measure.symmetries


def _mapping(name):
    return tomllib.loads(example_path(name).read_text(encoding="utf-8"))


def test_d1s_printed_gate_is_noted_constant_and_the_variant_gate_varies_in_x():
    from identcheck.declaration import read_example

    printed, varying = read_example("deepseek-d1"), read_example("deepseek-d1-gate")
    texts = " ".join(note.text for note in printed.notes)
    assert "normalised to the reference atom 2" in texts and "do not vary with x" in texts
    assert varying.notes == ()
    betas = [float(atom["beta1"][0]) for atom in varying.part("routed").truth]
    assert betas == [5.0, 0.0]  # normalised already: the last atom at zero, the first's β1 ≠ 0


def test_the_top_k_example_activates_more_fitted_atoms_than_true_ones():
    from identcheck.declaration import read_example

    gate = read_example("deepseek-topk").part("routed").gate
    assert (gate.kind, gate.of, gate.top_k, gate.fitted_top_k) == ("top-k", "softmax", 2, 3)
    assert read_example("deepseek-topk").loss.part("routed").top_k_subsets
