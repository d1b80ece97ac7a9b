"""identcheck.testing: the strategies draw what they promise; the property checks can fail."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck.errors import IdentcheckError
from identcheck.terms.probes import Component
from identcheck.testing import (
    FAMILIES,
    assert_identifiable,
    assert_no_family_relation,
    assert_no_named_family_relation,
    catalog_activations,
    components,
    family_residual,
    linear_expert_pde_residual,
    points,
    probes,
    symmetric_matrices,
)


@given(symmetric_matrices(3))
def test_symmetric_matrices_are_symmetric_dyadic(m):
    assert all(m[i][j] == m[j][i] for i in range(3) for j in range(3))
    assert all(isinstance(v, sp.Rational) and (v * 8).is_integer for row in m for v in row)


@given(probes(2))
def test_probes_have_distinct_components_with_their_structure(probe):
    first, second = probe.components
    assert first != second
    if probe.name in ("shared M", "a2 = -a1", "a2 = c*a1"):
        assert first.M == second.M
    if probe.name == "a2 = -a1":
        assert second.a == tuple(-v for v in first.a)
    if probe.name == "M = 0 pair":
        assert all(v == 0 for row in first.M for v in row)


@given(points(2, 10))
def test_points_lie_in_the_box(x):
    assert x.shape == (10, 2) and np.all(np.abs(x) <= 1)


@settings(max_examples=30, deadline=None)
@given(components(2), points(2, 12))
def test_the_linear_expert_pde_holds_everywhere(component, x):
    assert linear_expert_pde_residual(component, x) < 1e-13


def test_the_pde_residual_detects_a_broken_identity():
    """The same residual with a wrong a (the identity's coefficients off) is far from zero."""
    component = Component(((sp.Rational(1, 2), 0), (0, sp.Rational(-1, 4))), (sp.Rational(3, 4), sp.Rational(1, 2)))
    x = np.random.default_rng(0).uniform(-1, 1, (20, 2))
    wrong = Component(component.M, (component.a[0] * 2, component.a[1]))
    assert linear_expert_pde_residual(component, x) < 1e-14

    # evaluate u at `component` but weight by `wrong`'s a: emulate by comparing the two residual scales
    from identcheck.parse.activation import parse_activation
    from identcheck.testing import _mha

    ts, compiled = _mha(2)
    theta = list(ts.numeric_params(component.M, component.a).values())
    values = compiled.float64(x, [theta], parse_activation("z"))
    u = values[:, ts.labels.index("u")]
    parts = sum(float(a) * values[:, ts.labels.index(f"∂u/∂a{j + 1}")] for j, a in enumerate(wrong.a))
    assert np.max(np.abs(parts - u)) > 1e-2 * np.max(np.abs(u))


@pytest.mark.parametrize(
    "phi, family",
    [
        ("z", "euler"),
        ("z**3", "euler"),
        ("exp(2*z)", "heat"),
        ("erf(z)", "gaussian"),
        ("z + 1", "zero_second"),
        ("tanh(z)", "symmetry"),
        ("softplus(z)", "symmetry"),
        ("z**3 + z**2", "symmetry"),
    ],
)
def test_family_relations_that_hold_are_caught(phi, family):
    component = Component(((sp.Rational(1, 4), 0), (0, 0)), (sp.Rational(3, 4), sp.Rational(-1, 2)))
    x = np.random.default_rng(1).uniform(-1, 1, (32, 2))
    assert family_residual(phi, family, component, x) < 1e-12
    with pytest.raises(AssertionError, match=family):
        assert_no_named_family_relation(phi, family, component, x)


@settings(max_examples=20, deadline=None)
@given(components(2, min_l1=1), points(2, 32), st.sampled_from(FAMILIES))
def test_sigmoid_with_bias_escapes_every_family(component, x, family):
    assert_no_named_family_relation("sigmoid(z + 1)", family, component, x)


def test_the_old_name_still_works_and_says_it_checks_named_families_only():
    component = Component(((0, 0), (0, 0)), (sp.Rational(3, 4), sp.Rational(-1, 2)))
    x = np.random.default_rng(1).uniform(-1, 1, (32, 2))
    with pytest.warns(DeprecationWarning, match="named family only"):
        assert_no_family_relation("sigmoid(z + 1)", "euler", component, x)


# passing the five named families is not identifiability (docs/certificates.md)
NOT_IDENTIFIABLE_OUTSIDE_THE_FAMILIES = "(z + 1/2)/(1 + z**2)"


def test_a_phi_outside_the_families_passes_them_all_but_fails_the_real_check():
    component = Component(((sp.Rational(1, 4), 0), (0, 0)), (sp.Rational(3, 4), sp.Rational(-1, 2)))
    x = np.random.default_rng(1).uniform(-1, 1, (32, 2))
    for family in FAMILIES:
        assert_no_named_family_relation(NOT_IDENTIFIABLE_OUTSIDE_THE_FAMILIES, family, component, x)
    with pytest.raises(AssertionError) as caught:
        assert_identifiable(NOT_IDENTIFIABLE_OUTSIDE_THE_FAMILIES)
    message = str(caught.value)
    assert "not identifiable" in message and "witness probe 'shared M" in message
    assert "ū[1]" in message and "= 0" in message  # the witness relation, written out


def test_assert_identifiable_passes_and_returns_the_result():
    result = assert_identifiable("sigmoid(z + 1)")
    assert result.verdict.value == "identifiable"


@pytest.mark.parametrize("value", ["-1", "-1/2", "1e-1", -0.5, 2])
def test_params_take_the_strings_the_command_line_takes(value):
    component = Component(((0, 0), (0, 0)), (sp.Rational(3, 4), sp.Rational(-1, 2)))
    x = np.random.default_rng(1).uniform(-1, 1, (32, 2))
    assert family_residual("sigmoid(z + b)", "euler", component, x, params={"b": value}) > 1e-8
    assert_identifiable("sigmoid(z + b)", params={"b": value})


def test_params_are_parsed_never_evaluated():
    with pytest.raises(IdentcheckError, match="is not a number"):
        assert_identifiable("sigmoid(z + b)", params={"b": "__import__('os')"})


@given(catalog_activations())
def test_catalog_activations_parse(phi):
    from identcheck import parse_activation

    parse_activation(phi)


def test_unknown_family_is_a_clear_error():
    with pytest.raises(IdentcheckError, match="family='hot'"):
        family_residual("z", "hot", Component(((0,),), (1,)), np.zeros((3, 1)))
