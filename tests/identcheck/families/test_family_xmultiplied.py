"""The x-multiplied-derivative family (identcheck/families/xmultiplied.py): bias shift of any
f(η1ᵀx + η0), the ridge x-swap of any f(η1ᵀx), exp's ∂h/∂η = x·…; checked by hand with sympy."""

import sympy as sp

from identcheck.check import check
from identcheck.families import xmultiplied
from identcheck.parse.expert import parse_expert

from ..family_checks import Atom, expert_residual, member

x = sp.symbols("x1 x2", real=True)
e2, a, b, e0 = sp.symbols("e2 e1_1 e1_2 e0", real=True)
F = sp.Function("F")


def test_bias_shift_holds_for_any_outer_function_and_is_named():
    expert = parse_expert("dot(e1, x) + e0", 2)
    atom = Atom(expert, e1_1="1/2", e1_2="-3/8", e0="5/8")
    relation = [member(0, "d", ["e1_2"], 1), member(0, "x", ["e0"], -1, w=2)]  # ∂h/∂e1⁽²⁾ = x2·∂h/∂e0
    for h in (a * x[0] + b * x[1] + e0, F(a * x[0] + b * x[1] + e0)):
        assert expert_residual(h, [atom], relation, x) == 0
    assert xmultiplied.expert_name(expert, relation) == xmultiplied.BIAS_SHIFT
    # x1 with e1⁽²⁾ is no bias shift (and no relation)
    wrong = [member(0, "d", ["e1_2"], 1), member(0, "x", ["e0"], -1, w=1)]
    assert expert_residual(a * x[0] + b * x[1] + e0, [atom], wrong, x) != 0
    assert xmultiplied.expert_name(expert, wrong) != xmultiplied.BIAS_SHIFT


def test_the_ridge_x_swap_holds_for_any_ridge_expert_and_is_named():
    expert = parse_expert("e2*gelu(dot(e1, x))", 2)
    atom = Atom(expert, e2="1/8", e1_1="3/8", e1_2="-1/4")
    relation = [member(0, "x", ["e1_2"], 1, w=1), member(0, "x", ["e1_1"], -1, w=2)]  # x1·∂h/∂e1⁽²⁾ = x2·∂h/∂e1⁽¹⁾
    assert expert_residual(e2 * F(a * x[0] + b * x[1]), [atom], relation, x) == 0
    assert xmultiplied.expert_name(expert, relation) == xmultiplied.X_SWAP
    same_index = [member(0, "x", ["e1_1"], 1, w=1), member(0, "x", ["e1_1"], -1, w=2)]
    assert expert_residual(e2 * F(a * x[0] + b * x[1]), [atom], same_index, x) != 0
    assert xmultiplied.expert_name(expert, same_index) is None


def test_exp_ties_a_derivative_to_an_x_multiplied_one_and_a_plain_pair_is_not_named():
    expert = parse_expert("e2*exp(dot(e1, x))", 2)
    atom = Atom(expert, e2="1/8", e1_1="3/8", e1_2="-1/4")
    relation = [member(0, "d", ["e1_1"], 1), member(0, "x", ["e2"], sp.Rational(-1, 8), w=1)]
    assert expert_residual(e2 * sp.exp(a * x[0] + b * x[1]), [atom], relation, x) == 0  # ∂h/∂e1⁽¹⁾ = e2·x1·∂h/∂e2
    assert xmultiplied.expert_name(expert, relation) == xmultiplied.X_MULTIPLIED
    assert xmultiplied.expert_name(expert, [member(0, "d", ["e1_1"], 1), member(0, "d", ["e2"], -1)]) is None


def test_the_condition_names_them_through_the_family():
    result = check("dot(e1, x) + e0", condition="deepseek-routed", dim=1)
    relation = result.witness_probe.relation
    assert relation.family == xmultiplied.BIAS_SHIFT and relation.proved
    assert str(relation) == "∂h2/∂e1⁽¹⁾ − x1·∂h2/∂e0 = 0"
    exp = check("e2*exp(dot(e1, x))", condition="deepseek-routed", dim=1)
    single = next(p for p in exp.probes if p.name == "S3: random, k = 1")
    assert any(r.family == xmultiplied.X_MULTIPLIED and r.proved for r in single.relations)
