"""Parsing φ: what is accepted, what is refused and why, and that nothing is ever executed."""

import os

import pytest
import sympy as sp

import identcheck.parse.activation as activation_module
from identcheck import IdentcheckError, parse_activation, parse_param
from identcheck.parse.activation import FUNCTIONS, Z

ACCEPTED = [
    ("z", Z),
    ("z + 1", Z + 1),
    ("2*z - 3/4", 2 * Z - sp.Rational(3, 4)),
    ("z**2", Z**2),
    ("-z", -Z),
    ("0.1*z", Z / 10),
    ("1e-3*z", Z / 1000),
    ("sigmoid(z + 1)", 1 / (1 + sp.exp(-Z - 1))),
    ("softplus(z)", sp.log(1 + sp.exp(Z))),
    ("gelu(z)", Z / 2 * (1 + sp.erf(Z / sp.sqrt(2)))),
    ("silu(z)", Z / (1 + sp.exp(-Z))),
    ("swish(z)", Z / (1 + sp.exp(-Z))),
    ("tanh(z) + 0.1*z", sp.tanh(Z) + Z / 10),
    ("exp(-z**2)", sp.exp(-(Z**2))),
    ("atan(z) + arctan(z)", 2 * sp.atan(Z)),
    ("erf(z) + erfc(z) + z", 1 + Z),  # erf + erfc == 1 (sympy does not fold it; compare numerically)
    ("pi*z + e", sp.pi * Z + sp.E),
]


@pytest.mark.parametrize("text, expected", ACCEPTED)
def test_accepts_and_builds_the_expected_expression(text, expected):
    got = parse_activation(text).expr
    for value in (-0.7, 0.3, 1.1):
        assert float(got.subs(Z, value)) == pytest.approx(float(expected.subs(Z, value)), rel=1e-12)


def test_every_listed_function_parses_and_differentiates():
    for name in FUNCTIONS:
        argument = "z + 2" if name in ("log", "sqrt") else "z"
        act = parse_activation(f"{name}({argument})")
        assert len(act.derivatives) == 3
        assert act.derivatives[1] == sp.diff(act.expr, Z)


def test_params_are_substituted_exactly():
    act = parse_activation("sigmoid(z + b)", {"b": sp.Rational(1, 2)})
    assert act.expr == 1 / (1 + sp.exp(-Z - sp.Rational(1, 2)))
    assert "b=1/2" in act.text


def test_sympy_expression_in_any_single_symbol():
    t = sp.Symbol("t")
    assert parse_activation(sp.tanh(t)).expr == sp.tanh(Z)


HOSTILE = [
    ("__import__('os').system('touch /tmp/identcheck_pwned')", "attribute access"),
    ("__import__('os')", "'__'"),
    ("().__class__.__bases__[0]", "not allowed"),
    ("lambda: 0", "lambda"),
    ("z.real", "attribute access"),
    ("[z for z in range(10)]", "comprehension"),
    ("z[0]", "indexing"),
    ("open('/etc/passwd')", "unknown function"),
    ("eval('1')", "unknown function"),
    ("exp(z, 2)", "exactly one positional argument"),
    ("exp(x=z)", "exactly one positional argument"),
    ("10**10**10**10", "exponent"),
    ("z**1000000", "exponent"),
    ("(10**100)**100*z", "out of range"),
    ("9" * 400 + "*z", "out of range"),
    ("(" * 60 + "z" + ")" * 60, "nested"),
    ("z" + "+z" * 400, "longer than"),
    ("1e999*z", "not a finite number"),
    ("z if z else 1", "'if ... else'"),
    ("z > 0", "comparison"),
    ("z ^ 2", "'^'"),
    ("z % 2", "'%'"),
    ("'z'", "not a number"),
    ("1j*z", "complex"),
    ("f'{z}'", "f-string"),
    ("sigmod(z)", "did you mean sigmoid"),
    ("y + 1", "has no value"),
    ("exp", "is a function"),
    ("", "empty"),
    ("z +", "not a valid expression"),
    ("(z := 1)", "':='"),
]


@pytest.mark.parametrize("text, reason", HOSTILE)
def test_hostile_or_malformed_text_is_refused_with_a_reason(text, reason):
    with pytest.raises(IdentcheckError) as info:
        parse_activation(text)
    message = str(info.value)
    assert reason in message
    assert "\n" not in message
    assert not os.path.exists("/tmp/identcheck_pwned")


