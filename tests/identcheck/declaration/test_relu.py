"""relu in the expert grammar: accepted for simulation only, refused as before otherwise."""

import pytest
import sympy as sp

from identcheck.errors import IdentcheckError
from identcheck.parse.expert import parse_expert


def test_relu_is_refused_without_the_flag():
    with pytest.raises(IdentcheckError, match="relu is not differentiable at 0"):
        parse_expert("k2*relu(dot(k1, x) + k0)", 1)


def test_relu_for_simulation_is_max_and_is_flagged():
    expert = parse_expert("k2*relu(dot(k1, x) + k0)", 1, simulation=True)
    x1, k2, k1, k0 = sp.symbols("x1 k2 k1_1 k0", real=True)
    assert expert.h == k2 * sp.Max(0, k1 * x1 + k0) and expert.simulation_only == ("relu",)
    assert expert.names == ("k2", "k1", "k0") and expert.template.has(sp.Function("F1", real=True))
    assert parse_expert("k2*tanh(dot(k1, x) + k0)", 1, simulation=True).simulation_only == ()


@pytest.mark.parametrize(
    "text, words",
    [
        ("sqrt(c**2)*relu(dot(k1, x))", "contains Abs"),  # other kinks stay refused beside a relu
        ("abs(k1)*relu(k1*x1)", "abs is not differentiable"),
        ("relu(k1*x1, 2)", "relu() takes exactly one positional argument"),
        ("max(0, k1*x1)", "max is not differentiable"),
    ],
)
def test_the_flag_admits_relu_and_nothing_else(text, words):
    with pytest.raises(IdentcheckError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_expert(text, 1, simulation=True)
