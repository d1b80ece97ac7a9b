"""Reading the shipped declarations and the small one: the values, the defaults, the notes."""

import math

import pytest

from identcheck.declaration import EXAMPLES, Exponent, parse_declaration, read_example
from identcheck.declaration.loss import PartLoss

from .conftest import BASE


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_reads_and_keeps_its_counts(name):
    model = read_example(name)
    assert model.name == name and model.parts
    for part in model.parts:
        assert part.fitted >= len(part.truth) >= 1
        assert set(part.parameters) == {n for atom in part.truth for n in atom.names}
        assert model.loss.part(part.name).part == part.name


def test_deepseek_d1_as_the_paper_prints_it():
    """arXiv 2505.10860 Appendix G.1.2: (κ0, κ1, κ2) = (0, 6, −8), τ = 0.25; routed (η1, η2) =
    (−12, 4), (12, 4), ν = 0.4; printed β0 = (−0.5, 0.5), β1 = (5, 5), normalised to the last atom."""
    model = read_example("deepseek-d1")
    assert (model.inputs.kind, model.inputs.dim, model.inputs.low, model.inputs.high) == ("uniform", 1, -3.0, 3.0)
    assert model.noise.fit == "maximum-likelihood" and model.shares == "fixed"
    shared, routed = model.part("shared"), model.part("routed")
    assert (shared.share, routed.share) == (0.5, 0.5)
    assert (len(shared.truth), shared.fitted, len(routed.truth), routed.fitted) == (1, 2, 2, 3)
    assert shared.truth[0].to_dict() == {"omega": 1.0, "k2": -8.0, "k1": [6.0], "k0": 0.0, "tau": 0.25}
    assert [a["eta1"] for a in routed.truth] == [(-12.0,), (12.0,)] and [a["eta2"] for a in routed.truth] == [4, 4]
    # normalised by hand: subtract atom 2's (β0, β1) = (0.5, 5) from both atoms
    assert [a["beta0"] for a in routed.truth] == [-1.0, 0.0] and [a["beta1"] for a in routed.truth] == [(0.0,), (0.0,)]
    assert routed.gate.reference == 1 and shared.gate.weights == "free"
    assert [n.key for n in model.notes] == ["parts.routed.truth", "parts.routed.truth"]
    assert "given beta1 = (5, 5); beta0 = (-0.5, 0.5)" in model.notes[0].text
    assert "do not vary with x" in model.notes[1].text
    assert shared.expert.simulation_only == ("relu",) and routed.expert.simulation_only == ("relu",)


def test_deepseek_d2_loss_exponents():
    """D2 (eq. (6)): exact cells first powers; over-fitted r for β1, η0, κ0 and r/2 for η1, ν, τ, κ1 squared."""
    loss = read_example("deepseek-d2").loss
    routed, shared = loss.part("routed"), loss.part("shared")
    over = {term.params: term.over.at(2, routed.r_table) for term in routed.terms}
    assert over == {("beta1",): 4, ("eta1",): 2, ("eta0",): 4, ("nu",): 2}
    assert {t.params: t.over.at(3, shared.r_table) for t in shared.terms} == {("k1",): 2, ("k0",): 6, ("tau",): 3}
    assert all(t.exact == Exponent("number", 1.0) for t in routed.terms + shared.terms)
    assert (routed.mass, routed.weight, shared.mass) == ("exp-beta0", "exp-beta0", "omega")
    assert set(loss.symmetries) == {"softmax-shift", "permutations"}


def test_deepseek_d3_and_d4_losses():
    d3 = read_example("deepseek-d3").loss.part("routed")
    assert (d3.mass, d3.mass_cells, d3.weight) == ("sigmoid-beta0", "over-fitted", "none")
    beta0 = next(t for t in d3.terms if t.params == ("beta0",))
    assert beta0.exact.at(1, {}) == 1 and beta0.over.at(2, {}) is None
    d4 = read_example("deepseek-d4")
    assert d4.loss.part("routed").target == "kl-projection" and d4.loss.part("shared").target == "truth"
    assert d4.notes == ()  # normalised sigmoid: no shift to remove, and β1 = (5, 5) varies the gate


def test_least_squares_example_is_a_regression_in_two_dimensions():
    model = read_example("least-squares")
    assert model.noise.fit == "least-squares" and model.noise.sigma == 0.1 and model.shares == "sum"
    part = model.part("experts")
    assert part.variance is None and part.share is None and part.truth[0]["beta1"] == (1.0, -1.0)
    assert model.notes == ()  # the reference atom is already at zero


def test_defaults_are_filled_in(base):
    model = parse_declaration(BASE)
    shared = model.loss.part("shared")
    assert isinstance(shared, PartLoss)
    assert shared.cells == ("k1", "k0", "tau")  # every parameter but the weight (ω; β0)
    assert (shared.mass, shared.weight, shared.mass_cells, shared.target) == ("omega", "omega", "all", "truth")
    assert model.loss.part("routed").mass == "exp-beta0" and model.loss.kind == "voronoi"
    assert model.notes == ()