NOT_USABLE = [
    ("relu(z)", "not differentiable at 0"),
    ("abs(z)", "not differentiable"),
    ("max(z, 0)", "not differentiable"),
    ("sign(z)", "discontinuous"),
    ("heaviside(z)", "discontinuous"),
    ("elu(z)", "C¹ only"),
    ("sqrt(z**2)", "Abs"),
    ("z - z", "constant"),
    ("exp(0) + 1", "constant"),
    ("sqrt(-1)*z", "complex-valued"),
    ("log(-2) + z", "complex-valued"),
    ("1/(z - z)", "division by zero"),
]


@pytest.mark.parametrize("text, reason", NOT_USABLE)
def test_non_smooth_constant_or_complex_phi_is_refused(text, reason):
    with pytest.raises(IdentcheckError) as info:
        parse_activation(text)
    assert reason in str(info.value)


@pytest.mark.parametrize("text", ["log(z)", "sqrt(z)", "1/z", "tan(z)", "z**(5/2)", "1/(z**2 - 1)"])
def test_domain_check_refuses_phi_not_smooth_on_the_probed_interval(text):
    act = parse_activation(text)
    with pytest.raises(IdentcheckError, match="probed domain"):
        act.check_domain(2.0)


@pytest.mark.parametrize("text", ["log(z)", "sqrt(z)", "1/z", "z**(5/2)"])
def test_domain_check_without_sympys_answer_still_refuses_by_the_grid(text, monkeypatch):
    """sympy's continuous_domain runs under a budget (deep compositions take minutes); with the
    budget spent before it starts, the dense numeric grid alone must still catch these."""
    monkeypatch.setattr(activation_module, "SIMPLIFY_SECONDS", 0.0)
    act = parse_activation(text)
    assert activation_module._first_gap(act.expr, sp.Interval(-2, 2), 0.0) is None  # no symbolic answer
    with pytest.raises(IdentcheckError, match="probed domain"):
        act.check_domain(2.0)


def test_domain_check_accepts_smooth_phi():
    for text in ["sigmoid(z + 1)", "gelu(z)", "log(z + 3)", "tan(z)"]:
        parse_activation(text).check_domain(1.0)  # tan is smooth on [-1, 1]


def test_a_constant_whose_derivative_is_not_syntactically_zero_is_refused():
    """φ' = 1/√(z²+1) − (1 + z/√(z²+1))/(z + √(z²+1)) ≡ 0: the float samples are all ~0, so sympy
    must be asked (a screen that answers "not constant" on its own would let it through)."""
    with pytest.raises(IdentcheckError, match="constant"):
        parse_activation("asinh(z) - log(z + sqrt(z**2 + 1)) + 1")
    parse_activation("asinh(z) - log(z + sqrt(z**2 + 1)) + z/1000")  # not constant: accepted


def test_sin_squared_plus_cos_squared_is_caught_as_constant_on_the_domain():
    with pytest.raises(IdentcheckError, match="constant"):
        parse_activation("sin(z)**2 + cos(z)**2")


@pytest.mark.parametrize(
    "text, name, value",
    [
        ("b=1", "b", 1),
        ("b=0.5", "b", sp.Rational(1, 2)),
        ("c=-2/3", "c", sp.Rational(-2, 3)),
        ("k=1e-3", "k", sp.Rational(1, 1000)),
    ],
)
def test_parse_param(text, name, value):
    assert parse_param(text) == (name, value)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("b", "expected NAME=VALUE"),
        ("=1", "expected NAME=VALUE"),
        ("b=", "not a number"),
        ("b=__import__('os')", "not a number"),
        ("b=1+1", "not a number"),
        ("z=1", "reserved"),
        ("exp=1", "reserved"),
        ("__x=1", "not a valid parameter name"),
        ("b=1/0", "division by zero"),
        ("b=1e999", "out of range"),
    ],
)
def test_parse_param_refuses_garbage(text, reason):
    with pytest.raises(IdentcheckError, match=reason):
        parse_param(text)


