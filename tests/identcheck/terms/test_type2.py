"""Type-2 (Setting II): the term set, the reduction by φ-free relations, the paper's facts."""

import numpy as np
import pytest
import sympy as sp

from identcheck import IdentcheckError, check, parse_activation
from identcheck.terms.type2 import type2_term_set


def test_sizes_and_merges_at_the_paper_shape():
    ts = type2_term_set(2, 2, 2)
    assert ts.n_derivatives == 126 and len(ts.terms) == 104 and len(ts.merges) == 22
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
    # every relation names its terms by structure too: each key is the key of the term so labelled
    label_of = {t.key: t.label for t in type2_term_set(2, 2, 2, False).terms}
    relations = [r for p in result.probes for r in p.relations + p.details["phi_free_relations"]]
    assert len(relations) > 10 and any(key == ("phi", 0) for r in relations for key in r.keys)
    for relation in relations:
        assert [label_of[key] for key in relation.keys] == [label for label, _ in relation.terms]


@pytest.mark.parametrize("b", [1, -1])
def test_sigmoid_with_bias_passes_type2_reduced_but_not_literally(b):
    result = check("sigmoid(z + b)", condition="type2", params={"b": b})
    assert result.verdict == "identifiable"
    assert result.details["literal_verdict"] == "not identifiable"
    # the two verdicts on separate, labelled lines of the text report (and of the markdown)
    lines = result.to_text().splitlines()
    assert lines[1] == "  verdict (reduced set): IDENTIFIABLE (numeric evidence)"
    assert lines[2].startswith("  verdict (literal set, as the paper states it): NOT IDENTIFIABLE, because of ")
    assert "literal" not in lines[3]
    markdown = result._repr_markdown_()
    assert (
        "**Verdict (reduced set): IDENTIFIABLE**" in markdown
        and "**Verdict (literal set, as the paper states it): NOT" in markdown
    )
    random_head = next(p for p in result.probes if p.name == "random head")
    # three linear-expert PDE relations per channel (d = 2, one free gating matrix), proved for every phi
    free = random_head.details["phi_free_relations"]
    pde = [r for r in free if r.family and r.family.startswith("linear-expert PDE")]
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


def _taylor_residuals(mixed, frozen_denominator=False):
    """Relative least-squares residual of each first- and second-order Taylor coefficient
    against the span of the set (d = 1, N = 2, K = 1, φ = sigmoid(z + 1), 60 points).

    ``frozen_denominator``: expand the paper's decomposition (Appendix B.3) instead of φ(f_G):
    φ(f* + (U(θ) − f*·E(θ))/E*), the numerator expanded, the softmax denominator kept at E*
    (the proof divides by the fitted E_n, which tends to E*).
    """
    from identcheck.parse.activation import parse_activation
    from identcheck.terms.type1 import substitute_phi

    act = parse_activation("sigmoid(z + 1)")
    phi = sp.Function("phi")
    ts = type2_term_set(1, 2, 1, mixed)
    f = ts.channel_outputs[0]
    rng = np.random.default_rng(0)
    values = dict(zip(ts.params, [sp.Rational(int(v), 4) for v in rng.integers(-4, 5, len(ts.params))]))
    points = [sp.Rational(int(v), 13) for v in rng.integers(-13, 14, 60)]
    if frozen_denominator:
        numerator, denominator = sp.fraction(sp.together(f))
        f_star, e_star = f.xreplace(values), denominator.xreplace(values)
        expanded = phi(f_star + (numerator - f_star * denominator) / e_star)
    else:
        expanded = phi(f)

    def column(expr):  # evaluated at 30 digits, then rounded: the residuals are not rounding artefacts
        import mpmath

        evaluate = sp.lambdify(ts.x[0], expr.xreplace(values), "mpmath")
        with mpmath.workdps(30):
            return [float(evaluate(mpmath.mpf(x.p) / x.q)) for x in points]

    basis = np.array([column(substitute_phi(t, act.derivatives)) for t in ts.exprs()]).T
    out = {}
    for order in (1, 2):
        for combo in __import__("itertools").combinations_with_replacement(ts.params, order):
            derivative = sp.diff(expanded, *combo).replace(phi, lambda arg: 1 / (1 + sp.exp(-arg - 1))).doit()
            target = np.array(column(derivative))
            coeffs, *_ = np.linalg.lstsq(basis, target, rcond=None)
            out[tuple(p.name for p in combo)] = np.linalg.norm(basis @ coeffs - target) / np.linalg.norm(target)
    return out


def _is_m_a(key):
    return len(key) == 2 and key[0].startswith("M") and key[1].startswith("a")


def test_taylor_coefficients_against_the_span_of_the_set():
    """What the listed set spans of the full expansion of φ(f_G), measured (docs/type2.md):

    - every first-order coefficient, and the a–a second-order ones: in the span of the paper's set;
    - the M–a cross coefficients: only with the mixed products (the extension adds exactly those);
    - ∂²/∂M²: in neither — it carries φ'(f)·(∂e/∂M)²(s − f)/E², from expanding 1/E.
    """
    plain, mixed = _taylor_residuals(False), _taylor_residuals(True)
    for key, residual in plain.items():
        if len(key) == 1 or all(name.startswith("a") for name in key):
            assert residual < 1e-12, key
    cross = [k for k in plain if _is_m_a(k)]
    assert cross
    for key in cross:
        assert mixed[key] < 1e-12 and plain[key] > 1e3 * mixed[key], key
    assert plain[("M1_11", "M1_11")] > 1e-7 and mixed[("M1_11", "M1_11")] > 1e-7


