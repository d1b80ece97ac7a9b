"""Expert sets as declarative recipes (identcheck/terms/recipes.py): the paper's four sets
as recipes, unchanged; the new parts (third derivatives, products of a first and a second
derivative, x-multiplied second derivatives) member by member against sympy; and a toy condition
on experts written in one module outside the package (:mod:`.toy_expert_condition`), registered with
one line, run through check, --certify and replay.

Expected values by hand. For h = exp(p1·x1 + b) (d = 1) every θ-derivative is a monomial in x1 times
h: ∂h/∂p1 = x1·h, ∂h/∂b = h, ∂³h/∂p1^i∂b^(3−i) = x1^i·h. T13 on one atom is h·{x1, 1, x1³, x1², x1, 1}:
rank 4, nullity 2, its null space spanned by ∂h/∂p1 = ∂³h/∂p1∂b² and ∂h/∂b = ∂³h/∂b³ — specific to
this expert: for any F(p1·x1 + b) they read x1·F' = x1·F''' and F' = F''', false for F = tanh.
"""

import itertools
import json

import pytest
import sympy as sp

from identcheck import CONDITIONS, check
from identcheck.cli.main import main
from identcheck.conditions.deepseek import DeepSeekRouted, DeepSeekShared, DeepSeekWeak, ExpertCondition
from identcheck.errors import IdentcheckError
from identcheck.families.xmultiplied import BIAS_SHIFT, X_SWAP
from identcheck.parse.expert import parse_expert
from identcheck.replay import replay
from identcheck.terms.expert_sets import SETS, member_set
from identcheck.terms.recipes import Derivatives, Product, SetRecipe, XMultiplied

from ..toy_expert_condition import T13, XP, ToyExpert


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(CONDITIONS, "toy-expert", ToyExpert)  # the one line: CONDITIONS["toy-expert"] = ToyExpert
    return "toy-expert"


def _paper_sets(expert, h):
    """S1, S2, S3, D2 of arXiv 2505.10860 written out, in the order and with the labels and keys
    the condition had before the recipes (docs/changelog.md, check/3's keys)."""
    ids = [(n, i) if n in expert.vectors else (n,) for n in expert.names for i in range(expert.dim)]
    ids = list(dict.fromkeys(ids))  # a scalar's id once
    lab, n = expert.labels, len(ids)
    d1 = [(f"∂{h}/∂{lab[u]}", ("d", (ids[u],))) for u in range(n)]
    pairs = [(u, v) for u in range(n) for v in range(u, n)]
    s2 = [
        ((f"(∂{h}/∂{lab[u]})²" if u == v else f"∂{h}/∂{lab[u]}·∂{h}/∂{lab[v]}"), ("prod", (ids[u], ids[v])))
        for u, v in pairs
    ]
    dd = [
        ((f"∂²{h}/∂{lab[u]}²" if u == v else f"∂²{h}/∂{lab[u]}∂{lab[v]}"), ("dd", (ids[u], ids[v]))) for u, v in pairs
    ]
    xs = [(f"x{w}·∂{h}/∂{lab[v]}", ("x", w, (ids[v],))) for w in range(1, expert.dim + 1) for v in range(n)]
    return {"S1": d1, "S2": s2, "S3": d1 + dd + xs, "D2": d1}


@pytest.mark.parametrize("text, dim", [("k2*tanh(dot(k1, x) + k0)", 2), ("e2*gelu(dot(e1, x))", 3), ("a*x1 + b", 1)])
def test_the_paper_sets_as_recipes_are_unchanged(text, dim):
    expert = parse_expert(text, dim)
    expected = _paper_sets(expert, "h2")
    symbol = {p.name: p for p in expert.params}
    for name, recipe in SETS.items():
        got = member_set(expert, recipe, "h2")
        assert [(m.label, m.key) for m in got.members] == expected[name], name
        assert got.constants == (1 if name == "S2" else 0) and member_set(expert, name, "h2").members == got.members
        for member, expr in zip(got.members, got.exprs):  # each member differentiated by hand
            kind, *rest = member.key
            u = [symbol[f"{pid[0]}_{pid[1] + 1}" if len(pid) == 2 else pid[0]] for pid in rest[-1]]
            by_hand = {
                "d": lambda: sp.diff(expert.h, u[0]),
                "dd": lambda: sp.diff(sp.diff(expert.h, u[0]), u[1]),
                "prod": lambda: sp.diff(expert.h, u[0]) * sp.diff(expert.h, u[1]),
                "x": lambda: expert.x[rest[0] - 1] * sp.diff(expert.h, u[0]),
            }[kind]()
            assert sp.simplify(expr - by_hand) == 0, member
    assert [SETS[n].order for n in SETS] == [1, 1, 2, 1]
    assert (DeepSeekShared.order, DeepSeekRouted.order, DeepSeekWeak.order) == (2, 2, 1)  # S1, S2: Definition 1's


