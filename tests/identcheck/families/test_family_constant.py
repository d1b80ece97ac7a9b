"""The product-equal-to-a-constant family (identcheck/families/constant.py): the linear expert's
(∂h/∂κ0)² = 1 coincides with S2's constant 1; an expert whose products are not constant has none."""

import sympy as sp

from identcheck.check import check
from identcheck.families import constant
from identcheck.parse.expert import parse_expert

from ..family_checks import Atom, expert_residual, member

x = sp.symbols("x1 x2", real=True)
k1, k2, k0 = sp.symbols("k1_1 k1_2 k0", real=True)


def test_the_linear_experts_square_is_the_constant_one():
    expert = parse_expert("dot(k1, x) + k0", 2)
    atom = Atom(expert, k1_1="1/2", k1_2="-3/8", k0="5/8")
    relation = [member(0, "prod", ["k0", "k0"], 1), member(None, "1", [], -1)]
    assert expert_residual(k1 * x[0] + k2 * x[1] + k0, [atom], relation, x) == 0  # (∂h/∂k0)² − 1, by hand
    assert constant.name(relation) == constant.CONSTANT


def test_no_constant_for_a_ridge_expert_nor_without_the_constant_column():
    expert = parse_expert("tanh(dot(k1, x) + k0)", 2)
    relation = [member(0, "prod", ["k0", "k0"], 1), member(None, "1", [], -1)]
    atom = Atom(expert, k1_1="1/2", k1_2="-3/8", k0="5/8")
    assert expert_residual(sp.tanh(k1 * x[0] + k2 * x[1] + k0), [atom], relation, x) != 0
    assert constant.name([member(0, "prod", ["k0", "k0"], 1), member(0, "d", ["k0"], -1)]) is None
    assert constant.name([member(None, "1", [], 1)]) is None


def test_the_condition_names_it_through_the_family():
    result = check("dot(k1, x) + k0", condition="deepseek-shared", dim=1)
    relation = result.witness_probe.relation
    assert relation.family == constant.CONSTANT and relation.proved
    assert str(relation) == "(∂h1/∂k0)² − 1 = 0"


def test_a_member_equal_to_another_constant_is_named_so():
    """h = k1ᵀx + 2·k0: ∂h/∂k0 = 2, so (∂h/∂k0)² = 4 = 4·(the set's 1), by hand — not "the constant 1"
    (the name the shape alone would give)."""
    relation = [member(0, "prod", ["k0", "k0"], 1), member(None, "1", [], -4)]
    atom = Atom(parse_expert("dot(k1, x) + 2*k0", 2), k1_1="1/2", k1_2="-3/8", k0="5/8")
    assert expert_residual(k1 * x[0] + k2 * x[1] + 2 * k0, [atom], relation, x) == 0
    assert constant.name(relation) == constant.CONSTANT_MULTIPLE
    result = check("dot(k1, x) + 2*k0", condition="deepseek-shared", dim=1)
    witness = result.witness_probe.relation
    assert witness.family == constant.CONSTANT_MULTIPLE and witness.proved
    assert str(witness) == "(∂h1/∂k0)² − 4·1 = 0"
