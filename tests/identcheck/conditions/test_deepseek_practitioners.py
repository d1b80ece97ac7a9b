"""Ten experts a practitioner would try (docs/conditions/deepseekmoe.md), through the DeepSeekMoE
conditions at d = 2, seed 0.

Every expectation is derived by hand and checked here with sympy on h written out by hand (never
parsed by the tool): the relations a probe must have, as a span over the members' keys (a
relation's basis is the tool's choice, its span is not), and their reach — a relation holds for
the template (the function calls made arbitrary: sympy ``Function``) or only for the expert.
The tool's output is compared with those; it is never the source of an expected value.
"""

import pytest
import sympy as sp

from identcheck.check import check
from identcheck.families.reach import REACH_EXPERT, REACH_TEMPLATE
from identcheck.parse.param_ids import symbol_name

x1, x2 = sp.symbols("x1 x2", real=True)
z = sp.Symbol("z", real=True)
F, F1, F2 = sp.Function("F"), sp.Function("F1"), sp.Function("F2")
SIGN_PAIR = "sign pair θ2 = −θ1"
TEMPLATE_ONLY = "fails only through relations shared by every expert of its template"
# stands in for an arbitrary function when a relation must fail for the template: no parity, no ODE
GENERIC = sp.Lambda(z, sp.exp(z / 3) + sp.sin(2 * z + 1) / 2 + z**3 / 5)
POINTS = [(sp.Rational(3, 7), sp.Rational(-5, 11)), (sp.Rational(-2, 9), sp.Rational(7, 13))]


def sigmoid(t):
    return 1 / (1 + sp.exp(-t))


def run(expert, condition):
    return check(expert, condition=f"deepseek-{condition}")


def dependent(result) -> list[str]:
    return [p.name for p in result.probes if p.dependent]


def atom(p, i) -> dict:
    """Atom i of probe p: {sympy symbol name: exact value} (a vector p's entries are p_1, p_2)."""
    params = p.components[i].to_dict()["params"]
    return {_symbol(label): sp.Rational(v) for label, v in params.items()}


def _symbol(label: str) -> str:
    return label.replace("⁽¹⁾", "_1").replace("⁽²⁾", "_2")


def coefficients(relation) -> dict:
    assert relation.exact is not None, f"{relation} has no exact coefficients"
    return {_named(key): sp.Rational(v) for key, (_, v) in zip(relation.keys, relation.exact)}


def _named(key):
    """A relation's key with its typed parameter ids (``("e1", 0)``) written as the symbols below (e1_1)."""
    return key if key == ("1",) else (key[0], (*key[1][:-1], tuple(symbol_name(p) for p in key[1][-1])))


def same_span(relations, expected) -> bool:
    """The tool's relations span exactly the hand-derived ones (``expected``: {key: coefficient})."""
    found = [coefficients(r) for r in relations]
    keys = sorted({k for c in found + expected for k in c}, key=repr)
    tool = sp.Matrix([[c.get(k, 0) for k in keys] for c in found])
    hand = sp.Matrix([[c.get(k, 0) for k in keys] for c in expected])
    return tool.rank() == hand.rank() == len(expected) == sp.Matrix.vstack(tool, hand).rank()


def in_span(relations, vector) -> bool:
    """``vector`` ({key: coefficient}) is a combination of the tool's relations."""
    found = [coefficients(r) for r in relations]
    keys = sorted({k for c in found + [vector] for k in c}, key=repr)
    tool = sp.Matrix([[c.get(k, 0) for k in keys] for c in found])
    return tool.rank() == sp.Matrix.vstack(tool, sp.Matrix([[vector.get(k, 0) for k in keys]])).rank()


def tied(members, sign=-1) -> list[dict]:
    """Member m of atom [1] plus ``sign`` times the same member of atom [2], for each m."""
    return [{(0, m): 1, (1, m): sign} for m in members]


def d(name):
    return ("d", (name,))


def prod(u, v):
    return ("prod", (u, v))