def test_the_proofs_decomposition_is_spanned_with_the_mixed_products():
    """The paper's proof keeps the fitted softmax denominator (→ E*) instead of expanding 1/E.
    That decomposition is spanned by the set *with* the mixed u·v products, every coefficient up to
    second order; the paper's set alone misses the M–M and M–a ones (they contain ∂u·∂v products)."""
    plain, mixed = _taylor_residuals(False, frozen_denominator=True), _taylor_residuals(True, frozen_denominator=True)
    assert all(residual < 1e-12 for residual in mixed.values()), mixed
    for key, residual in plain.items():
        if len(key) == 1 or all(name.startswith("a") for name in key):
            assert residual < 1e-12, key
        else:
            assert residual > 1e3 * mixed[key], key


@pytest.mark.parametrize("phi, sign, dim", [("sin(z)", "+", 2), ("cos(z)", "−", 1), ("sigmoid(z)", "+", 1)])
def test_type2_symmetry_is_named_and_proved(phi, sign, dim):
    """Odd/even φ (up to a polynomial) on channel 2 = −channel 1: f² = −f¹, so every term of
    channel 2 is ± its channel-1 counterpart (where q^(m) ≡ 0). Named, and proved with φ abstract
    after the parity rewrite. (cos and sigmoid at d = 1: the same rewrite, a fifth of the time.)"""
    result = check(phi, condition="type2", dim=dim)
    probe = next(p for p in result.probes if p.name == "channel 2 = -channel 1")
    assert probe.dependent and all(r.family == "symmetry" and r.proved for r in probe.relations)
    if phi != "sigmoid(z)":  # sigmoid's φ(−z) = 1 − φ(z): no relation among the φ(f) terms themselves
        assert f"φ(f2) {sign} φ(f1) = 0" in [str(r) for r in probe.relations]
    assert result.evidence == "proof"


def test_a_symmetry_template_on_the_wrong_probe_is_not_proved():
    """The parity rewrite applies only where f² = −f¹ exactly: on another head the same
    combination is not an identity, and the prover must not say it is."""
    from identcheck.families import Template
    from identcheck.families.type2 import prover
    from identcheck.terms.probes import head_probes

    ts = type2_term_set(2, 2, 2, False)
    act = parse_activation("sin(z)")
    labels = [t.label for t in ts.terms]
    template = Template(
        "symmetry", "", ((labels.index("φ(f2)"), sp.Integer(1)), (labels.index("φ(f1)"), sp.Integer(1)))
    )
    for probe in head_probes(2, 2, 2, 0):
        config = probe.components[0]
        prove = prover(ts, act, ts.numeric_params(config.M, config.a), list(range(len(labels))), True)
        assert prove(template.coefficients, False, template.family) == (probe.name == "channel 2 = -channel 1"), (
            probe.name
        )


@pytest.mark.parametrize("phi", ["softplus(z)", "z", "sigmoid(z)", "tanh(z)", "z**3 + z**2"])
def test_the_parity_rewrite_is_an_identity(phi):
    """φ^(m)(−f¹) rewritten by φ's symmetry equals φ^(m)(−f¹) itself, once φ is substituted
    (checked at random points for m = 0, 1, 2): the rewrite the abstract proofs rely on is sound."""
    from identcheck.families import phi_properties
    from identcheck.families.type2 import apply_parity
    from identcheck.terms.probes import head_probes
    from identcheck.terms.type1 import phi_placeholder, substitute_phi

    ts = type2_term_set(2, 2, 2, False)
    act = parse_activation(phi)
    symmetry = phi_properties(tuple(act.derivatives)).symmetry
    assert symmetry is not None
    config = next(p for p in head_probes(2, 2, 2, 0) if p.name == "channel 2 = -channel 1").components[0]
    values = ts.numeric_params(config.M, config.a)
    outputs = [f.xreplace(values) for f in ts.channel_outputs]
    rng = np.random.default_rng(5)
    for m in range(3):
        original = phi_placeholder(m)(outputs[1])  # f² = −f¹ on this head
        rewritten, flipped = apply_parity(original, symmetry, outputs, {})
        assert flipped
        for point in rng.uniform(-1, 1, size=(4, 2)):
            at = dict(zip(ts.x, point))
            left = float(substitute_phi(original, act.derivatives).xreplace(at).evalf(30))
            right = float(substitute_phi(rewritten, act.derivatives).xreplace(at).evalf(30))
            assert abs(left - right) <= 1e-12 * (1 + abs(left)), (m, left, right)


def test_an_unresolved_inadmissible_probe_counted_on_request_is_counted_as_unresolved():
    """b = 1e-300: every head's columns stay below the precision; the uniform-gating head's note
    starts with its (A.4) violation, yet it is one of the probes left undecided for that reason."""
    result = check("sigmoid(z*b)", condition="type2", params={"b": 1e-300}, include_inadmissible=True, dim=1)
    undecided = [p for p in result.probes if p.dependent is None and p.counts_for_verdict]
    assert result.verdict == "inconclusive" and len(undecided) == 5
    assert undecided[1].note.startswith("violates (A.4)") and "not settled: column(s) too small" in undecided[1].note
    assert f"{len(undecided)} of them because column(s) stayed below the precision" in result.summary
