"""The DeepSeekMoE conditions (identcheck/conditions/deepseek.py): verdicts, the paper's relations
for linear experts, reach, and the command line. Relations are checked against sympy directly."""

import json

import pytest
import sympy as sp

from identcheck.check import check
from identcheck.cli.main import main
from identcheck.errors import IdentcheckError
from identcheck.families.reach import REACH_EXPERT, REACH_TEMPLATE
from identcheck.parse.expert import parse_expert
from identcheck.results import key_from_json
from identcheck.terms.expert_sets import member_set

x1, x2 = sp.symbols("x1 x2", real=True)
F = sp.Function("F")


def test_linear_routed_expert_fails_through_the_papers_relation_shared_by_its_template():
    result = check("dot(e1, x) + e0", condition="deepseek-routed")
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "proof"
    first = result.witness_probe.relation
    assert str(first) == "∂h2/∂e1⁽¹⁾ − x1·∂h2/∂e0 = 0"
    assert first.proved and first.reach == REACH_TEMPLATE and "F(dot(e1, x) + e0)" in first.template
    assert first.family.startswith("bias shift")
    # by hand: h = e0 + e1ᵀx and any F(e0 + e1ᵀx) satisfy ∂h/∂e1⁽¹⁾ = x1·∂h/∂e0
    e0, a, b = sp.symbols("e0 a b")
    for h in (e0 + a * x1 + b * x2, F(e0 + a * x1 + b * x2)):
        assert sp.simplify(sp.diff(h, a) - x1 * sp.diff(h, e0)) == 0
    assert result.seconds < 30


def test_linear_shared_expert_fails_through_the_square_that_is_the_sets_1():
    result = check("dot(k1, x) + k0", condition="deepseek-shared")
    assert str(result.verdict) == "not identifiable"
    assert result.witness == "S2: random, k = 1"
    relation = result.witness_probe.relation
    assert str(relation) == "(∂h1/∂k0)² − 1 = 0" and relation.proved
    assert relation.reach == REACH_EXPERT  # F(k0 + k1ᵀx) has (∂h/∂k0)² = F'² ≠ 1
    k0 = sp.Symbol("k0")
    assert sp.diff(k0 + x1, k0) ** 2 == 1 and sp.simplify(sp.diff(F(k0 + x1), k0) ** 2 - 1) != 0


def test_gelu_routed_single_atom_fails_only_through_its_template():
    result = check("e2*gelu(dot(e1, x))", condition="deepseek-routed")
    assert str(result.verdict) == "not identifiable"
    single = next(p for p in result.probes if p.name == "S3: random, k = 1")
    assert single.nullity == 4
    assert all(r.proved and r.reach == REACH_TEMPLATE for r in single.relations)
    texts = {str(r) for r in single.relations}
    assert "x1·∂h2/∂e1⁽²⁾ − x2·∂h2/∂e1⁽¹⁾ = 0" in texts  # any ridge expert at d ≥ 2
    families = {str(r): r.family for r in single.relations}
    assert families["x1·∂h2/∂e1⁽²⁾ − x2·∂h2/∂e1⁽¹⁾ = 0"].startswith("x-swap of a ridge direction")
    assert families["∂h2/∂e1⁽¹⁾ − 1/8·∂²h2/∂e2∂e1⁽¹⁾ = 0"].startswith("scale")  # e2 = 1/8 on this atom
    assert families["∂²h2/∂e2² = 0"].startswith("linear in a parameter")
    assert "∂²h2/∂e2² = 0" in texts  # linear in the scale
    # the sign pair ties the atoms through gelu(z) − gelu(−z) = z: specific to GELU
    sign = next(p for p in result.probes if p.name == "S3: sign pair θ2 = −θ1")
    assert any(r.reach == REACH_EXPERT for r in sign.relations)
    z = sp.Symbol("z")
    gelu = z / 2 * (1 + sp.erf(z / sp.sqrt(2)))
    assert sp.simplify(gelu - gelu.subs(z, -z) - z) == 0
    assert (
        "specific to this expert, on 'S3: sign pair θ2 = −θ1', 'S3: sign pair of the vectors, scalars distinct' ("
        in result.summary
    )