def vanishes(expr, at=None) -> bool:
    """expr ≡ 0 in x, checked at two rational points to 40 digits after the undefined functions of
    the template are replaced by ``at`` (None: expr has none)."""
    if at is not None:
        expr = expr.subs({f: at for f in (F, F1, F2)}).doit()
    values = [abs(expr.subs({x1: a, x2: b}).evalf(40)) for a, b in POINTS]
    return all(v < 1e-30 for v in values)


# 1, 2: SiLU and GELU with a bias: f(z) − f(−z) = z ties the sign pair through one eight-member relation
@pytest.mark.parametrize(
    "name, f",
    [("silu", z * sigmoid(z)), ("gelu", z / 2 * (1 + sp.erf(z / sp.sqrt(2))))],
)
def test_silu_and_gelu_with_bias_fail_weak_only_on_the_sign_pair_through_f_minus_its_mirror(name, f):
    assert sp.simplify(f - f.subs(z, -z) - z) == 0  # by hand: z·(Φ(z) + Φ(−z)) = z
    result = run(f"e2*{name}(dot(e1, x) + e0)", "weak")
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "proof"
    assert dependent(result) == [f"D2: {SIGN_PAIR}"]
    p = result.probes[3]
    [relation] = p.relations
    assert relation.proved and relation.reach == REACH_EXPERT
    # Δ = member of [1] − member of [2]: Δ∂h/∂e2 = z, Δ∂h/∂e1⁽ᵘ⁾ = e2·x_u, Δ∂h/∂e0 = e2, so
    # e2·Δ∂h/∂e2 − Σ e1⁽ᵘ⁾·Δ∂h/∂e1⁽ᵘ⁾ − e0·Δ∂h/∂e0 = 0
    t = atom(p, 0)
    weights = {"e2": t["e2"], "e1_1": -t["e1_1"], "e1_2": -t["e1_2"], "e0": -t["e0"]}
    expected = {(j, d(k)): w * (1 if j == 0 else -1) for k, w in weights.items() for j in (0, 1)}
    assert same_span([relation], [expected])
    # the relation with the tool's coefficients vanishes for h, not for e2·F(e1ᵀx + e0)
    e2, a, b, e0 = sp.symbols("e2 a b e0", real=True)
    names = {"e2": e2, "e1_1": a, "e1_2": b, "e0": e0}
    for h, holds in ((e2 * f.subs(z, a * x1 + b * x2 + e0), True), (e2 * F(a * x1 + b * x2 + e0), False)):
        total = sum(
            c * sp.diff(h, names[key[1][1][0]]).subs({s: (1 if key[0] == 0 else -1) * t[n] for n, s in names.items()})
            for key, c in coefficients(relation).items()
        )
        assert vanishes(total, None if holds else GENERIC) is holds


