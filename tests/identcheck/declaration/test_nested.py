"""Nested parts and declared functions: reading, normalisation, canonical content, refusals, and the
digests of the declarations that have neither, unchanged."""

import copy
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from identcheck.cli.common import render_error
from identcheck.declaration import (
    EXAMPLES,
    atom_functions,
    canonical_form,
    digest,
    example_path,
    model_function,
    parse_declaration,
    read_example,
    truth_values,
)
from identcheck.errors import IdentcheckError

from .test_errors import _set

#: The digests of the declarations without nested parts, functions or further losses, as they were
#: before those were added: a stored record's key must not move.
DIGESTS = {
    "softmax-gaussian-moe": "55379e55757bb39b509cf21fbe874f8b1b1fff0a87d4a4b9fb32153607d09f7a",
    "deepseek-d1": "8b28d858a477ba1a35a524eaeacf52e9093a465596d4e828857e9f0a16b401a1",
    "deepseek-d2": "bd31d5e2f341dfe16bf7e6de52f93b87e0aa1c8d548d70b2a094d322d155ea2e",
    "deepseek-d3": "58662240094015549250f375fb776a11237f087de0a57c88ea02b2a78a4785f3",
    "deepseek-d4": "4e457b1d9a00dfe3cf833257a9591a4ecc540ceb51b7b9dc0181c3161156c998",
    "least-squares": "715a19cc62a0a51e1bb049c958a1f6a5dcc5cfa2fde48362e837a35ffec7eb3e",
}
x1, x2 = sp.symbols("x1 x2", real=True)


@pytest.fixture
def nested() -> dict:
    """A fresh mapping of the shipped Setting I declaration."""
    return copy.deepcopy(tomllib.loads(example_path("setting1").read_text(encoding="utf-8")))


@pytest.mark.parametrize("name", sorted(DIGESTS))
def test_the_earlier_declarations_keep_their_digests(name):
    assert digest(read_example(name)) == DIGESTS[name]


def test_every_shipped_declaration_has_a_distinct_digest():
    assert len({digest(read_example(name)) for name in EXAMPLES}) == len(EXAMPLES)
    assert read_example("gated1") == read_example("setting1")  # numeric's model names read the same files


def test_the_canonical_content_of_a_nested_part(nested):
    content = canonical_form(parse_declaration(nested))
    part = content["parts"]["channels"]
    assert part["inner"] == {
        "components": 2,
        "gate": {"kind": "quadratic-softmax", "reference": 2},
        "expert": "phi(dot(a, x))",
    }
    assert part["groups"]["tied"] == ["M"] and part["groups"]["fitted"] == 2 and len(part["groups"]["truth"]) == 2
    assert part["truth"][0] == {"group": 1, "omega": 2.0, "a": [[1.5, -1.0], [0.5, 1.5]]}  # M once per group
    assert content["functions"] == {"phi": "sigmoid(z)"}
    assert set(content["losses"]) == {"function_cells", "measure"}
    assert content["loss"]["parts"]["channels"]["distance"] == "sum-of-norms"


def test_swapping_phi_is_another_model(nested):
    first = digest(parse_declaration(nested))
    tanh = parse_declaration(nested, {"phi": "tanh(z)"})
    nested["functions"]["phi"] = "tanh(z)"
    assert digest(tanh) == digest(parse_declaration(nested)) != first
    assert sp.simplify(atom_functions(tanh, "channels").inner_experts[0].atoms(sp.tanh).pop().args[0]) != 0


def test_inner_components_are_normalised_to_the_reference_with_a_note(nested):
    """Adding one matrix C to both of a head's M_i is the same softmax: the reader moves M_2 to zero."""
    before = truth_values(parse_declaration(nested))
    shift = [[0.5, -0.25], [-0.25, 1.0]]
    for group in nested["parts"]["channels"]["groups"]["truth"]:
        group["M"] = [(np.array(m) + shift).tolist() for m in group["M"]]
    model = parse_declaration(nested)
    part = model.part("channels")
    assert part.truth[0]["M"] == (((1.0, 0.5), (0.5, -1.0)), ((0.0, 0.0), (0.0, 0.0)))
    assert part.groups.truth[1]["M"][1] == ((0.0, 0.0), (0.0, 0.0))
    assert [note.key for note in model.notes] == ["parts.channels.truth"]
    assert "reference component 2" in model.notes[0].text and "M = (" in model.notes[0].text
    assert truth_values(model) == before


