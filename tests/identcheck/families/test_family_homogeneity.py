"""The scale/homogeneity family (identcheck/families/homogeneity.py): proposed where the structure
has it, proved (checked here by sympy on functions written by hand), never named where it fails."""

import sympy as sp

from identcheck import parse_activation
from identcheck.check import check
from identcheck.families import homogeneity
from identcheck.families.phi import phi_properties
from identcheck.families.type1 import templates_for
from identcheck.parse.expert import parse_expert
from identcheck.terms.probes import default_probes
from identcheck.terms.type1 import type1_term_set
from identcheck.util.budget import pool

from ..family_checks import Atom, Recorder, expert_residual, member, type1_residual

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


def _scale_pairs_by_hand(h, expert_text, dim, scalars, values):
    """For every (c, θ) of an expert written by hand (h, with symbols named like the expert's): the
    name expected for ∂h/∂θ − c·∂²h/∂c∂θ = 0 at the atom ``values`` — SCALE exactly when sympy says
    the relation holds for every x and θ (θ inside c's part of h), else None — and the name given."""
    expert = parse_expert(expert_text, dim)
    atom = Atom(expert, **values)
    symbols = {s.name: s for s in h.free_symbols}
    out = []
    for c in scalars:
        for theta in atom.by_name:
            if theta == c:
                continue
            relation_holds = sp.simplify(
                sp.diff(h, symbols[theta]) - symbols[c] * sp.diff(h, symbols[c], symbols[theta])
            )
            expected = homogeneity.SCALE if relation_holds == 0 else None
            relation = [member(0, "d", [theta], 1), member(0, "dd", [c, theta], -atom.by_name[c])]
            out.append((c, theta, expected, homogeneity.expert_name(expert, [atom], relation)))
    return out


def test_the_scale_of_one_unit_of_an_mlp_is_named_for_its_own_parameters_only():
    """h = c1·tanh(w1ᵀx + b1) + c2·tanh(w2ᵀx + b2) is not c1·f (c1·∂h/∂c1 ≠ h), yet for θ in unit 1
    ∂h/∂θ = c1·∂²h/∂c1∂θ: the scale relation (was named 'coinciding members')."""
    x = sp.symbols("x1 x2", real=True)
    c1, w11, w12, b1, c2, w21, w22, b2 = sp.symbols("c1 w1_1 w1_2 b1 c2 w2_1 w2_2 b2", real=True)
    h = c1 * sp.tanh(w11 * x[0] + w12 * x[1] + b1) + c2 * sp.tanh(w21 * x[0] + w22 * x[1] + b2)
    assert sp.simplify(c1 * sp.diff(h, c1) - h) != 0  # not homogeneous in c1
    values = dict(c1="1/8", w1_1="-7/8", w1_2="-1/2", b1="7/8", c2="7/8", w2_1="1/2", w2_2="7/8", b2="1")
    pairs = _scale_pairs_by_hand(h, "c1*tanh(dot(w1, x) + b1) + c2*tanh(dot(w2, x) + b2)", 2, ["c1", "c2"], values)
    named = {(c, theta) for c, theta, expected, _ in pairs if expected}
    assert named == {("c1", "w1_1"), ("c1", "w1_2"), ("c1", "b1"), ("c2", "w2_1"), ("c2", "w2_2"), ("c2", "b2")}
    assert all(given == expected for _, _, expected, given in pairs)


def test_the_scale_of_a_skip_connections_branch_is_named_and_the_skip_is_not():
    x = sp.symbols("x1 x2", real=True)
    w1, w2, c, v1, v2, b = sp.symbols("w_1 w_2 c v_1 v_2 b", real=True)
    h = w1 * x[0] + w2 * x[1] + c * sp.tanh(v1 * x[0] + v2 * x[1] + b)
    assert sp.simplify(c * sp.diff(h, c) - h) != 0
    values = dict(w_1="3/8", w_2="-5/8", c="-1/2", v_1="1/4", v_2="7/8", b="-3/8")
    pairs = _scale_pairs_by_hand(h, "dot(w, x) + c*tanh(dot(v, x) + b)", 2, ["c", "b"], values)
    named = {(c_, theta) for c_, theta, expected, _ in pairs if expected}
    assert named == {("c", "v_1"), ("c", "v_2"), ("c", "b")}  # w is outside c's part: ∂h/∂w ≠ 0 = c·∂²h/∂c∂w
    assert all(given == expected for _, _, expected, given in pairs)


