"""One component for every parameter (identcheck/rank/one_component.py): the lemma against today's probes.

The lemma's verdict for K = 1 (every (M, a ≠ 0), every d) is compared with the check's own K = 1
probes, decided independently by the rank rule on the full d-dimensional collocation matrix, at
d = 1 … 4: where the lemma proves the families, every single probe is independent; where a family
is not certified, the random single probe is dependent (or, for F_1 and F_2 only, at d ≥ 2)."""

import math

import pytest

from identcheck.check import decide_probe, make_condition, run
from identcheck.parse.activation import parse_activation
from identcheck.parse.analyticity import Singularities, real_singularities
from identcheck.rank import one_component
from identcheck.rank.one_component import prove_one_component, shapes
from identcheck.terms.type1 import type1_term_set

#: φ → whether its single probes pass (docs/catalog.md's type-1 witnesses: a symmetry or a pair
#: relation leaves the single probes independent; Euler, heat, Gaussian, ode and polynomials do not)
PASS = ["sigmoid(z + 1)", "tanh(z)", "atan(z)", "softplus(z)", "(z + 1/2)/(1 + z**2)", "log(z + 3)"]
FAIL = ["z", "exp(z)", "sin(z)", "erf(z)", "gelu(z)", "exp(-z**2)", "z*exp(z)", "z**3"]


def _one(phi, dim=2):
    activation = parse_activation(phi)
    return prove_one_component(type1_term_set(dim), activation, real_singularities(activation.expr))


def test_the_families_are_s0_to_s4_at_every_d():
    """D = {(0,0), (0,2), (0,4), (1,1), (1,3), (2,2)} (docs/method.md §4): F_s = {(i, m) : (m, i + s) ∈ D}."""
    D = [(0, 0), (0, 2), (0, 4), (1, 1), (1, 3), (2, 2)]
    by_hand = tuple((s, tuple(sorted((k - s, m) for m, k in D if k >= s))) for s in range(5))
    for dim in (1, 2, 3, 4):
        assert shapes(type1_term_set(dim)) == by_hand


def test_a_term_set_missing_a_monomial_is_not_of_the_lemma_s_form():
    full = type1_term_set(2)
    cut = type(full)(**{**{f: getattr(full, f) for f in full.__dataclass_fields__}, "terms": full.terms[:-1]})
    assert shapes(cut) is None
    assert prove_one_component(cut, parse_activation("tanh(z)"), Singularities(True)).dims is None


#: every φ at d = 1, 2, 3; three representatives at d = 4 (80 columns per single probe)
CASES = [(phi, dim) for dim in (1, 2, 3) for phi in PASS + FAIL]
CASES += [(phi, 4) for phi in ("tanh(z)", "exp(z)", "gelu(z)")]


@pytest.mark.parametrize("phi, dim", CASES)
def test_the_lemma_agrees_with_the_single_probes(phi, dim):
    one = _one(phi, dim)
    condition = make_condition(phi, "type1", dim)
    singles = [(i, p) for i, p in enumerate(condition.probes()) if len(p.components) == 1]
    outcomes = {p.name: decide_probe(condition, p, i)[2] for i, p in singles}
    if phi in PASS:
        assert one.dims == "every d", one.statement
        assert outcomes == {"random single": False, "M = 0": False}
    else:
        assert one.dims is None, one.statement
        assert outcomes["random single"] is True


def test_the_statement_says_what_is_covered():
    assert _one("sigmoid(z + 1)").statement == "K = 1: proved for every (M, a ≠ 0), every d"
    bounded = _one("log(z + 3)")
    assert bounded.domain == (-3.0, math.inf)
    assert bounded.statement == "K = 1: proved for every (M, a ≠ 0), every d, on x with aᵀx in (−3, ∞)"
    assert _one("z").statement.startswith("K = 1: not proved for every parameter ({φ, zφ′, z²φ, z²φ′′, z³φ′, z⁴φ}")


def test_an_undecided_phi_or_a_singular_zero_claims_nothing():
    tanh = parse_activation("tanh(z)")
    assert prove_one_component(type1_term_set(1), tanh, Singularities(False, reason="test")).dims is None
    assert prove_one_component(type1_term_set(1), tanh, Singularities(True, points=(0.0,))).dims is None


def test_f0_alone_proves_d_1_only(monkeypatch):
    """With F_0 certified and another family not, the lemma covers d = 1 and says which family failed."""
    real = one_component._certify

    def failing(family, activation, rho):
        return (False, 0.0, 0) if family != shapes(type1_term_set(1))[0][1] else real(family, activation, rho)

    monkeypatch.setattr(one_component, "_certify", failing)
    one = _one("tanh(z)", 2)
    assert one.dims == "d = 1" and "not certified independent" in one.why_not
    assert one.statement == "K = 1: proved for every (M, a ≠ 0), d = 1"


def test_the_check_reports_it_in_details_and_text():
    checked = run(make_condition("sigmoid(z + 1)", "type1", 1))
    assert checked.details["one_component"].dims == "every d"
    assert checked.to_dict()["details"]["one_component"]["statement"] == "K = 1: proved for every (M, a ≠ 0), every d"
    assert "\n  K = 1: proved for every (M, a ≠ 0), every d\n" in checked.to_text()
