"""Where φ is real-analytic: the singular points of the grammar's functions, against values known by hand."""

import math

import pytest
import sympy as sp

from identcheck.parse.activation import parse_activation
from identcheck.parse.analyticity import Singularities, real_singularities
from identcheck.parse.grammar import Z, parse_text

#: real-analytic on all of ℝ: entire, or their denominators and log arguments are > 0 on ℝ
ANALYTIC_ON_R = [
    "sigmoid(z + 1)", "tanh(z)", "softplus(z)", "gelu(z)", "silu(z + 1)", "atan(z)", "asinh(z)", "erf(z + 1)",
    "erfc(z)", "exp(-z**2)", "z*exp(z)", "log(1 + z**2)", "(z + 1/2)/(1 + z**2)", "cosh(z)", "z**3", "2**z",
]


@pytest.mark.parametrize("phi", ANALYTIC_ON_R)
def test_the_grammar_s_analytic_functions_have_no_real_singular_point(phi):
    found = real_singularities(parse_activation(phi).expr)
    assert found.empty and found.radius == math.inf
    assert found.describe() == "φ is real-analytic on ℝ"


@pytest.mark.parametrize(
    "phi, points",
    [
        ("log(z + 2)", [-2.0]),  # a branch point
        ("sqrt(z + 3)", [-3.0]),  # a branch point
        ("1/(z - 3) + 1/(z + 5)", [-5.0, 3.0]),  # two poles
        ("z**z", [0.0]),  # exp(z log z)
        ("log(z**2 - 4)", [-2.0, 2.0]),
    ],
)
def test_poles_and_branch_points_are_the_zeros_of_the_critical_expressions(phi, points):
    found = real_singularities(parse_text(phi, {}))
    assert found.decided and found.points == pytest.approx(points) and not found.progressions
    assert found.radius == pytest.approx(min(abs(p) for p in points))


def test_tan_has_its_poles_at_pi_over_2_plus_k_pi():
    found = real_singularities(sp.tan(Z / 4))  # poles at 2π + 4kπ
    assert found.decided and not found.points
    assert found.radius == pytest.approx(2 * math.pi)
    assert found.neighbours(0.0) == pytest.approx((-2 * math.pi, 2 * math.pi))
    assert found.neighbours(7.0) == pytest.approx((2 * math.pi, 6 * math.pi))


def test_a_function_outside_the_grammar_is_undecided_never_analytic():
    found = real_singularities(sp.besselj(0, Z) + sp.Abs(Z))
    assert not found.decided and not found.empty and "not a function of the grammar" in found.reason
    assert found.to_dict()["real_analytic_on_R"] is False


def test_neighbours_name_the_open_interval_and_refuse_a_singular_point():
    found = Singularities(True, points=(-1.0, 0.5, 2.0))
    assert found.neighbours(0.0) == (-1.0, 0.5)
    assert found.neighbours(3.0) == (2.0, math.inf)
    assert found.neighbours(0.5) is None
    assert found.radius == 0.5