def test_the_new_parts_member_by_member():
    """d = 1, θ = (p⁽¹⁾, b): third derivatives are the 4 multisets of size 3 of 2 parameters; products of
    a first (2) and a second derivative (3): 6; x-multiplied second derivatives: 1·3."""
    expert = parse_expert("c*tanh(dot(p, x) + b)", 1)
    p1, b, c = (next(s for s in expert.params if s.name == n) for n in ("p_1", "b", "c"))
    p, q, r = ("p", 0), ("b",), ("c",)
    recipe = SetRecipe(
        "N", "new parts", (Derivatives(3), Product(Derivatives(2), Derivatives(1)), XMultiplied(Derivatives(2)))
    )
    got = member_set(expert, recipe, "g")
    keys = [m.key for m in got.members]
    order = [pid for pid in ((n, 0) if n in expert.vectors else (n,) for n in expert.names)]
    triples = list(itertools.combinations_with_replacement(order, 3))
    pairs = list(itertools.combinations_with_replacement(order, 2))
    assert keys[:10] == [("ddd", t) for t in triples]
    assert keys[10:28] == [("prod", 1, 2, (u,) + v) for u in order for v in pairs]
    assert keys[28:] == [("x", 1, v) for v in pairs]
    assert len(keys) == len(set(keys)) == 10 + 18 + 6 and recipe.order == 3
    assert got.members[keys.index(("ddd", (q, q, q)))].label == "∂³g/∂b³"
    assert got.members[keys.index(("ddd", (r, p, p)))].label == "∂³g/∂c∂p⁽¹⁾²"
    assert got.members[keys.index(("prod", 1, 2, (q, p, q)))].label == "∂g/∂b·∂²g/∂p⁽¹⁾∂b"
    assert got.members[keys.index(("x", 1, (p, p)))].label == "x1·∂²g/∂p⁽¹⁾²"
    x1 = expert.x[0]
    h = c * sp.tanh(p1 * x1 + b)
    assert sp.simplify(got.exprs[keys.index(("ddd", (r, p, p)))] - sp.diff(sp.diff(sp.diff(h, c), p1), p1)) == 0
    assert sp.simplify(got.exprs[keys.index(("prod", 1, 2, (q, p, q)))] - sp.diff(h, b) * sp.diff(h, p1, b)) == 0
    assert sp.simplify(got.exprs[keys.index(("x", 1, (p, p)))] - x1 * sp.diff(h, p1, 2)) == 0
    same = SetRecipe("twice", "first derivatives twice, and a product both ways", (Derivatives(1), Derivatives(1)))
    assert [m.key for m in member_set(expert, same).members] == [("d", (pid,)) for pid in order]  # listed once
    assert Product(Derivatives(2), Derivatives(1)) == Product(Derivatives(1), Derivatives(2))


@pytest.mark.parametrize(
    "make, why",
    [
        (lambda: SetRecipe("a:b", "", (Derivatives(1),)), "without ':'"),
        (lambda: SetRecipe("A", "", (Derivatives(1),), constants=2), "0 or 1"),
        (lambda: SetRecipe("A", "", ()), "non-empty tuple"),
        (lambda: SetRecipe("A", "", ("d",)), "is not one of Derivatives, Product, XMultiplied"),
        (lambda: Derivatives(0), "an integer from 1 to 9"),
        (lambda: Product(Derivatives(1), XMultiplied(Derivatives(1))), "factors are Derivatives"),
        (lambda: XMultiplied(Product(Derivatives(1), Derivatives(1))), "multiplies a Derivatives part"),
    ],
)
def test_a_bad_recipe_is_refused_naming_it(make, why):
    with pytest.raises(ValueError, match=why):
        make()


def test_a_condition_declares_distinct_recipes():
    with pytest.raises(TypeError, match="two sets named alike"):
        type("Twice", (ExpertCondition,), {"name": "twice", "sets": (T13, T13)})
    with pytest.raises(TypeError, match="a tuple of SetRecipe"):
        type("Named", (ExpertCondition,), {"name": "named", "sets": ("S1",)})
    assert ToyExpert.order == 3 and XP.order == 2


def test_the_toy_refuses_by_its_recipes_order(toy):
    with pytest.raises(IdentcheckError, match="needs an expert 3 times differentiable"):
        check("a*relu(dot(p, x))", condition=toy)