@pytest.mark.slow  # 10–26 s; `python3 -m pytest -m slow` runs it
def test_two_unit_tanh_mlp_weak_fails_on_the_sign_pair_only_and_shared_through_cross_products_of_its_units():
    c1, c2, a1, a2, b1, v1, v2, b2 = sp.symbols("c1 c2 a1 a2 b1 v1 v2 b2", real=True)
    theta = (c1, a1, a2, b1, c2, v1, v2, b2)
    mlp = c1 * sp.tanh(a1 * x1 + a2 * x2 + b1) + c2 * sp.tanh(v1 * x1 + v2 * x2 + b2)
    negated = {s: -s for s in theta}
    assert sp.simplify(mlp.subs(negated, simultaneous=True) - mlp) == 0  # tanh odd: h(−θ) = h(θ), ∇h(−θ) = −∇h(θ)
    members = [d(n) for n in ("c1", "w1_1", "w1_2", "b1", "c2", "w2_1", "w2_2", "b2")]

    weak = run("c1*tanh(dot(w1, x) + b1) + c2*tanh(dot(w2, x) + b2)", "weak")
    assert str(weak.verdict) == "not identifiable" and dependent(weak) == [f"D2: {SIGN_PAIR}"]
    sign = weak.probes[3]
    assert sign.nullity == 8 and same_span(sign.relations, tied(members, sign=+1))
    assert all(r.proved and r.reach == REACH_EXPERT for r in sign.relations)
    template = c1 * F1(a1 * x1 + a2 * x2 + b1) + c2 * F2(v1 * x1 + v2 * x2 + b2)
    flipped = template.diff(c1).subs(negated, simultaneous=True) + template.diff(c1)  # ∂h/∂c1[1] + ∂h/∂c1[2]
    assert not vanishes(flipped.subs({c1: sp.Rational(1, 2), a1: 1, a2: 2, b1: 3}), GENERIC)  # specific

    shared = run("c1*tanh(dot(w1, x) + b1) + c2*tanh(dot(w2, x) + b2)", "shared")
    first = next(p for p in shared.probes if p.name == "S2: random, k = 1")
    assert shared.witness == "S2: random, k = 1" and first.nullity == 3
    # two ridge units: ∂h/∂w1⁽ᵘ⁾ = x_u·∂h/∂b1, ∂h/∂w2⁽ᵛ⁾ = x_v·∂h/∂b2, for any F1, F2
    D = {n: template.diff(s) for n, s in zip(("c1", "w1_1", "w1_2", "b1", "c2", "w2_1", "w2_2", "b2"), theta)}
    pairs = [(("w1_1", "w2_2"), ("w1_2", "w2_1")), (("w1_1", "b2"), ("b1", "w2_1")), (("w1_2", "b2"), ("b1", "w2_2"))]
    for (p, q), (r, s) in pairs:
        assert sp.expand(D[p] * D[q] - D[r] * D[s]) == 0
    expected = [{(0, prod(*pq)): 1, (0, prod(*rs)): -1} for pq, rs in pairs]
    assert same_span(first.relations, expected) and all(r.reach == REACH_TEMPLATE for r in first.relations)


@pytest.mark.slow  # 10–26 s; `python3 -m pytest -m slow` runs it
def test_quadratic_expert_linear_in_its_parameters():
    q1, q2, q3, w1, w2, b = sp.symbols("q1 q2 q3 w1 w2 b", real=True)
    theta = {"q1": q1, "q2": q2, "q3": q3, "w_1": w1, "w_2": w2, "b": b}
    h = q1 * x1**2 + q2 * x1 * x2 + q3 * x2**2 + w1 * x1 + w2 * x2 + b
    text = "q1*x1**2 + q2*x1*x2 + q3*x2**2 + dot(w, x) + b"

    weak = run(text, "weak")
    assert weak.probes[0].name == "D2: random, k = 1" and weak.probes[0].dependent is False  # 6 monomials
    pair = weak.probes[1]
    assert weak.witness == "D2: random, k = 2" and same_span(pair.relations, tied([d(n) for n in theta]))
    assert all(r.reach == REACH_EXPERT for r in pair.relations)  # F(h): the atoms' F'(h(θ_i)) differ

    shared = run(text, "shared")
    first = next(p for p in shared.probes if p.name == "S2: random, k = 1")
    names = list(theta)
    products = [sp.expand(sp.diff(h, theta[u]) * sp.diff(h, theta[v])) for i, u in enumerate(names) for v in names[i:]]
    monomials = {m for p in products for m in sp.Poly(p, x1, x2).monoms()} | {(0, 0)}
    assert first.nullity == len(products) + 1 - len(monomials) == 7  # 21 products and S2's 1 in 15 monomials
    # (∂h/∂b)² = 1 is the expert's; the six coincidences among products are F'(h)²-homogeneous: F(h)'s too
    specific = [r for r in first.relations if r.reach == REACH_EXPERT]
    assert len(specific) == 1 and len(first.relations) == 7
    gF = {n: sp.diff(F(h), s) for n, s in theta.items()}
    assert sp.expand(gF["q1"] * gF["q3"] - gF["q2"] ** 2) == 0 and sp.expand(gF["w_1"] ** 2 - gF["q1"] * gF["b"]) == 0
    t = atom(first, 0)
    assert not vanishes((gF["b"] ** 2 - 1).subs({v: t[n] for n, v in theta.items()}), GENERIC)


