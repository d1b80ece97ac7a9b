"""A softmax part beside a constant-gate part: the joint test takes the other parts' terms times the true
denominator S*(x) (identcheck/model/mixed.py)."""

import re
from pathlib import Path

import pytest
import sympy as sp

from identcheck.declaration import example_path, parse_declaration
from identcheck.evidence import Evidence, Verdict
from identcheck.model.declared import check_declaration
from identcheck.model.joint import joint_independence
from identcheck.model.mixed import cleared_bases

EXAMPLES = Path(__file__).parents[3] / "docs" / "examples"


def _shared_equal_to_the_reference():
    """deepseek-tanh with the second routed atom's gate slope moved to −1 (normalised: the first atom's β1* = 6,
    the reference's 0) and the shared expert equal to the reference's: k2·tanh(k1 x + k0) = 4·tanh(12 x), τ = ν."""
    text = example_path("deepseek-tanh").read_text(encoding="utf-8")
    edits = (
        ("{ beta1 = 5.0, beta0 = 0.5", "{ beta1 = -1.0, beta0 = 0.5"),
        (
            "{ omega = 1.0, k0 = 0.0, k1 = 6.0, k2 = -8.0, tau = 0.25 }",
            "{ omega = 1.0, k0 = 0.0, k1 = 12.0, k2 = 4.0, tau = 0.4 }",
        ),
    )
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return parse_declaration(text)


def test_the_shared_terms_are_multiplied_by_the_routed_true_denominator():
    """S*(x) = Σ_j exp(β0*_j + β1*_j x) of the normalised routed truth (β1* = (6, 0), β0* = (−1, 0)), and the
    shared atom's F multiplied by it: the routed bases untouched, the shared one's F times S* exactly."""
    result = check_declaration(_shared_equal_to_the_reference(), max_order=1, max_cell=1)
    (denominator,) = result.denominators
    x = next(s for s in denominator.true_denominator.free_symbols if s.name == "x1")
    assert sp.simplify(denominator.true_denominator - (sp.exp(-1 + 6 * x) + 1)) == 0
    bases, cleared = cleared_bases(result.results, result.denominators)
    assert cleared == ("shared",)
    for (part, verdict), basis in zip(result.results, bases):
        if part == "shared":
            assert basis.basis == verdict.basis.basis
            assert sp.simplify(basis.atom.expr - denominator.true_denominator * verdict.basis.atom.expr) == 0
        else:
            assert basis is verdict.basis


def test_a_shared_expert_equal_to_the_reference_routed_one_is_told_apart_only_through_the_factor():
    """The reference routed atom (β1* = 0, β0* = 0) has F = A, the shared density: the bases as the atoms give
    them are dependent. Times S*, the shared A is Σ_j p*_j e^{β1*_j x}·A, not in the routed span (the other routed
    expert differs), and f = A + ½·π2(x)·(B2 − A) determines the gate and the experts: the model is identifiable."""
    result = check_declaration(_shared_equal_to_the_reference(), max_order=2, max_cell=2)
    extra = tuple(c for d in result.denominators for c in d.columns)
    unscaled = joint_independence(tuple(v.basis for _, v in result.results), extra)
    assert unscaled.independent is False
    assert result.joint is True and result.cleared == ("shared",)
    assert result.verdict == Verdict.IDENTIFIABLE, result.summary


def _rename(block):
    """A second routed part's block: its own expert parameters (ζ1, ζ2, μ2), the same gate names."""
    block = re.sub(r"\beta(\d)", r"zeta\1", block.replace("routed", "routed2"))
    return re.sub(r"\bnu\b", "mu2", block)


def test_two_softmax_parts_stay_inconclusive():
    """Two softmax parts: one true denominator each, not cleared together; the bases are left as the atoms
    give them and the model is inconclusive, saying why."""
    text = example_path("deepseek-tanh").read_text(encoding="utf-8")
    text = text.replace("{ beta1 = 5.0, beta0 = 0.5", "{ beta1 = -1.0, beta0 = 0.5")
    start = text.index("[parts.routed]")
    end = text.index("\n[", start + 1)
    routed = text[start:end].replace("share = 0.5", "share = 0.25")
    second = _rename(routed).replace("zeta1 = -12.0", "zeta1 = -3.0")
    loss = text[text.index("[loss.parts.routed]") :]
    declaration = parse_declaration(text[:start] + routed + "\n" + second + text[end:] + "\n" + _rename(loss))
    assert [p.name for p in declaration.parts] == ["routed", "routed2", "shared"]
    result = check_declaration(declaration, max_order=1, max_cell=1)
    assert result.several_softmax and result.cleared == () and result.coupled
    assert result.verdict == Verdict.INCONCLUSIVE and "several softmax parts" in result.summary, result.summary


@pytest.mark.slow  # about 15 s; `python3 -m pytest -m slow` runs it
def test_d2_with_a_gate_varying_in_x_takes_its_exponents_as_the_models_own():
    """docs/examples/deepseek-d2-gate.toml (DeepSeekMoE's linear experts, the second routed β1* moved to −1): the
    whole model identifiable with proof, r̄(2) = 4 in every atom and D2's exponents (Theorem 2 of arXiv
    2505.10860: r̄ for β1, η0, κ0; r̄/2 for η1, ν, τ)."""
    declaration = parse_declaration(EXAMPLES.joinpath("deepseek-d2-gate.toml").read_text(encoding="utf-8"))
    result = check_declaration(declaration, max_order=4, max_cell=2)
    assert result.verdict == Verdict.IDENTIFIABLE and result.evidence == Evidence.PROOF, result.summary
    assert result.cleared == ("shared",) and result.joint_proved
    expected = {"routed": {"beta1": 4, "eta1": 2, "eta0": 4, "nu": 2}, "shared": {"k1": 2, "k0": 4, "tau": 2}}
    for part, verdict in result.results:
        cell = verdict.cell(2)
        assert cell.rbar == 4 and cell.proved
        exponents = {name.split("_")[0]: value for name, value in cell.exponents.items()}
        assert exponents == expected[part], (part, cell.exponents)
