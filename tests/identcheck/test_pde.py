"""prove-pde: the families' identities proved for general x, M, a — and only true ones."""

import pytest
import sympy as sp

from identcheck.errors import IdentcheckError
from identcheck.parse.activation import parse_activation
from identcheck.pde import _family, _phi, _polynomial, _Symbols, prove_pde


def _held(phi, dim=2):
    return {p.family.split(" (")[0]: p for p in prove_pde(phi, dim=dim) if p.holds}


@pytest.mark.parametrize(
    "phi, families",
    [
        ("z", {"Euler/homogeneity", "zero second derivative", "symmetry", "polynomial"}),
        ("z + 1", {"zero second derivative", "symmetry", "polynomial"}),
        ("z**2", {"Euler/homogeneity", "symmetry", "polynomial"}),
        ("z**3 + z", {"symmetry", "polynomial"}),
        ("exp(z)", {"heat type"}),
        ("cosh(z)", {"heat type", "symmetry"}),
        ("erf(z)", {"Gaussian type", "symmetry"}),
        ("softplus(z)", {"symmetry"}),
        ("sigmoid(z + 1)", set()),
    ],
)
def test_each_family_that_holds_is_proved(phi, families):
    held = _held(phi)
    assert set(held) == families
    for proof in held.values():
        assert proof.proved and all(ok for _, _, ok in proof.steps[:2])


def test_the_identity_gets_the_papers_pde_5():
    euler = next(p for p in prove_pde("z") if p.family.startswith("Euler"))
    assert "PDE (5)" in euler.family and "sum_j a_j du/da_j - 1*u = 0" in euler.identity
    assert euler.to_dict()["proved"] is True


def test_a_false_hypothesis_is_not_proved():
    """exp(z) with the heat constant 2 instead of 1: step 2 (H ≡ 0) must fail, so no proof."""
    s = _Symbols(2)
    u = s.u_bar()
    derivatives = tuple(parse_activation("exp(z)").derivatives)
    c = sp.Integer(2)
    identity = sp.diff(u, s.M(0, 0)) - 1 / c * sp.diff(u, s.a[0], s.a[0])
    proof = _family(
        s,
        derivatives,
        "heat type",
        "phi'' = 2*phi",
        True,
        [identity],
        "",
        _phi(2) - c * _phi(0),
        "",
        factors=[-1 / c * s.x[0] ** 2],
    )
    assert proof.steps[0][2]  # the reduction itself is calculus, true for every phi
    assert not proof.steps[1][2] and not proof.proved
    assert not proof.steps[2][2]  # and the direct check does not find 0 either


def test_a_wrong_reduction_is_not_accepted():
    """Step 1 with the wrong factor (w = 1 instead of 2 for M12) is not an exact zero."""
    s = _Symbols(2)
    u = s.u_bar()
    derivatives = tuple(parse_activation("exp(z)").derivatives)
    identity = sp.diff(u, s.M(0, 1)) - sp.diff(u, s.a[0], s.a[1])  # should be 2·∂²ū/∂a1∂a2
    proof = _family(
        s,
        derivatives,
        "heat type",
        "phi'' = phi",
        True,
        [identity],
        "",
        _phi(2) - _phi(0),
        "",
        factors=[-s.x[0] * s.x[1]],
    )
    assert not proof.steps[0][2] and not proof.proved


def test_every_dimension_up_to_three():
    for dim in (1, 2, 3):
        assert _held("z", dim)["Euler/homogeneity"].proved


@pytest.mark.parametrize("dim", [0, 7, "2", True])
def test_bad_dimension(dim):
    with pytest.raises(IdentcheckError, match="dim"):
        prove_pde("z", dim=dim)


def test_a_truncated_taylor_expansion_is_not_proved():
    """z**3 + z with the Taylor polynomial stopped at degree 2: not an identity, not proved."""
    derivatives = tuple(parse_activation("z**3 + z").derivatives)
    assert _polynomial(_Symbols(2), derivatives, 3).proved
    assert not _polynomial(_Symbols(2), derivatives, 2).proved


def test_a_symmetry_hypothesis_is_shown_as_a_reader_writes_it():
    from identcheck.pde import prove_pde

    (proof,) = [p for p in prove_pde("sigmoid(z)") if p.family == "symmetry"]
    assert proof.to_text().startswith("symmetry: phi(-z) = 1 - phi(z)\n")
    assert "`phi(-z) = 1 - phi(z)`" in proof._repr_markdown_()
    assert proof.to_dict()["hypothesis"] == "phi(-z) = -1*phi(z) + (1)"  # the JSON keeps the machine form
