"""The DeepSeekMoE declaration with the user's expert (identcheck/declaration/deepseek_expert.py): the
values written out here from docs/confirm.md's description, not read from the module."""

import tomllib

import numpy as np
import pytest

from identcheck.declaration.deepseek_expert import (
    declaration_toml,
    expert_declaration,
    expert_declaration_data,
    generic_atoms,
    parse_base_expert,
)
from identcheck.errors import IdentcheckError

BIAS = "eta2*tanh(dot(eta1, x) + eta0)"


def test_the_routed_part_holds_the_atoms_with_gates_varying_in_x():
    data = expert_declaration_data("deepseek-routed", BIAS, [(2.0, 1.0, -0.5), (-1.0, 0.5, 0.25)])
    routed = data["parts"]["routed"]
    assert routed["expert"] == BIAS and routed["fitted"] == 3
    # the flat parameters in the expert's name order (eta2, eta1, eta0), a vector (eta1) as a list of d = 1;
    # β relative to the last atom
    assert routed["truth"] == [
        {"eta2": 2.0, "eta1": [1.0], "eta0": -0.5, "beta1": 1.0, "beta0": 0.25, "nu": 0.4},
        {"eta2": -1.0, "eta1": [0.5], "eta0": 0.25, "beta1": 0.0, "beta0": 0.0, "nu": 0.4},
    ]
    assert data["parts"]["shared"]["truth"] == [{"omega": 1.0, "k0": 0.0, "k1": 6.0, "k2": -8.0, "tau": 0.25}]
    loss = data["loss"]["parts"]["routed"]
    assert loss["cells"] == ["beta1", "eta2", "eta1", "eta0", "nu"]
    assert [t["params"] for t in loss["terms"]] == [["beta1"], ["eta2", "eta1", "eta0"], ["nu"]]
    assert data["name"] == "deepseek-tanh-routed-confirm"
    assert expert_declaration("deepseek-weak", BIAS, [(2.0, 1.0, -0.5), (-1.0, 0.5, 0.25)]).name == data["name"]


def test_the_shared_part_holds_the_atoms_and_the_routed_gate_varies_in_x():
    data = expert_declaration_data("deepseek-shared", "c*tanh(dot(w, x))", [(1.0, 2.0), (3.0, 4.0), (5.0, 6.0)])
    shared = data["parts"]["shared"]
    assert [a["omega"] for a in shared["truth"]] == pytest.approx([1 / 4.5, 1.5 / 4.5, 2 / 4.5])  # ∝ 1 + i/2
    assert [(a["c"], a["w"], a["tau"]) for a in shared["truth"]] == [
        (1.0, [2.0], 0.4),
        (3.0, [4.0], 0.4),
        (5.0, [6.0], 0.4),
    ]
    assert shared["fitted"] == 4
    assert [(a["beta1"], a["beta0"]) for a in data["parts"]["routed"]["truth"]] == [(1.0, -1.0), (0.0, 0.0)]
    assert tomllib.loads(declaration_toml(data)) == data


def test_the_generic_truth_is_seeded_and_bounded_away_from_zero():
    expert = parse_base_expert(BIAS)
    a, b = generic_atoms(expert, 3), generic_atoms(expert, 3)
    assert a == b != generic_atoms(expert, 4) and len(a) == 2
    assert all(0.5 <= abs(v) <= 1.5 for atom in a for v in atom)


@pytest.mark.parametrize(
    ("condition", "expert", "param", "reason"),
    [
        ("deepseek-routed", "e2*exp(-(x1 - e1)**2 - (x2 - e0)**2)", "expert", "x2 is not a component of x"),
        ("deepseek-routed", "nu*tanh(dot(e1, x))", "expert", "its parameter 'nu' is a name the declaration's gate"),
        ("type1", "e2*tanh(dot(e1, x))", "condition", "no declaration holds its expert"),
    ],
)
def test_bad_input_names_the_expert_or_the_condition(condition, expert, param, reason):
    with pytest.raises(IdentcheckError) as caught:
        expert_declaration_data(condition, expert, [(1.0, 1.0, 1.0)])
    assert caught.value.param == param and reason in caught.value.reason


def test_the_toml_writer_reads_back_numpy_numbers_and_control_characters():
    """numpy's scalars are written as Python's numbers (``np.float64(0.5)`` is no TOML), DEL (U+007F),
    which JSON leaves raw and TOML forbids raw, is escaped; a lone surrogate has no TOML and is refused."""
    data = {
        "name": "quote \" back\\slash \t tab \x7f del",
        "x": np.float64(0.1),
        "n": np.int64(3),
        "t": {"f": [np.float32(0.25), 2.5], "flag": np.bool_(False), "k": -7},
    }
    text = declaration_toml(data)
    assert "np." not in text
    assert tomllib.loads(text) == {
        "name": "quote \" back\\slash \t tab \x7f del",
        "x": 0.1,
        "n": 3,
        "t": {"f": [0.25, 2.5], "flag": False, "k": -7},
    }
    with pytest.raises(ValueError, match="surrogate"):
        declaration_toml({"name": "a\ud800b"})
    with pytest.raises(ValueError, match="no TOML"):
        declaration_toml({"x": float("nan")})