@pytest.mark.parametrize(
    "value, written, exact",
    [
        ("1e-300", "1e-300", sp.Rational(1, 10**300)),  # text, as on the command line
        (" -2.5E+2 ", "-2.5E+2", sp.Integer(-250)),
        ("2/3", "2/3", sp.Rational(2, 3)),
        (0.5, "0.5", sp.Rational(1, 2)),  # a float, as Python writes it
    ],
)
def test_a_param_is_shown_as_written_and_used_exactly(value, written, exact):
    """b=1e-300 is not shown as a 300-digit fraction: the report text shows the value as
    written; ``text`` (JSON, errors) and the expression keep the exact rational."""
    phi = parse_activation("sigmoid(z*b)", {"b": value})
    assert (phi.as_written or phi.text) == f"sigmoid(z*b) [b={written}]"  # None where the two agree (2/3)
    assert phi.text == f"sigmoid(z*b) [b={exact.p}{'' if exact.q == 1 else f'/{exact.q}'}]"
    assert phi.expr == 1 / (1 + sp.exp(-Z * exact))
    assert phi == parse_activation("sigmoid(z*b)", {"b": exact})  # the same φ, however written


def test_a_param_written_as_its_exact_value_needs_no_second_spelling():
    assert parse_activation("sigmoid(z + b)", {"b": 1}).as_written is None
    assert parse_activation("sigmoid(z + b)", {"b": sp.Rational(1, 3)}).as_written is None


def test_a_param_text_that_is_not_a_number_is_refused_naming_it():
    with pytest.raises(IdentcheckError, match=r"param='b=1e-3x': value '1e-3x' is not a number"):
        parse_activation("sigmoid(z*b)", {"b": "1e-3x"})


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_numpy_alone_evaluates_phi_as_scipy_and_numpy_did(name):
    """lambdify_modules picks NumPy alone where NumPy has every function (scipy.special
    is then not imported); φ, φ', φ'' then equal, bit for bit, what ["scipy", "numpy"] computes, and erf,
    erfc (gelu) keep SciPy."""
    import numpy as np

    from identcheck.parse.grammar import lambdify_modules

    phi = parse_activation(f"{name}(z/2 + 1/3) + z/5")
    z = np.linspace(-3, 3, 41)
    for expr in phi.derivatives:
        modules = lambdify_modules(expr)
        assert modules == (
            ["scipy", "numpy"] if expr.has(sp.erf, sp.erfc) else ["numpy"]
        )  # erf's derivatives need none
        with np.errstate(invalid="ignore"):  # log, sqrt: NaN below 0, in both
            chosen, both = (sp.lambdify(Z, expr, modules=m, cse=True)(z) for m in (modules, ["scipy", "numpy"]))
        assert np.array_equal(np.broadcast_to(chosen, z.shape), np.broadcast_to(both, z.shape), equal_nan=True)
    assert any(expr.has(sp.erf, sp.erfc) for expr in phi.derivatives) == (name in ("erf", "erfc", "gelu"))


# --- messages show sets and constants as people write them, never sympy's repr -------------------


@pytest.mark.parametrize(
    "text, where",
    [
        ("log(z)", "z in [-1.75, 0]"),
        ("sqrt(z)", "z in [-1.75, 0)"),
        ("1/z", "z = 0"),
        ("tan(2*z)", "z = -0.785398, 0.785398"),
        ("sqrt(z**2 - 1/4)", "z in (-0.5, 0.5)"),
    ],
)
def test_the_domain_message_writes_the_failing_set_plainly(text, where):
    with pytest.raises(IdentcheckError) as caught:
        parse_activation(text).check_domain(1.75)
    message = str(caught.value)
    assert f"(it fails for {where});" in message
    for sympy_repr in ("Interval", "Ropen", "Lopen", "FiniteSet", "Union", "pi/", "{", "7/4"):
        assert sympy_repr not in message


def test_decimal_constants_are_remembered_as_written():
    activation = parse_activation("1.702*silu(z) + 0.5*z + 2*z**2 + c", {"c": "1e-3"})
    assert dict(activation.written_numbers) == {
        sp.Rational(851, 500): "1.702",
        sp.Rational(1, 2): "0.5",
        sp.Rational(1, 1000): "1e-3",
    }
    assert parse_activation("sigmoid(z + 1)").written_numbers == ()
