"""Family hypotheses are detected exactly, and every template they imply is a true relation."""

import pytest
import sympy as sp

from identcheck import default_probes, parse_activation
from identcheck.activation import Z
from identcheck.certify import prove_relation
from identcheck.families import phi_properties, templates_for


@pytest.mark.parametrize(
    "phi, field, expected",
    [
        ("z", "euler", 1),
        ("3*z", "euler", 1),
        ("z**2", "euler", 2),
        ("exp(z)", "heat", 1),
        ("sin(z)", "heat", -1),
        ("cosh(2*z)", "heat", 4),
        ("erf(z)", "gaussian", -2),
        ("tanh(z)", "symmetry", (-1, 0)),
        ("sigmoid(z)", "symmetry", (-1, 1)),
        ("softplus(z)", "symmetry", (1, -Z)),
        ("gelu(z)", "symmetry", (1, -Z)),
        ("silu(z)", "symmetry", (1, -Z)),
        ("z + 1", "zero_second", True),
        ("z**2 + z", "degree", 2),
    ],
)
def test_hypotheses_found(phi, field, expected):
    props = phi_properties(tuple(parse_activation(phi).derivatives))
    assert getattr(props, field) == expected


@pytest.mark.parametrize("phi", ["sigmoid(z + 1)", "tanh(z) + sigmoid(z + 1)", "gelu(z + 1)"])
def test_no_family_for_generic_phi(phi):
    props = phi_properties(tuple(parse_activation(phi).derivatives))
    assert props.euler is None and props.heat is None and not props.zero_second
    assert props.symmetry is None and props.degree is None


@pytest.mark.parametrize("phi", ["z", "z**2", "z + 1", "exp(z)", "erf(z)", "tanh(z)", "sigmoid(z)", "silu(z)"])
def test_every_template_is_an_exact_identity(term_set_2d, phi):
    act = parse_activation(phi)
    found = 0
    for probe in default_probes(2, seed=1, include_zero=True):
        for template in templates_for(term_set_2d, act.derivatives, probe)[:6]:
            found += 1
            assert prove_relation(term_set_2d, act.derivatives, probe.components, template.coefficients), (
                phi,
                probe.name,
                template,
            )
    assert found > 0


def test_a_zero_family_holds_for_every_phi(term_set_2d):
    probe = next(p for p in default_probes(2, include_zero=True) if p.name == "a = 0")
    for phi in ["sigmoid(z + 1)", "gelu(z)", "atan(z)"]:
        act = parse_activation(phi)
        templates = [t for t in templates_for(term_set_2d, act.derivatives, probe) if t.family == "a = 0"]
        both_zero = act.expr.subs(Z, 0) == 0 and act.derivatives[2].subs(Z, 0) == 0
        assert len(templates) == (6 if both_zero else 3)  # two zero columns each, or one relation each
        for t in templates:
            assert prove_relation(term_set_2d, act.derivatives, probe.components, t.coefficients)


@pytest.mark.parametrize(
    "phi, symmetry",
    [("z**3", (-1, 0)), ("z**3 - z", (-1, 0)), ("z**2 + 1", (1, 0)), ("sigmoid(z)", (-1, 1)), ("softplus(z)", (1, -Z))],
)
def test_the_symmetry_with_q_zero_is_preferred(phi, symmetry):
    """An odd polynomial also satisfies φ(−z) = φ(z) + q with q = −2φ, a polynomial; the report must
    read φ(−z) = −φ(z) (a and −a collide), so q = 0 wins when both signs work."""
    s, q = phi_properties(tuple(parse_activation(phi).derivatives)).symmetry
    assert (s, sp.expand(q - symmetry[1])) == (symmetry[0], 0)