def test_the_first_component_pinned_is_the_same_model_with_the_components_reversed(nested):
    before = model_function(parse_declaration(nested)).xreplace(truth_values(parse_declaration(nested)))
    channels = nested["parts"]["channels"]
    channels["inner"]["gate"]["reference"] = "first"
    for group in channels["groups"]["truth"]:
        group["M"].reverse()
    for atom in channels["truth"]:
        atom["a"].reverse()
    model = parse_declaration(nested)
    functions = atom_functions(model, "channels")
    assert functions.labels[1:4] == ("M[2]⁽¹¹⁾", "M[2]⁽¹²⁾", "M[2]⁽²²⁾")  # component 1 pinned: no symbols
    after = model_function(model).xreplace(truth_values(model))
    for point in ((0.5, -0.25), (-1.0, 0.75)):
        subs = {x1: sp.Rational(point[0]), x2: sp.Rational(point[1])}
        assert sp.N(after.xreplace(subs) - before.xreplace(subs), 30) == pytest.approx(0, abs=1e-25)


def test_one_dimensional_inputs_take_numbers_per_component(nested):
    nested["inputs"]["dim"] = 1
    for group in nested["parts"]["channels"]["groups"]["truth"]:
        group["M"] = [m[0][0] for m in group["M"]]
    for atom in nested["parts"]["channels"]["truth"]:
        atom["a"] = [a[0] for a in atom["a"]]
    part = parse_declaration(nested).part("channels")
    assert part.truth[0]["a"] == ((1.5,), (0.5,)) and part.truth[0]["M"] == (((1.0,),), ((0.0,),))


def test_an_inner_mixture_without_groups_and_in_a_density(nested):
    """Each atom its own M (nothing tied), and the inner mixture as the mean of a Gaussian density."""
    channels = nested["parts"]["channels"]
    heads = channels.pop("groups")["truth"]
    for atom in channels["truth"]:
        atom["M"] = heads[atom.pop("group") - 1]["M"]
        atom["nu"] = 0.1
        atom["omega"] /= 11.4
    nested["noise"] = {"kind": "gaussian-mixture", "variance_floor": 0.01}
    nested["losses"] = {}
    model = parse_declaration(nested)
    functions = atom_functions(model, "channels")
    assert model.part("channels").groups is None and not any(functions.tied)
    assert functions.density.has(functions.params[4]) and functions.y is not None
    f = model_function(model, {"channels": 2})
    assert len([s for s in f.free_symbols if s.name.startswith("M_c1_11__")]) == 2  # one M per atom


def test_tying_a_shift_invariant_gate_parameter(base):
    """Groups in a flat density part: β1 tied by group. The truth is normalised atoms and groups
    alike, and at the truth the grouped model is the same density as the ungrouped one."""
    flat = parse_declaration(base)
    routed = base["parts"]["routed"]
    routed["groups"] = {"tied": ["beta1"], "truth": [{"beta1": 3.0}, {"beta1": 2.0}]}
    routed["truth"] = [
        {"group": 1, "beta0": 1.5, "eta1": 8.0, "eta0": 2.0, "nu": 0.4},
        {"group": 2, "beta0": 2.0, "eta1": -6.0, "eta0": 1.0, "nu": 0.4},
    ]
    routed["fitted"] = 2
    del base["loss"]["parts"]["routed"]["r"]
    base["loss"]["parts"]["routed"]["terms"] = [{"params": ["beta1", "eta1", "eta0", "nu"], "exact": 1, "over": 2}]
    model = parse_declaration(base)
    part = model.part("routed")
    assert [a["beta1"] for a in part.truth] == [(1.0,), (0.0,)] and [a["beta0"] for a in part.truth] == [-0.5, 0]
    assert [g["beta1"] for g in part.groups.truth] == [(1.0,), (0.0,)]  # the tied values moved with their atoms
    grouped = model_function(model).xreplace(truth_values(model))
    ungrouped = model_function(flat).xreplace(truth_values(flat))
    y = sp.Symbol("y", real=True)
    for point in ((0.25, 1.0), (-0.75, -2.0)):
        subs = {x1: sp.Rational(point[0]), y: sp.Rational(point[1])}
        assert sp.N(grouped.xreplace(subs) - ungrouped.xreplace(subs), 30) == pytest.approx(0, abs=1e-25)


def test_a_declared_function_in_a_flat_part():
    gelu = read_example("deepseek-gelu")
    assert gelu.refusal() is None and read_example("deepseek-d1").refusal() is not None
    k2, k1, k0 = sp.symbols("k2 k1_1 k0", real=True)
    s = k1 * x1 + k0
    assert sp.simplify(atom_functions(gelu, "shared").expert - k2 * s / 2 * (1 + sp.erf(s / sp.sqrt(2)))) == 0
    for name in ("deepseek-sigmoid", "deepseek-tanh"):
        assert read_example(name).loss == read_example("deepseek-d1").loss


