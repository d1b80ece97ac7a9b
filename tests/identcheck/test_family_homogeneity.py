"""The scale/homogeneity family (identcheck/families/homogeneity.py): proposed where the structure
has it, proved (checked here by sympy on functions written by hand), never named where it fails."""

import sympy as sp

from identcheck import parse_activation
from identcheck.check import check
from identcheck.expert import parse_expert
from identcheck.families import homogeneity
from identcheck.families.phi import phi_properties
from identcheck.families.type1 import templates_for
from identcheck.probes import default_probes
from identcheck.terms import type1_term_set

from .family_checks import Atom, Recorder, expert_residual, member, type1_residual

R = sp.Rational
CUBE = lambda z: z**3  # noqa: E731  φ = z³: zφ' = 3φ


def test_type1_euler_and_its_derivatives_hold_for_a_homogeneous_phi():
    components = [(((R(7, 8), R(1, 4)), (R(1, 4), R(-1, 2))), (R(-3, 8), R(5, 8)))]
    b = Recorder(2, components)
    homogeneity.type1_templates(b, 3, type1_term_set(2).a_symbols(), 0)
    assert len(b.added) == 1 + 5  # the relation and its derivative in each of M11, M12, M22, a1, a2
    for family, hypothesis, parts in b.added:
        assert (family, hypothesis) == ("Euler/homogeneity", "z*phi' = 3*phi")
        assert type1_residual(CUBE, 2, components, parts) == 0
    # no false naming: the same relation with degree 2 is not one for z³
    wrong = Recorder(2, components)
    homogeneity.type1_templates(wrong, 2, type1_term_set(2).a_symbols(), 0)
    assert type1_residual(CUBE, 2, components, wrong.added[0][2]) != 0


def test_type1_rescaled_components_are_tied_by_lambda_to_the_k_minus_m():
    M = ((R(7, 8),),)
    components = [(M, (R(-3, 8),)), (M, (R(-3, 4),))]  # a₂ = 2·a₁
    b = Recorder(1, components)
    homogeneity.rescaled(b, 3, 2, 0, 1, list(type1_term_set(1).index))
    assert b.added and all(type1_residual(CUBE, 1, components, parts) == 0 for _, _, parts in b.added)
    by_key = {tuple(parts[0][1]): parts[1][1] for _, _, parts in b.added}
    assert by_key[(("a1",),)] == {("a1",): -4}  # ∂ū/∂a(2a) = 2²·∂ū/∂a(a) for z³, by hand


def test_no_euler_template_where_phi_is_not_homogeneous():
    act = parse_activation("sigmoid(z + 1)")
    assert phi_properties(tuple(act.derivatives)).euler is None
    ts = type1_term_set(2)
    for probe in default_probes(2)[:4]:
        assert not [t for t in templates_for(ts, tuple(act.derivatives), probe) if t.family == "Euler/homogeneity"]


def test_type2_euler_parts_are_c_times_h_minus_the_weighted_derivatives():
    parts = homogeneity.euler_parts(("phi", 0), 2, [(("u", 0, 0, (("a", 0),)), R(1, 4))])
    assert parts == [(("phi", 0), 2), (("u", 0, 0, (("a", 0),)), R(-1, 4))]


def test_the_scale_of_c_times_f_is_named_and_holds_and_is_refused_otherwise():
    x = sp.symbols("x1 x2", real=True)
    e2, a, b = sp.symbols("e2 e1_1 e1_2", real=True)
    expert = parse_expert("e2*gelu(dot(e1, x))", 2)
    atom = Atom(expert, e2="1/8", e1_1="3/8", e1_2="-1/4")
    relation = [member(0, "d", ["e1_1"], 1), member(0, "dd", ["e2", "e1_1"], R(-1, 8))]  # ∂h/∂θ = c·∂²h/∂c∂θ
    gelu = lambda z: z / 2 * (1 + sp.erf(z / sp.sqrt(2)))  # noqa: E731
    assert expert_residual(e2 * gelu(a * x[0] + b * x[1]), [atom], relation, x) == 0
    assert homogeneity.expert_name(expert, [atom], relation) == homogeneity.SCALE
    wrong = [relation[0], member(0, "dd", ["e2", "e1_1"], R(-1, 4))]
    assert homogeneity.expert_name(expert, [atom], wrong) is None
    # exp(e2)·gelu(…) is not linear in e2: the same shape is no scale relation
    other = parse_expert("exp(e2)*gelu(dot(e1, x))", 2)
    assert expert_residual(sp.exp(e2) * gelu(a * x[0] + b * x[1]), [Atom(other, **atom.by_name)], relation, x) != 0
    assert homogeneity.expert_name(other, [Atom(other, **atom.by_name)], relation) is None