def test_a_truth_given_without_its_normalisation_is_normalised_with_a_note(base):
    """Shifting every atom by (c1, c0) is the same softmax: the reader moves atom 2 (reference) to zero."""
    base["parts"]["routed"]["truth"][0] |= {"beta1": 3.0, "beta0": 1.5}
    base["parts"]["routed"]["truth"][1] |= {"beta1": 2.0, "beta0": 2.0}
    routed = parse_declaration(base).part("routed")
    assert [a["beta1"] for a in routed.truth] == [(1.0,), (0.0,)] and [a["beta0"] for a in routed.truth] == [-0.5, 0]
    base["parts"]["routed"]["gate"]["reference"] = 1  # the first atom instead
    model = parse_declaration(base)
    routed = model.part("routed")
    assert [a["beta1"] for a in routed.truth] == [(0.0,), (-1.0,)] and [a["beta0"] for a in routed.truth] == [0, 0.5]
    assert "reference atom 1" in model.notes[0].text and "given beta1 = (3, 2); beta0 = (1.5, 2)" in model.notes[0].text


def test_a_normalised_sigmoid_truth_is_left_as_given(base):
    base["parts"]["routed"]["gate"] = {"kind": "normalized-sigmoid"}
    base["parts"]["routed"]["truth"][1] |= {"beta1": 2.0, "beta0": 2.0}
    base["loss"]["symmetries"] = ["permutations"]
    model = parse_declaration(base)
    assert [a["beta0"] for a in model.part("routed").truth] == [-0.5, 2.0] and model.notes == ()


def test_vectors_matrices_and_every_gate_kind(base):
    base["inputs"]["dim"] = 2
    base["parts"]["shared"]["truth"][0] |= {"k1": [2.0, 1.0]}
    base["parts"]["routed"]["gate"] = {"kind": "quadratic-softmax"}
    for atom, m in zip(base["parts"]["routed"]["truth"], ([[1.0, 0.5], [0.5, -1.0]], [[0.0, 0.0], [0.0, 0.0]])):
        del atom["beta1"], atom["beta0"]
        atom |= {"M": m, "eta1": [8.0, 1.0]}
    base["loss"]["parts"]["routed"]["cells"] = ["M", "eta1", "eta0", "nu"]
    base["loss"]["parts"]["routed"]["terms"][0]["params"] = ["M"]
    model = parse_declaration(base)
    assert model.part("routed").truth[0]["M"] == ((1.0, 0.5), (0.5, -1.0))
    assert model.loss.part("routed").mass == "none"


def test_top_k_gate(base):
    base["parts"]["routed"]["gate"] = {"kind": "top-k", "of": "softmax", "top_k": 1, "fitted_top_k": 2}
    base["loss"]["parts"]["routed"]["top_k_subsets"] = True
    model = parse_declaration(base)
    gate = model.part("routed").gate
    assert (gate.top_k, gate.fitted_top_k, gate.of, gate.reference) == (1, 2, "softmax", 1)
    assert model.loss.part("routed").top_k_subsets


def test_parameter_errors(base):
    base["loss"] = {
        "kind": "parameter-errors",
        "parts": {"shared": {"params": ["k1", "tau"]}, "routed": {"params": ["eta1"], "reduce": "mean"}},
    }
    loss = parse_declaration(base).loss
    assert loss.kind == "parameter-errors"
    assert (loss.part("shared").params, loss.part("shared").match, loss.part("shared").reduce) == (
        ("k1", "tau"),
        "voronoi",
        "max",
    )
    assert loss.part("routed").reduce == "mean"


def test_the_weights_may_sum_to_one_up_to_decimals(base):
    base["parts"]["shared"]["truth"] = [
        {"omega": w, "k1": 2.0 + i, "k0": 0.0, "tau": 0.2} for i, w in enumerate((0.1, 0.2, 0.7))
    ]
    base["parts"]["shared"]["fitted"] = 3
    assert math.fsum(a["omega"] for a in parse_declaration(base).part("shared").truth) == 1.0


def test_normal_inputs_and_a_constant_gate_in_a_regression(base):
    base["inputs"] = {"kind": "normal", "dim": 1}
    base["noise"] = {"kind": "gaussian-regression", "sigma": 0.1}
    del base["shares"]
    for part in base["parts"].values():
        del part["share"], part["variance"]
        for atom in part["truth"]:
            atom.pop("tau", None), atom.pop("nu", None)
    base["parts"]["shared"]["truth"][0]["omega"] = 2.5  # a regression's weights need not sum to one
    base["loss"]["parts"]["shared"]["terms"] = [{"params": ["k1", "k0"], "exact": 1, "over": 2}]
    base["loss"]["parts"]["routed"]["cells"] = ["beta1", "eta1", "eta0"]
    base["loss"]["parts"]["routed"]["terms"].pop()
    model = parse_declaration(base)
    assert model.inputs.to_dict() == {"kind": "normal", "dim": 1} and model.shares == "sum"
    assert model.part("shared").truth[0]["omega"] == 2.5 and model.part("routed").variance is None