#: (case, change, the key named, words of the reason)
CASES = [
    ("phi not smooth", _set("functions.phi", "relu(z)"), "functions.phi", "relu"),
    ("a function nobody calls", _set("functions.psi", "tanh(z)"), "functions.psi", "no expert calls it"),
    ("a reserved name", _set("functions.tanh", "tanh(z)"), "functions.tanh", "a name of the expert grammar"),
    (
        "a function uncalled",
        _set("parts.channels.inner.expert", "phi*dot(a, x)"),
        "parts.channels.inner.expert",
        "is a declared function; call it",
    ),
    ("inner without its table", _set("parts.channels.inner", ...), "parts.channels.expert", "declare [parts.chan"),
    (
        "an inner table unused",
        _set("parts.channels.expert", "2*tanh(c)"),
        "parts.channels.expert",
        "does not use 'inner'",
    ),
    ("top-k inside", _set("parts.channels.inner.gate", {"kind": "top-k"}), "parts.channels.inner.gate.kind", "top-k"),
    (
        "nesting twice",
        _set("parts.channels.inner.expert", "phi(inner)"),
        "parts.channels.inner.expert",
        "one level of nesting",
    ),
    (
        "one name inside and outside",
        lambda d: (_set("parts.channels.expert", "c*inner")(d), _set("parts.channels.inner.expert", "c*dot(a, x)")(d)),
        "parts.channels.inner.expert",
        "'c' is a parameter of the outer expert and of the inner expert",
    ),
    (
        "one value per component",
        _set("parts.channels.truth[1].a", [[1.0, 2.0]]),
        "parts.channels.truth[1].a",
        "expected 2 values, one per inner component",
    ),
    ("no such group", _set("parts.channels.truth[3].group", 3), "parts.channels.truth[3].group", "from 1 to 2"),
    (
        "a tied value given by an atom",
        _set("parts.channels.truth[0].M", [[[0.0, 0.0], [0.0, 0.0]]] * 2),
        "parts.channels.truth[0].M",
        "give it once per group",
    ),
    ("tied names a parameter", _set("parts.channels.groups.tied", ["W"]), "parts.channels.groups.tied[0]", "not a pa"),
    ("uneven groups", _set("parts.channels.fitted", 5), "parts.channels.fitted", "does not split evenly"),
    ("too few groups", _set("parts.channels.groups.fitted", 1), "parts.channels.groups.fitted", "below the truth's 2"),
    (
        "a group without atoms",
        lambda d: d["parts"]["channels"]["groups"]["truth"].append({"M": [[[1.0, 0.0], [0.0, 1.0]], [[0.0] * 2] * 2]}),
        "parts.channels.groups.truth[2]",
        "group 3 has no atom",
    ),
    ("inner orders need an inner mixture", None, "loss.symmetries[0]", "no part of this model has an inner mixture"),
    ("groups permuted need groups", None, "loss.symmetries[0]", "no part of this model has groups"),
    ("measure level needs an inner mixture", None, "loss.parts.routed.level", "has no inner mixture"),
]
_FLAT = {
    "inner orders need an inner mixture": _set("loss.symmetries", ["inner-orders"]),
    "groups permuted need groups": _set("loss.symmetries", ["group-permutations"]),
    "measure level needs an inner mixture": _set("loss.parts.routed.level", "inner"),
}


@pytest.mark.parametrize("case, change, key, words", CASES, ids=[c[0] for c in CASES])
def test_a_bad_nested_declaration_is_one_line_naming_the_key(nested, base, case, change, key, words):
    data = base if case in _FLAT else nested
    (change or _FLAT[case])(data)
    with pytest.raises(IdentcheckError) as caught:
        parse_declaration(data)
    message = render_error(caught.value, None)
    assert caught.value.param == key, message
    assert words in caught.value.reason, message
    assert "\n" not in message and message.startswith(key), message


def test_the_page_shows_the_three_paper_models_complete():
    page = (Path(__file__).resolve().parents[3] / "docs" / "declaration.md").read_text(encoding="utf-8")
    shown = {parse_declaration(b).name: b for b in re.findall(r"```toml\n(.*?)```", page, flags=re.S)}
    for name in ("mha", "setting1", "setting2"):
        assert shown[name] == example_path(name).read_text(encoding="utf-8"), name


def test_an_override_names_a_declared_function():
    with pytest.raises(IdentcheckError) as caught:
        read_example("mha", {"phi": "tanh(z)"})
    assert caught.value.param == "functions.phi" and "not a declared function" in caught.value.reason