def _null_space_by_hand():
    """T13 of h = exp(p1·x1 + b) on one atom, by sympy: each member divided by h is a polynomial in x1."""
    x1, p1, b = sp.symbols("x1 p1 b")
    h = sp.exp(p1 * x1 + b)
    params = {("p", 0): p1, ("b",): b}
    members = [("d", (pid,)) for pid in params] + [
        ("ddd", t) for t in itertools.combinations_with_replacement(list(params), 3)
    ]
    polys = [sp.Poly(sp.simplify(sp.diff(h, *(params[pid] for pid in key[1])) / h), x1) for key in members]
    matrix = sp.Matrix([[poly.coeff_monomial(x1**i) for poly in polys] for i in range(4)])
    return members, matrix


def test_the_toy_condition_runs_check_certify_and_replay(toy):
    members, matrix = _null_space_by_hand()
    result = check("exp(dot(p, x) + b)", condition=toy, dim=1, certify=True)
    assert (str(result.verdict), str(result.evidence)) == ("not identifiable", "proof")
    data = json.loads(json.dumps(result.to_dict()))
    assert data["condition"] == toy and data["details"]["members_per_atom"] == {"T13": 6, "XP": 9}
    assert data["details"]["constants_per_probe"] == {"T13": 0, "XP": 1}
    probe = next(p for p in data["probes"] if p["name"] == "T13: random, k = 1")
    assert probe["nullity"] == len(members) - matrix.rank() == 2
    found = set()
    for relation in probe["relations"]:  # each in the null space computed by hand, specific to this expert
        keys = [tuple(k[1][:1]) + (tuple(tuple(pid) for pid in k[1][1]),) for k in relation["keys"]]
        vector = sp.Matrix([sp.Integer(0)] * len(members))
        for key, (_, value) in zip(keys, relation["exact"]):
            vector[members.index(key)] = sp.Rational(value)
        assert matrix * vector == sp.zeros(4, 1) and relation["proved"] and relation["reach"] == "expert"
        found.add(frozenset(keys))
    assert found == {
        frozenset({("d", (("p", 0),)), ("ddd", (("p", 0), ("b",), ("b",)))}),
        frozenset({("d", (("b",),)), ("ddd", (("b",), ("b",), ("b",)))}),
    }
    # every probe's relations proved and its other columns certified, but where p is shared: exp(p·x + b1) =
    # e^(b1 − b2)·exp(p·x + b2), an irrational ratio, so those relations have no exact coefficients
    rest = [p["name"] for p in data["probes"] if (p["certificate"]["detail"] or {}).get("rest_certificate")]
    assert rest == [p["name"] for p in data["probes"] if "shared p" not in p["name"]] and len(rest) == 12
    assert all(replay(data, name)["proved"] for name in rest)
    tampered = json.loads(json.dumps(data))
    detail = next(p for p in tampered["probes"] if p["name"] == "T13: random, k = 1")["certificate"]["detail"]
    detail["relations"][0]["exact"][1][1] = "-2"  # ∂h/∂θ = 2·∂³h/∂θ∂b²: false
    assert not replay(tampered, "T13: random, k = 1")["proved"]


def test_the_command_line_reaches_the_toy(toy, capsys):
    assert main(["check", "--condition", toy, "--expert", "exp(dot(p, x) + b)", "--dim", "1", "--json"]) == 0
    (data,) = json.loads(capsys.readouterr().out)
    assert (data["condition"], data["verdict"]) == (toy, "not identifiable")
    assert [p["name"] for p in data["probes"]][:2] == ["T13: random, k = 1", "XP: random, k = 1"]


def test_new_parts_are_not_named_by_the_first_derivatives_families(toy):
    """exp(p·x + b), d = 2: x1·∂²g/∂p⁽²⁾∂b = x1x2·g = x2·∂²g/∂p⁽¹⁾∂b — two x-multiplied members of the
    shape of an x-swap, but of second derivatives: coinciding members, not the x-swap of ∂h/∂p."""
    result = check("exp(dot(p, x) + b)", condition=toy, dim=2)
    names = {r.family for p in result.probes if p.name.startswith("XP") for r in p.relations}
    assert not names & {X_SWAP, BIAS_SHIFT}, names
    (probe,) = [p for p in result.probes if p.name == "XP: random, k = 1"]
    swap = {(0, ("x", 1, (("p", 1), ("b",)))), (0, ("x", 2, (("p", 0), ("b",))))}
    (relation,) = [r for r in probe.relations if set(r.keys) == swap]
    assert relation.family == "coinciding members" and relation.proved and relation.reach == "template"


def test_an_expert_condition_states_min_order_not_order():
    """order is derived from the sets (or min_order); a class's own order would be overwritten silently."""
    with pytest.raises(TypeError, match="set min_order instead"):
        type("Third", (ExpertCondition,), {"name": "third", "sets": (T13,), "order": 2})
    assert type("Third", (ExpertCondition,), {"name": "third", "sets": (T13,)}).order == 3  # T13: third derivatives
