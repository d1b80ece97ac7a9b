"""Property tests for your own gate activation, with identcheck.testing (copy into your suite).

Run: python3 -m pytest docs/examples/test_my_activation.py   (needs: pip install ".[test]")
identcheck's own suite runs this file, so the example cannot rot.
"""

import pytest
from hypothesis import given, settings

from identcheck import check
from identcheck.testing import (
    FAMILIES,
    assert_identifiable,
    assert_no_named_family_relation,
    components,
    family_residual,
    linear_expert_pde_residual,
    points,
)

MY_PHI = "sigmoid(z + b)"  # the activation under test
MY_PARAMS = {"b": "1"}  # its constants, written as on the command line (--param b=1): "-1/2", "1e-3" work too


@settings(max_examples=50, deadline=None)
@given(components(2), points(2, 16))
def test_plain_attention_expert_obeys_the_pde(component, x):
    """The linear expert u = exp(x'Mx)*a'x satisfies sum_j a_j du/da_j = u everywhere (PDE (5))."""
    assert linear_expert_pde_residual(component, x) < 1e-12


@pytest.mark.parametrize("family", FAMILIES)
@settings(max_examples=25, deadline=None)
@given(component=components(2, min_l1=1), x=points(2, 32))
def test_my_phi_satisfies_none_of_the_named_families(family, component, x):
    """No relation of the five named families (Euler = PDE (5), heat, Gaussian, zero phi'', symmetry)
    holds for MY_PHI. The named families only: passing them all does not make phi identifiable
    ((z + 1/2)/(1 + z**2) passes them all and is not) -- the test below runs the real check."""
    assert_no_named_family_relation(MY_PHI, family, component, x, params=MY_PARAMS)


def test_my_phi_is_identifiable():
    """The real check (identcheck.check): fails with the witness relation written out if it is not."""
    assert_identifiable(MY_PHI, params=MY_PARAMS)


@settings(max_examples=25, deadline=None)
@given(component=components(2), x=points(2, 32))
def test_the_identity_does_satisfy_euler(component, x):
    """The same check catches the identity: it satisfies the Euler (homogeneity) hypothesis."""
    assert family_residual("z", "euler", component, x) < 1e-12


def test_my_phi_passes_type1_with_certificates():
    """The checker's verdict, each probe certified (interval arithmetic) at its parameters."""
    result = check(MY_PHI, params=MY_PARAMS, certify=True)
    assert result.verdict == "identifiable"
    assert all(p.certificate.kind == "interval" for p in result.probes)