def test_gaussian_rbf_with_a_learned_width_is_weakly_identifiable_and_fails_s2_through_its_radial_shape():
    c, s, m1, m2 = sp.symbols("c s m1 m2", real=True)
    text = "c*exp(-s*((x1 - m1)**2 + (x2 - m2)**2))"
    weak = run(text, "weak")
    assert str(weak.verdict) == "identifiable" and len(weak.probes) == 8

    shared = run(text, "shared")
    assert str(shared.verdict) == "not identifiable"
    assert dependent(shared) == [p.name for p in shared.probes if p.name.startswith("S2")]  # S1 independent
    first = next(p for p in shared.probes if p.name == "S2: random, k = 1")
    [relation] = first.relations
    t = atom(first, 0)
    # ∂h/∂c·∂h/∂s + ((∂h/∂m1)² + (∂h/∂m2)²)/(4cs²) = 0: r² is the sum of the squares ∂h/∂m_u carry
    expected = {(0, prod("c", "s")): 4 * t["c"] * t["s"] ** 2, (0, prod("m1", "m1")): 1, (0, prod("m2", "m2")): 1}
    assert relation.proved and relation.reach == REACH_EXPERT and same_span([relation], [expected])
    g = {"rbf": sp.exp(-s * ((x1 - m1) ** 2 + (x2 - m2) ** 2)), "template": F(-s * (F1(x1 - m1) + F2(x2 - m2)))}
    for kind, inner in g.items():
        h = c * inner
        identity = sp.diff(h, c) * sp.diff(h, s) + (sp.diff(h, m1) ** 2 + sp.diff(h, m2) ** 2) / (4 * c * s**2)
        at = {c: t["c"], s: t["s"], m1: t["m1"], m2: t["m2"]}
        assert vanishes(identity.subs(at), None if kind == "rbf" else GENERIC) is (kind == "rbf")


def test_exponential_with_bias_ties_atoms_sharing_e1_by_an_irrational_ratio_numerically():
    result = run("exp(dot(e1, x) + e0)", "weak")
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "numeric"
    assert dependent(result) == ["D2: shared e1, the rest distinct"]
    p = next(p for p in result.probes if p.dependent)
    # e^(e1ᵀx + e0') = e^(e0' − e0)·e^(e1ᵀx + e0): every member of [2] is e^(e0[2] − e0[1]) times [1]'s
    ratio = float(sp.exp(atom(p, 1)["e0"] - atom(p, 0)["e0"]))
    assert p.nullity == 3
    for relation in p.relations:
        assert relation.exact is None and not relation.proved and relation.reach is None  # e^(k/8) is irrational
        terms = dict(relation.terms)
        [one, two] = sorted(terms, key=lambda label: label.endswith("[2]"))
        assert abs(-terms[one] / terms[two] - ratio) < 1e-9


@pytest.mark.slow  # 10–26 s; `python3 -m pytest -m slow` runs it
def test_sigmoid_gated_linear_unit():
    g1, g2, g0, w1, w2, b = sp.symbols("g1 g2 g0 w1 w2 b", real=True)
    u = sp.Symbol("u", real=True)
    assert sp.simplify(sp.diff(sigmoid(u), u) - sp.diff(sigmoid(u), u).subs(u, -u)) == 0  # σ' even
    text = "sigmoid(dot(g, x) + g0)*(dot(w, x) + b)"

    weak = run(text, "weak")
    assert dependent(weak) == [f"D2: {SIGN_PAIR}"]
    sign = weak.probes[3]
    # σ(−u)·(−L) = σ(u)·L − L: the gate's derivatives of [2] are minus [1]'s; the value's sum to x_u, 1
    assert same_span(sign.relations, tied([d("g_1"), d("g_2"), d("g0")], sign=+1))
    assert all(r.proved and r.reach == REACH_EXPERT for r in sign.relations)

    shared = run(text, "shared")
    first = next(p for p in shared.probes if p.name == "S2: random, k = 1")
    template = F(g1 * x1 + g2 * x2 + g0) * (w1 * x1 + w2 * x2 + b)
    D = {n: template.diff(v) for n, v in zip(("g_1", "g_2", "g0", "w_1", "w_2", "b"), (g1, g2, g0, w1, w2, b))}
    pairs = [(("g_1", "w_2"), ("g_2", "w_1")), (("g_1", "b"), ("g0", "w_1")), (("g_2", "b"), ("g0", "w_2"))]
    assert all(sp.expand(D[p] * D[q] - D[r] * D[s]) == 0 for (p, q), (r, s) in pairs)  # any gate F
    expected = [{(0, prod(*pq)): 1, (0, prod(*rs)): -1} for pq, rs in pairs]
    assert shared.witness == "S2: random, k = 1" and same_span(first.relations, expected)
    assert all(r.reach == REACH_TEMPLATE for r in first.relations)