def test_a_rescaling_that_leaves_h_unchanged_is_euler_and_is_proved():
    x = sp.symbols("x1 x2", real=True)
    e2, a, b, e0 = sp.symbols("e2 e1_1 e1_2 e0", real=True)
    expert = parse_expert("e2*(dot(e1, x) + e0)**3", 2)
    atom = Atom(expert, e2="3/8", e1_1="1/2", e1_2="-5/8", e0="1/4")
    # h(t^-3·e2, t·e1, t·e0) = h: weights (−3, 1, 1, 1), coefficients w_u·θ_u
    weights = {"e2": -3, "e1_1": 1, "e1_2": 1, "e0": 1}
    relation = [member(0, "d", [n], w * atom.by_name[n]) for n, w in weights.items()]
    assert expert_residual(e2 * (a * x[0] + b * x[1] + e0) ** 3, [atom], relation, x) == 0
    assert homogeneity.expert_name(expert, [atom], relation) == homogeneity.EXPERT_EULER
    sigmoid = parse_expert("e2*sigmoid(dot(e1, x) + e0)", 2)
    assert homogeneity.expert_name(sigmoid, [Atom(sigmoid, **atom.by_name)], relation) is None


def test_the_condition_names_the_scale_relation_it_finds_through_the_family():
    result = check("e2*tanh(dot(e1, x))", condition="deepseek-routed", dim=1)
    single = next(p for p in result.probes if p.name == "S3: random, k = 1")
    scale = [r for r in single.relations if r.family == homogeneity.SCALE]
    assert scale and all(r.proved for r in scale)


def test_a_product_relation_that_is_the_rescaling_times_a_member_is_euler():
    x = sp.symbols("x1 x2", real=True)
    e2, a, b, e0 = sp.symbols("e2 e1_1 e1_2 e0", real=True)
    h = e2 * (a * x[0] + b * x[1] + e0) ** 3
    expert = parse_expert("e2*(dot(e1, x) + e0)**3", 2)
    weights = homogeneity.euler_weights(expert.h, tuple(expert.params), tuple(expert.x))
    assert weights == (3, -1, -1, -1)  # h(t³·e2, e1/t, e0/t) = h, by hand:
    t = sp.Symbol("t", positive=True)
    assert sp.simplify(h.xreplace({e2: t**3 * e2, a: a / t, b: b / t, e0: e0 / t}) - h) == 0
    atom = Atom(expert, e2="3/8", e1_1="1/2", e1_2="-5/8", e0="1/4")
    e = {n: w * v for (n, v), w in zip(atom.items(), weights)}
    # (Σ_u e_u ∂_u h)·∂h/∂e0 as S2's products ∂_u h·∂_e0 h (u ≤ e0 in the expert's order: e0 is last)
    relation = [member(0, "prod", [n, "e0"], e[n] * (2 if n == "e0" else 1)) for n in e]
    relation[-1] = member(0, "prod", ["e0", "e0"], e["e0"])
    assert expert_residual(h, [atom], relation, x) == 0
    assert homogeneity.expert_name(expert, [atom], relation) == homogeneity.EXPERT_EULER
    wrong = relation[:-1] + [member(0, "prod", ["e0", "e0"], 2 * e["e0"])]
    assert expert_residual(h, [atom], wrong, x) != 0 and homogeneity.expert_name(expert, [atom], wrong) is None
    gelu = parse_expert("e2*gelu(dot(e1, x))", 2)
    assert homogeneity.euler_weights(gelu.h, tuple(gelu.params), tuple(gelu.x)) is None
