"""An expert must be real and differentiable on the probed domain [−1, 1]^d, and a sign
symmetry is named only with a real, finite q (log(e1ᵀx) is not tagged with one)."""

import pytest
import sympy as sp

from identcheck.cli.main import main
from identcheck.families.symmetry import expert_parity
from identcheck.parse.expert import parse_expert


def _refusal(capsys, expert: str) -> str:
    code = main(["check", "--condition", "deepseek-weak", "--expert", expert])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    return err


def test_a_logarithm_of_a_ridge_is_refused(capsys):
    # log(e1ᵀx) is complex where e1ᵀx < 0 and ∂h/∂e1 = x/(e1ᵀx) has a pole where e1ᵀx = 0: both inside [−1, 1]^2
    # for every e1 ≠ 0 — seen accepted (a verdict, exit 0) before the first derivatives' denominators were read
    err = _refusal(capsys, "log(dot(e1,x))")
    assert "--expert 'log(dot(e1,x))'" in err and "vanishes or changes sign" in err


def test_a_logarithm_of_a_negative_argument_is_refused(capsys):
    # log(−1 − x1²): h is complex everywhere, its members −e2·… are real: only the argument's sign shows it
    err = _refusal(capsys, "log(-1-x1**2)*e2")
    assert "the logarithm's argument -x1**2 - 1 is not positive" in err


def test_a_logarithm_of_a_positive_argument_is_accepted(capsys):
    assert main(["check", "--condition", "deepseek-weak", "--expert", "e2*log(dot(e1,x)**2+1)", "--json"]) == 0


def test_no_sign_symmetry_from_an_undefined_origin():
    # log(−u) − log(u) = iπ (a complex constant), and at x = θ = 0 log is undefined (sympy: zoo − zoo = nan, which
    # is_polynomial accepts): neither is a real polynomial q with h(x; −θ) = ±h(x; θ) + q
    expert = parse_expert("log(dot(e1,x))", 2, order=1)
    assert expert_parity(expert.h, tuple(expert.params), tuple(expert.x)) is None


def test_softplus_keeps_its_sign_symmetry():
    # softplus(−u) = softplus(u) − u, by hand; with u = e1ᵀx + e0: h(x; −θ) = −e2·softplus(−u) = −h(x; θ) + e2·u
    expert = parse_expert("e2*softplus(dot(e1,x)+e0)", 2, order=1)
    sign, q = expert_parity(expert.h, tuple(expert.params), tuple(expert.x))
    p = {s.name: s for s in expert.params}
    u = p["e1_1"] * expert.x[0] + p["e1_2"] * expert.x[1] + p["e0"]
    assert sign == -1 and sp.expand(q - p["e2"] * u) == 0


@pytest.mark.parametrize("condition", ["deepseek-weak", "deepseek-routed", "deepseek-shared"])
def test_a_tangent_with_a_pole_inside_is_refused(capsys, condition):
    # tan(e1ᵀx) has a pole where e1ᵀx = ±π/2; the probes' atom e1 = (−7/8, −7/8) reaches |e1ᵀx| = 7/4 > π/2 on
    # [−1, 1]^2. It must be refused as sin/cos is, not given a verdict (tan has no sympy denominator)
    code = main(["check", "--condition", condition, "--expert", "e2*tan(dot(e1,x))", "--dim", "2"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "--expert 'e2*tan(dot(e1,x))'" in err and "cos(7*x1/8 + 7*x2/8) vanishes or changes sign" in err


def test_tanh_and_a_tangent_without_a_pole_inside_are_accepted():
    # tanh is entire on the reals; tan(e1ᵀx/4): |e1ᵀx/4| ≤ 7/16 < π/2 for the probes' atoms (|e1⁽ⁱ⁾| ≤ 7/8)
    assert (
        main(["check", "--condition", "deepseek-weak", "--expert", "e2*tanh(dot(e1,x))", "--dim", "2", "--json"]) == 0
    )
    assert (
        main(["check", "--condition", "deepseek-weak", "--expert", "e2*tan(dot(e1,x)/4)", "--dim", "2", "--json"]) == 0
    )
