"""The expert parser (identcheck/parse/expert.py) and the DeepSeekMoE sets (identcheck/terms/expert_sets.py):
values compared with sympy built by hand, refusals one line each."""

import numpy as np
import pytest
import sympy as sp

from identcheck.cli.main import main
from identcheck.errors import IdentcheckError
from identcheck.parse.expert import parse_expert
from identcheck.terms.expert_sets import SetEvaluator, expert_probes, member_set

x1, x2 = sp.symbols("x1 x2", real=True)
e2, e11, e12, k0 = sp.symbols("e2 e1_1 e1_2 k0", real=True)


def test_gelu_expert_is_the_hand_built_expression():
    expert = parse_expert("e2*gelu(dot(e1, x))", 2)
    z = e11 * x1 + e12 * x2
    assert sp.simplify(expert.h - e2 * z / 2 * (1 + sp.erf(z / sp.sqrt(2)))) == 0
    assert expert.labels == ("e2", "e1⁽¹⁾", "e1⁽²⁾")
    assert expert.params == (e2, e11, e12)
    assert expert.vectors == frozenset({"e1"})
    assert expert.template == e2 * sp.Function("F1", real=True)(z)
    assert expert.template_text == "e2*F1(dot(e1, x))"


def test_fixed_parameter_is_exact_and_the_expression_parses_back():
    expert = parse_expert("k2*sigmoid(dot(k1, x) + k0)", 2, {"k0": "0.5"})
    k2, k11, k12 = sp.symbols("k2 k1_1 k1_2", real=True)
    assert sp.simplify(expert.h - k2 / (1 + sp.exp(-(k11 * x1 + k12 * x2 + sp.Rational(1, 2))))) == 0
    assert "k0" not in expert.names
    again = parse_expert(expert.expression, 2)
    assert sp.simplify(again.h - expert.h) == 0


@pytest.mark.parametrize(
    "text, dim, params, message",
    [
        ("e*dot(e, x)", 2, None, "cannot be a parameter"),  # e is Euler's constant
        ("a*dot(p, x) + p", 2, None, "used outside dot"),
        ("p + a*dot(p, x)", 2, None, "as a scalar elsewhere"),
        ("a*x", 2, None, "x is the input vector"),
        ("a*x3", 2, None, "not a component of x in dimension d = 2"),
        ("2*x1 + pi", 2, None, "has no parameters"),
        ("a*relu(dot(p, x))", 2, None, "relu is not differentiable at 0"),
        ("a*dot(p, x)", 2, {"p": "1"}, "fixes scalar parameters only"),
        ("a*dot(p, x)", 2, {"b": "1"}, "does not use 'b'"),
        ("a*__import__(x1)", 2, None, "'__'"),
        ("a*dot(p, q)", 2, None, "one argument must be x"),
        ("a*dot(p, x)", 7, None, "dim=7: must be an integer from 1 to 6"),
        ("a*dot(p, x)", 0, None, "dim=0: must be an integer from 1 to 6"),
    ],
)
def test_refusals_are_one_line(text, dim, params, message):
    with pytest.raises(IdentcheckError, match=message) as info:
        parse_expert(text, dim, params)
    assert "\n" not in str(info.value) and ("expert=" in str(info.value) or "dim=" in str(info.value))


#: what a practitioner types first, and what the one line must say (docs/conditions/deepseekmoe.md)
FIRST_USE = [
    ("dot(w, x) + a*w", "'w' is a vector parameter (used as dot(w, x)) and is used outside dot"),
    ("a*w + dot(w, x)", "'w' is used as a vector in dot(w, x) and as a scalar elsewhere"),
    ("a*tanh(x)", "x is the input vector: use it as dot(p, x), or its components x1..x2"),
    ("a*tanh(dot(p, x1))", "(x1 is a component of x; dot takes the whole vector x)"),
    ("a*tanh(x3*p)", "x3 is not a component of x in dimension d = 2 (x1..x2)"),
    ("2*tanh(x1) + x2", "has no parameters"),
    ("a*relu(dot(p, x))", "relu is not differentiable at 0; the condition needs an expert twice differentiable"),
    ("a*abs(dot(p, x))", "abs is not differentiable at 0"),
    ("a*tahn(dot(p, x))", "unknown function 'tahn' (did you mean tan, tanh, atan?)"),
    ("a*sigmoid(p @ x)", "operator '@' is not allowed: write pᵀx as dot(p, x)"),
    ("a*sigmoid(sum(p*x))", "unknown function 'sum': write pᵀx as dot(p, x)"),
    ("a*np.tanh(dot(p, x))", "call a function by its name: tanh(...), not np.tanh(...)"),
    ("a*exp(-norm(x - m)**2)", "write ‖x − m‖² out: (x1 - m1)**2 + (x2 - m2)**2"),
    ("a*exp(-dot(x - m, x - m))", "write ‖x − m‖² out"),
    ("[a, b]", "a list is not allowed; use numbers, x1..x2, parameters, dot(p, x),"),
    ("a*tanh(dot(p,x)", "not a valid expression ('(' was never closed)"),
]