def test_squared_ridge_fails_on_one_atom_through_degree_two_homogeneity():
    result = run("e2*(dot(e1, x) + e0)**2", "weak")
    single = result.probes[0]
    assert single.name == "D2: random, k = 1" and result.witness == single.name
    [relation] = single.relations
    t = atom(single, 0)
    # h(e2/t², t·e1, t·e0) = h: −2e2·∂h/∂e2 + Σ e1⁽ᵘ⁾·∂h/∂e1⁽ᵘ⁾ + e0·∂h/∂e0 = 0
    expected = {(0, d("e2")): -2 * t["e2"], (0, d("e1_1")): t["e1_1"], (0, d("e1_2")): t["e1_2"], (0, d("e0")): t["e0"]}
    assert relation.proved and relation.reach == REACH_EXPERT and same_span([relation], [expected])
    e2, a, b, e0 = sp.symbols("e2 a b e0", real=True)
    for h, holds in ((e2 * (a * x1 + b * x2 + e0) ** 2, True), (e2 * F(a * x1 + b * x2 + e0), False)):
        euler = -2 * e2 * h.diff(e2) + a * h.diff(a) + b * h.diff(b) + e0 * h.diff(e0)
        at = {e2: t["e2"], a: t["e1_1"], b: t["e1_2"], e0: t["e0"]}
        assert vanishes(euler.subs(at), None if holds else GENERIC) is holds


@pytest.mark.parametrize("condition, sets", [("weak", ("D2",)), ("shared", ("S1", "S2"))])
def test_softplus_with_a_learned_beta_fails_only_through_its_templates_odd_parameterisation(condition, sets):
    s, w1, w2, b = sp.symbols("s w1 w2 b", real=True)
    template = F(s * (w1 * x1 + w2 * x2 + b)) / s  # odd in θ for any F, so its gradient is even
    negated = {v: -v for v in (s, w1, w2, b)}
    assert all(sp.simplify(template.diff(v).subs(negated, simultaneous=True) - template.diff(v)) == 0 for v in negated)
    result = run("softplus(s*(dot(w, x) + b))/s", condition)
    assert dependent(result) == [f"{name}: {SIGN_PAIR}" for name in sets]
    assert TEMPLATE_ONLY in result.summary
    first = next(p for p in result.probes if p.dependent)
    assert same_span(first.relations, tied([d(n) for n in ("s", "w_1", "w_2", "b")]))
    assert all(r.proved and r.reach == REACH_TEMPLATE for r in first.relations)