def test_the_scale_of_a_routed_sine_is_named():
    x = sp.symbols("x1 x2", real=True)
    e2, a, b = sp.symbols("e2 e1_1 e1_2", real=True)
    h = e2 * sp.sin(a * x[0] + b * x[1])
    pairs = _scale_pairs_by_hand(h, "e2*sin(dot(e1, x))", 2, ["e2"], dict(e2="1/8", e1_1="3/8", e1_2="-1/4"))
    assert [(c, theta, expected) for c, theta, expected, _ in pairs] == [
        ("e2", "e1_1", homogeneity.SCALE),
        ("e2", "e1_2", homogeneity.SCALE),
    ]
    assert all(given == expected for _, _, expected, given in pairs)


def test_a_skip_connections_scale_relation_is_named_by_the_condition():
    result = check("dot(w, x) + c*tanh(dot(v, x) + b)", condition="deepseek-routed", dim=1)
    relations = [r for p in result.probes for r in p.relations if len(r.keys) == 2]
    scale = [r for r in relations if r.family == homogeneity.SCALE]
    assert scale and all(r.proved for r in scale)
    assert not [r for r in relations if r.family == "coinciding members" and "∂c∂" in str(r)]


def test_a_hypothesis_is_refuted_at_a_point_before_sympy_simplifies_and_is_decided_once(monkeypatch):
    z, w, b = sp.symbols("z w b", real=True)
    calls = []
    real = sp.simplify
    monkeypatch.setattr(sp, "simplify", lambda e, *a, **k: calls.append(e) or real(e, *a, **k))
    # sin² + cos² − 1 ≡ 0 needs simplify (expand leaves it): not refuted at any point, then proved
    identity = sp.sin(w * z + b) ** 2 + sp.cos(w * z + b) ** 2 - 1
    assert sp.expand(identity) != 0 and real(identity) == 0
    assert homogeneity._zero(identity) == (True, False) and len(calls) == 1
    # sin² − cos² is not: its value at a rational point refutes it, no simplify
    assert homogeneity._zero(sp.sin(w * z + b) ** 2 - sp.cos(w * z + b) ** 2) == (False, False)
    assert len(calls) == 1
    # the scale hypothesis of one (h, c, θ) is decided once
    decided = []
    real_zero = homogeneity._zero
    monkeypatch.setattr(homogeneity, "_zero", lambda e: decided.append(e) or real_zero(e))
    c = sp.Symbol("c_once", real=True)
    h = c * sp.sin(w * z + b) ** 2 + c * sp.cos(w * z + b) ** 2 + w * z
    assert homogeneity.scale_holds(h, c, b) and homogeneity.scale_holds(h, c, b)
    assert not homogeneity.scale_holds(h, c, w) and not homogeneity.scale_holds(h, c, w)  # ∂(c·∂h/∂c − h)/∂w = −z
    assert len(decided) == 2 and len(calls) == 1  # b's by expand, w's at a point


def test_a_hypothesis_the_budget_cut_short_is_not_kept():
    """sin² + cos² − 1 needs simplify: under a spent pool it is not proved (and not kept), afterwards it is."""
    w = sp.Symbol("w_cut", real=True)
    identity = sp.sin(w) ** 2 + sp.cos(w) ** 2 - 1
    assert sp.expand(identity) != 0 and sp.simplify(identity) == 0
    with pool(0):
        assert not homogeneity._identity(("test", identity), lambda: identity)
    assert homogeneity._identity(("test", identity), lambda: identity)