@pytest.mark.parametrize("text, reason", FIRST_USE)
def test_first_use_mistakes_are_one_line_naming_the_expert_flag_and_why(text, reason, capsys):
    assert main(["check", "--condition", "deepseek-shared", "--expert", text]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith(f"identcheck: error: --expert {text!r}: ") and reason in captured.err
    assert " z," not in captured.err  # φ's vocabulary is not an expert's


def test_weak_condition_names_its_order():
    with pytest.raises(IdentcheckError, match="needs an expert differentiable in its parameters"):
        parse_expert("a*relu(dot(p, x))", 2, order=1)


def test_set_sizes_by_hand():
    expert = parse_expert("e2*gelu(dot(e1, x))", 2)  # P = 3 parameters, d = 2
    assert len(member_set(expert, "S1").members) == 3
    assert len(member_set(expert, "S2").members) == 6 and member_set(expert, "S2").constants == 1  # P(P+1)/2, + 1
    assert len(member_set(expert, "S3").members) == 3 + 6 + 2 * 3  # P + P(P+1)/2 + dP
    assert len(member_set(expert, "D2").members) == 3


def test_members_are_the_derivatives_sympy_takes():
    expert = parse_expert("k2*tanh(dot(k1, x) + k0)", 2)
    h = expert.h
    k2, k11 = sp.Symbol("k2", real=True), sp.Symbol("k1_1", real=True)
    s2 = member_set(expert, "S2")
    by_label = dict(zip((m.label for m in s2.members), s2.exprs))
    assert sp.simplify(by_label["(∂h/∂k0)²"] - sp.diff(h, k0) ** 2) == 0
    assert sp.simplify(by_label["∂h/∂k2·∂h/∂k1⁽¹⁾"] - sp.diff(h, k2) * sp.diff(h, k11)) == 0
    s3 = member_set(expert, "S3")
    by_label = dict(zip((m.label for m in s3.members), s3.exprs))
    assert sp.simplify(by_label["∂²h/∂k2∂k1⁽¹⁾"] - sp.diff(h, k2, k11)) == 0
    assert sp.simplify(by_label["x2·∂h/∂k0"] - x2 * sp.diff(h, k0)) == 0


def test_evaluator_matches_sympy_at_a_point_and_appends_the_constant():
    expert = parse_expert("k2*tanh(dot(k1, x) + k0)", 2)
    s2 = member_set(expert, "S2")
    atom = [sp.Rational(3, 8), sp.Rational(-1, 2), sp.Rational(5, 8), sp.Rational(1, 4)]
    point = np.array([[0.25, -0.75]])
    values = SetEvaluator(s2, expert).float64(point, [atom])
    subs = dict(zip(expert.params, atom)) | {x1: sp.Rational(1, 4), x2: sp.Rational(-3, 4)}
    expected = [float(e.xreplace(subs)) for e in s2.exprs] + [1.0]
    assert np.allclose(values[0], expected, rtol=1e-13)


def test_probe_atoms_are_distinct_nonzero_dyadic():
    expert = parse_expert("k2*sigmoid(dot(k1, x) + k0)", 3)
    probes = expert_probes(expert, seed=4)
    names = [p.name for p in probes]
    assert names[:4] == ["random, k = 1", "random, k = 2", "random, k = 3", "sign pair θ2 = −θ1"]
    assert {"shared k2, the rest distinct", "shared k1, the rest distinct", "shared k0, the rest distinct"} <= set(
        names
    )
    for probe in probes:
        values = [c.values for c in probe.components]
        assert len(set(values)) == len(values)
        assert all(v != 0 and (v * 8).is_integer and abs(v) <= 1 for atom in values for v in atom)
    random3 = probes[2].components
    for i in range(len(expert.params)):  # random atoms differ entry by entry
        assert len({a.values[i] for a in random3}) == 3
    sign = probes[3].components
    assert sign[1].values == tuple(-v for v in sign[0].values)


def test_a_power_of_a_parameter_dependent_base_is_arbitrary_in_the_template():
    expert = parse_expert("k2*(dot(k1, x) + k0)**3", 2)
    k2, k11, k12 = sp.symbols("k2 k1_1 k1_2", real=True)
    assert expert.template == k2 * sp.Function("F1", real=True)(k0 + k11 * x1 + k12 * x2)
    assert (
        parse_expert("a*x1**2 + b", 2).template == parse_expert("a*x1**2 + b", 2).h
    )  # x alone: not a parameter's power


def test_a_sign_pair_of_an_odd_expert_is_noted_as_the_same_function():
    # k2·tanh(z) and (−k2)·tanh(−z) are one function; k2·σ(z) and (−k2)·σ(−z) = k2·σ(z) − k2 are not
    tanh = {p.name: p.note for p in expert_probes(parse_expert("k2*tanh(dot(k1, x) + k0)", 2))}
    sigmoid = {p.name: p.note for p in expert_probes(parse_expert("k2*sigmoid(dot(k1, x) + k0)", 2))}
    assert "[1] and [2] give the same function h" in tanh["sign pair θ2 = −θ1"]
    assert sigmoid["sign pair θ2 = −θ1"] == "" and all(
        note == "" for name, note in tanh.items() if "sign pair θ2" not in name
    )