def test_weak_identifiable_expert_and_template_wide_failure():
    good = check("softplus(dot(e1, x) + e0)", condition="deepseek-weak")
    assert str(good.verdict) == "identifiable"
    scaled = check("k2*sigmoid(dot(k1, x) + k0)", condition="deepseek-weak", params={"k0": "1/2"})
    assert str(scaled.verdict) == "not identifiable"
    assert scaled.witness == "D2: shared k1, the rest distinct"
    assert "fails only through relations shared by every expert of its template" in scaled.summary


def test_json_carries_reach_and_the_expression_parses_back(capsys):
    assert main(["check", "--condition", "deepseek-weak", "--expert", "dot(e1, x) + e0", "--json"]) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["condition"] == "deepseek-weak" and result["expression"] == "dot(e1, x) + e0"
    relation = result["probes"][1]["relations"][0]
    assert relation["reach"] in (REACH_EXPERT, REACH_TEMPLATE) and "reach_template" in relation
    assert list(result["probes"][0]["components"][0]["params"]) == ["e1⁽¹⁾", "e1⁽²⁾", "e0"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["check", "--condition", "deepseek-routed", "--expert", "e2*relu(dot(e1, x))"], "relu is not differentiable"),
        (["check", "--condition", "deepseek-routed", "z"], "give the expert as --expert"),
        (["check", "--expert", "a*x1"], "takes PHI, not an expert"),
        (["check", "--condition", "deepseek-shared", "--expert", "a*dot(p, x) + p"], "used outside dot"),
        (["check", "--condition", "deepseek-weak", "--expert", "a*log(dot(p, x))"], "vanishes or changes sign"),
        (["check", "--condition", "deepseek-weak", "--expert", "a**b*x1"], "not real on the probed domain"),
        (
            ["check", "--condition", "deepseek-weak", "--expert", "sigmoid(dot(p, x))/dot(p, x)"],
            "vanishes or changes sign inside x in [-1, 1]^2",
        ),
    ],
)
def test_cli_refusals_exit_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and message in captured.err and captured.err.count("\n") == 1


def test_library_refuses_a_missing_expert():
    with pytest.raises(IdentcheckError, match="needs an expert"):
        check(None, condition="deepseek-weak")


def test_homogeneous_expert_fails_on_one_atom_through_euler_specific_to_it():
    """The smooth analogue of ReLU's positive homogeneity (docs/conditions/deepseekmoe.md)."""
    result = check("k2*(dot(k1, x) + k0)**3", condition="deepseek-weak")
    single = next(p for p in result.probes if p.name == "D2: random, k = 1")
    [relation] = single.relations
    values = dict(
        zip(("k2", "k11", "k12", "k0"), (sp.Rational(v) for v in single.components[0].to_dict()["params"].values()))
    )
    # by hand: −3·k2·∂h/∂k2 + k1ᵀ∇_{k1}h + k0·∂h/∂k0 = 0, divided by k0
    expected = [-3 * values["k2"] / values["k0"], values["k11"] / values["k0"], values["k12"] / values["k0"], 1]
    assert [sp.Rational(c) for _, c in relation.exact] == expected
    assert relation.proved and relation.reach == REACH_EXPERT and relation.family.startswith("Euler/homogeneity")
    k2, a, b, k0 = sp.symbols("k2 a b k0")
    for h, holds in (((k2 * (a * x1 + b * x2 + k0) ** 3), True), (k2 * F(a * x1 + b * x2 + k0), False)):
        euler = -3 * k2 * sp.diff(h, k2) + a * sp.diff(h, a) + b * sp.diff(h, b) + k0 * sp.diff(h, k0)
        assert (sp.simplify(euler) == 0) is holds