def test_linear_plus_tanh_unit_skip_connection():
    w1, w2, c, v1, v2, b = sp.symbols("w1 w2 c v1 v2 b", real=True)
    template = w1 * x1 + w2 * x2 + c * F(v1 * x1 + v2 * x2 + b)
    text = "dot(w, x) + c*tanh(dot(v, x) + b)"

    weak = run(text, "weak")
    assert weak.witness == "D2: random, k = 2" and weak.probes[0].dependent is False
    pair = weak.probes[1]
    assert sp.diff(template, w1) == x1  # ∂h/∂w = x at every atom, for any F
    assert same_span(pair.relations, tied([d("w_1"), d("w_2")]))
    assert all(r.reach == REACH_TEMPLATE for r in pair.relations)
    sign = weak.probes[3]
    assert sign.name == f"D2: {SIGN_PAIR}" and any(r.reach == REACH_EXPERT for r in sign.relations)  # tanh odd

    shared = run(text, "shared")
    first = next(p for p in shared.probes if p.name == "S2: random, k = 1")
    assert shared.witness == first.name and first.nullity == 1
    D = {n: template.diff(v) for n, v in (("w_1", w1), ("w_2", w2), ("v_1", v1), ("v_2", v2))}
    assert sp.expand(D["w_1"] * D["v_2"] - D["w_2"] * D["v_1"]) == 0  # two ridges, no bias to pair with
    expected = {(0, prod("w_1", "v_2")): 1, (0, prod("w_2", "v_1")): -1}
    assert same_span(first.relations, [expected]) and first.relations[0].reach == REACH_TEMPLATE


def test_gelu_with_bias_routed_single_atom_is_the_templates_seven_relations():
    result = run("e2*gelu(dot(e1, x) + e0)", "routed")
    single = result.probes[0]
    assert single.name == "S3: random, k = 1" and single.nullity == 7
    t = atom(single, 0)

    def dd(u, v):
        return ("dd", (u, v))

    def xd(w, v):
        return ("x", w, (v,))

    # any e2·F(e1ᵀx + e0): ∂²h/∂e2∂θ = ∂h/∂θ / e2 (three), ∂²h/∂e2² = 0, ∂h/∂e1⁽ᵘ⁾ = x_u·∂h/∂e0 (two),
    # x1·∂h/∂e1⁽²⁾ = x2·∂h/∂e1⁽¹⁾
    expected = [{(0, d(v)): 1, (0, dd("e2", v)): -t["e2"]} for v in ("e1_1", "e1_2", "e0")]
    expected += [{(0, dd("e2", "e2")): 1}]
    expected += [{(0, d(f"e1_{u}")): 1, (0, xd(u, "e0")): -1} for u in (1, 2)]
    expected += [{(0, xd(1, "e1_2")): 1, (0, xd(2, "e1_1")): -1}]
    assert same_span(single.relations, expected)
    assert all(r.proved and r.reach == REACH_TEMPLATE for r in single.relations)
    e2, a, b, e0 = sp.symbols("e2 a b e0", real=True)
    h = e2 * F(a * x1 + b * x2 + e0)
    assert sp.expand(h.diff(e2, a) * e2 - h.diff(a)) == 0 and sp.expand(h.diff(a) - x1 * h.diff(e0)) == 0
    assert sp.expand(x1 * h.diff(b) - x2 * h.diff(a)) == 0 and h.diff(e2, 2) == 0


@pytest.mark.slow
def test_gaussian_rbf_routed_has_template_and_specific_relations_on_one_atom():
    """8–10 s at d = 2 (22 members, 13 relations proved for h and the template)."""
    result = run("c*exp(-s*((x1 - m1)**2 + (x2 - m2)**2))", "routed")
    single = result.probes[0]
    t = atom(single, 0)
    template = [r for r in single.relations if r.reach == REACH_TEMPLATE]
    specific = [r for r in single.relations if r.reach == REACH_EXPERT]
    assert single.nullity == 13 and len(template) == 4 and len(specific) == 9
    # any c·F: ∂²h/∂c² = 0 and ∂²h/∂c∂θ = ∂h/∂θ / c (θ = s, m1, m2)
    expected = [{(0, ("dd", ("c", "c"))): 1}]
    expected += [{(0, d(v)): 1, (0, ("dd", ("c", v))): -t["c"]} for v in ("s", "m1", "m2")]
    assert same_span(template, expected)
    # the RBF's own: x1·g = (x1 − m1)·g + m1·g, i.e. x1·∂h/∂c = ∂h/∂m1 / (2cs) + m1·∂h/∂c
    x_rel = {(0, ("x", 1, ("c",))): 1, (0, d("m1")): -1 / (2 * t["c"] * t["s"]), (0, d("c")): -t["m1"]}
    assert in_span(single.relations, x_rel) and not in_span(template, x_rel)
