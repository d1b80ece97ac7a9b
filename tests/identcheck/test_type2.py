"""Type-2 (Setting II): the term set, the reduction by φ-free relations, the paper's facts."""

import numpy as np
import pytest
import sympy as sp

from identcheck import IdentcheckError, check
from identcheck.type2 import type2_term_set


def test_sizes_and_merges_at_the_paper_shape():
    ts = type2_term_set(2, 2, 2)
    assert ts.n_before_merging == 126 and len(ts.terms) == 104 and len(ts.merges) == 22
    groups = {}
    for t in ts.terms:
        groups.setdefault(t.group, 0)
        groups[t.group] += 1
    assert groups == {(0, 0): 1, (0, 1): 24, (0, 2): 27, (1, 0): 1, (1, 1): 24, (1, 2): 27}


def test_mixed_products_are_an_extension_only_on_request():
    plain = type2_term_set(2, 2, 1)
    mixed = type2_term_set(2, 2, 1, mixed_products=True)
    extra = [t for t in mixed.terms if t.kind == "uv"]
    assert extra and all("[extension]" in t.label for t in extra)
    assert not any(t.kind == "uv" for t in plain.terms)
    assert len(mixed.terms) - len(extra) == len(plain.terms)


@pytest.mark.parametrize("kwargs", [{"n_gates": 1}, {"n_gates": 5}, {"n_channels": 0}, {"dim": 4}])
def test_bad_head_shapes(kwargs):
    args = {"dim": 2, "n_gates": 2, "n_channels": 2} | kwargs
    with pytest.raises(IdentcheckError):
        type2_term_set(**args)


def test_identity_fails_type2_with_a_proved_euler_relation():
    result = check("z", condition="type2")
    assert result.verdict == "not identifiable" and result.evidence == "proof"
    witness = next(p for p in result.probes if p.name == result.witness)
    assert witness.relations[0].family == "Euler/homogeneity" and witness.relations[0].proved


@pytest.mark.parametrize("b", [1, -1])
def test_sigmoid_with_bias_passes_type2_reduced_but_not_literally(b):
    result = check("sigmoid(z + b)", condition="type2", params={"b": b})
    assert result.verdict == "identifiable"
    assert result.literal_verdict == "not identifiable"
    random_head = next(p for p in result.probes if p.name == "random head")
    # three linear-expert PDE relations per channel (d = 2, one free gating matrix), proved for every phi
    pde = [r for r in random_head.phi_free_relations if r.family and r.family.startswith("linear-expert PDE")]
    assert len(pde) == 6 and all(r.proved for r in pde)


def test_tanh_fails_type2_through_the_opposite_channels():
    result = check("tanh(z)", condition="type2")
    assert result.verdict == "not identifiable"
    dependent = [p.name for p in result.probes if p.dependent]
    assert dependent == ["channel 2 = -channel 1"]


def test_mha_contrast_shows_the_pde():
    result = check(None, condition="mha")
    assert result.verdict == "not identifiable"
    first = next(p for p in result.probes if p.name == result.witness).relations[0]
    assert first.family == "Euler/homogeneity" and "∂u/∂a1" in str(first) and first.proved


def _taylor_residuals(mixed):
    """Relative least-squares residual of each second-order Taylor coefficient ∂²φ(f)/∂θ∂θ'
    against the span of the set (d = 1, N = 2, K = 1, φ = sigmoid(z + 1), 60 points)."""
    from identcheck.activation import parse_activation
    from identcheck.terms import substitute_phi

    act = parse_activation("sigmoid(z + 1)")
    phi = sp.Function("phi")
    ts = type2_term_set(1, 2, 1, mixed)
    f = ts.channel_outputs[0]
    rng = np.random.default_rng(0)
    values = dict(zip(ts.params, [sp.Rational(int(v), 4) for v in rng.integers(-4, 5, len(ts.params))]))
    points = [sp.Rational(int(v), 13) for v in rng.integers(-13, 14, 60)]

    def column(expr):
        return [float(expr.xreplace(values).subs(ts.x[0], x)) for x in points]

    basis = np.array([column(substitute_phi(t, act.derivatives)) for t in ts.exprs()]).T
    out = {}
    for order in (1, 2):
        for combo in __import__("itertools").combinations_with_replacement(ts.params, order):
            derivative = sp.diff(phi(f), *combo).replace(phi, lambda arg: 1 / (1 + sp.exp(-arg - 1))).doit()
            target = np.array(column(derivative))
            coeffs, *_ = np.linalg.lstsq(basis, target, rcond=None)
            out[tuple(p.name for p in combo)] = np.linalg.norm(basis @ coeffs - target) / np.linalg.norm(target)
    return out


def test_taylor_coefficients_against_the_span_of_the_set():
    """What the listed set spans, measured (docs/type2.md):

    - every first-order coefficient, and the a–a second-order ones: in the span of the paper's set;
    - the M–a cross coefficients: only with the mixed products (the extension adds exactly those);
    - ∂²/∂M²: in neither — it carries φ'(f)·(∂e/∂M)²(s − f)/E², a term of neither form.
    """
    plain, mixed = _taylor_residuals(False), _taylor_residuals(True)
    for key, residual in plain.items():
        if len(key) == 1 or all(name.startswith("a") for name in key):
            assert residual < 1e-12, key
    cross = [k for k in plain if len(k) == 2 and k[0].startswith("M") and k[1].startswith("a")]
    assert cross
    for key in cross:
        assert mixed[key] < 1e-12 and plain[key] > 1e3 * mixed[key], key
    assert plain[("M1_11", "M1_11")] > 1e-7 and mixed[("M1_11", "M1_11")] > 1e-7