def test_certify_proves_each_probe_and_replay_rebuilds_the_atoms():
    from identcheck.replay import replay

    result = check("softplus(dot(e1, x) + e0)", condition="deepseek-weak", certify=True)
    assert str(result.verdict) == "identifiable" and str(result.evidence) == "proof"
    data = json.loads(json.dumps(result.to_dict()))
    assert replay(data, "D2: random, k = 2")["proved"]


@pytest.mark.parametrize("dim", [1, 3, 6])
def test_any_dimension_from_one_to_six(dim):
    result = check("dot(e1, x) + e0", condition="deepseek-weak", dim=dim)
    single = result.probes[0]
    assert single.name == "D2: random, k = 1" and single.dependent is False and single.n_terms == dim + 1  # x1..xd, 1
    pair = result.probes[1]  # ∂h/∂θ = (x, 1) for every atom: the second atom repeats all d + 1 of them
    assert pair.dependent and pair.nullity == dim + 1


def test_cli_json_equals_the_api(capsys):
    argv = ["check", "--condition", "deepseek-shared", "--expert", "k2*tanh(dot(k1, x) + k0)", "--seed", "3", "--json"]
    assert main(argv) == 0
    [printed] = json.loads(capsys.readouterr().out)
    api = json.loads(json.dumps(check("k2*tanh(dot(k1, x) + k0)", condition="deepseek-shared", seed=3).to_dict()))
    for data in (printed, api):
        data.pop("seconds"), data.pop("environment")
    assert printed == api


def test_cli_param_fixes_a_scalar_and_the_json_expression_carries_it(capsys):
    argv = [
        "check",
        "--condition",
        "deepseek-weak",
        "--expert",
        "k2*sigmoid(dot(k1, x) + k0)",
        "--param",
        "k0=0.5",
        "--json",
    ]
    assert main(argv) == 0
    [result] = json.loads(capsys.readouterr().out)
    assert result["phi"] == "k2*sigmoid(dot(k1, x) + k0) [k0=1/2]"
    assert result["expression"] == "k2*sigmoid(dot(k1, x) + (1/2))"
    assert list(result["probes"][0]["components"][0]["params"]) == ["k2", "k1⁽¹⁾", "k1⁽²⁾"]  # k0 is no parameter now


def test_a_parameter_only_inside_a_function_call_has_a_template_too():
    # template F1(a)·x1: ∂/∂a at a = 1/8 is a Subs of F1', which sympy must not differentiate by a number
    result = check("exp(a)*x1 + b*x2", condition="deepseek-routed")
    assert str(result.verdict) == "not identifiable"
    assert all(r.reach is not None for p in result.probes for r in p.relations if r.proved)


def test_a_template_proof_neither_proved_nor_refuted_leaves_the_reach_unknown(monkeypatch):
    from identcheck.families import reach as expert_relations

    real = expert_relations.ProbeAlgebra.decide

    def undecided_for_templates(self, coefficients, which=-1):
        return real(self, coefficients, which) if which < 0 else (expert_relations.UNDECIDED, True)

    monkeypatch.setattr(expert_relations.ProbeAlgebra, "decide", undecided_for_templates)
    result = check("dot(e1, x) + e0", condition="deepseek-weak")
    relations = [r for p in result.probes for r in p.relations]
    assert relations and all(r.proved and r.reach is None for r in relations)  # never "specific" by default
    assert "of unknown reach" in result.summary and "specific" not in result.summary


def test_softplus_sign_pair_relation_is_proved_through_its_gradient():
    result = check("e2*softplus(dot(e1, x) + e0)", condition="deepseek-weak")
    assert str(result.evidence) == "proof"
    relation = next(p for p in result.probes if p.name == "D2: sign pair θ2 = −θ1").relation
    assert relation.proved and relation.reach == REACH_EXPERT and len(relation.exact) == 8
    z = sp.Symbol("z", real=True)  # behind it: softplus(z) − softplus(−z) = z, checked here at 40 digits
    identity = sp.log(1 + sp.exp(z)) - sp.log(1 + sp.exp(-z)) - z
    assert all(abs(identity.subs(z, v).evalf(40)) < 1e-35 for v in (sp.Rational(-7, 3), sp.Rational(1, 5), 3))


def test_relation_keys_name_the_parameters_typed():
    """("e1", 0) for component 0 of the vector e1, ("e0",) for a scalar — as type-1's ("a", 0); by hand
    from the relation's text ∂h2/∂e1⁽¹⁾ − x1·∂h2/∂e0 = 0, in the JSON as lists, and read back."""
    result = check("dot(e1, x) + e0", condition="deepseek-routed")
    relation = result.witness_probe.relation
    assert str(relation) == "∂h2/∂e1⁽¹⁾ − x1·∂h2/∂e0 = 0"
    assert relation.keys == ((0, ("d", (("e1", 0),))), (0, ("x", 1, (("e0",),))))
    data = result.to_dict()
    witness = next(p for p in data["probes"] if p["name"] == result.witness_probe.name)
    assert witness["relations"][0]["keys"] == [[0, ["d", [["e1", 0]]]], [0, ["x", 1, [["e0"]]]]]
    assert tuple(key_from_json(k) for k in witness["relations"][0]["keys"]) == relation.keys
    # a member built from a typed key is the derivative by that symbol (expert.py names e1's entries e1_1, e1_2)
    expert = parse_expert("e2*tanh(dot(e1, x)) + e0", 2)
    s3 = member_set(expert, "S3")
    e2, e11, e12 = sp.symbols("e2 e1_1 e1_2", real=True)
    by_key = {m.key: m.build(expert.h, expert.params, expert.x) for m in s3.members}
    assert sp.simplify(by_key[("d", (("e1", 1),))] - e2 * x2 * (1 - sp.tanh(e11 * x1 + e12 * x2) ** 2)) == 0
    assert sp.simplify(by_key[("dd", (("e2",), ("e1", 0)))] - x1 * (1 - sp.tanh(e11 * x1 + e12 * x2) ** 2)) == 0
    assert by_key[("x", 2, (("e0",),))] == x2
    assert [m.key for m in member_set(expert, "D2").members] == [
        ("d", (p,)) for p in [("e2",), ("e1", 0), ("e1", 1), ("e0",)]
    ]


@pytest.mark.parametrize("dim", [1, 2])
def test_term_counts_match_the_matrices_of_every_set(dim):
    """By hand, for h = k2·tanh(k1ᵀx + k0): θ = (k2, k1⁽¹⁾..k1⁽ᵈ⁾, k0), p = d + 2 parameters. S1 has p
    members per atom, S2 the p(p+1)/2 products u ≤ v and the constant 1 once per probe, S3 p first
    derivatives, p(p+1)/2 second ones and d·p x-multiplied ones, D2 the p first derivatives. A probe of
    set s on k atoms has k·members(s) + constants(s) columns; ``n_terms_per_component`` is an atom's
    members over the condition's sets (S1 + S2 for shared: no single set's count is the matrices')."""
    p = dim + 2
    expected = {
        "deepseek-shared": ({"S1": p, "S2": p * (p + 1) // 2}, {"S1": 0, "S2": 1}),
        "deepseek-routed": ({"S3": p + p * (p + 1) // 2 + dim * p}, {"S3": 0}),
        "deepseek-weak": ({"D2": p}, {"D2": 0}),
    }
    for condition, (members, constants) in expected.items():
        data = check("k2*tanh(dot(k1, x) + k0)", condition=condition, dim=dim).to_dict()
        counts = {k: v for k, v in data["details"].items() if k != "beyond_template"}
        assert counts == {"members_per_atom": members, "constants_per_probe": constants}, condition
        assert data["n_terms_per_component"] == sum(members.values()), condition
        for probe in data["probes"]:
            s = probe["name"].split(":")[0]
            assert probe["n_terms"] == len(probe["components"]) * members[s] + constants[s], probe["name"]
