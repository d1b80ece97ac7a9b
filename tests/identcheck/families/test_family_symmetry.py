"""The sign-symmetry family (identcheck/families/symmetry.py): φ odd/even up to a polynomial on
type-1's a₂ = −a₁, an expert's h(x; −θ) = ±h(x; θ) + q on a sign pair of atoms; each relation
checked here by sympy on functions written by hand, and never named where the symmetry fails."""

import sympy as sp

from identcheck import parse_activation
from identcheck.check import check
from identcheck.families import symmetry
from identcheck.families.phi import phi_properties
from identcheck.parse.activation import Z
from identcheck.parse.expert import parse_expert
from identcheck.terms.type1 import type1_term_set
from identcheck.util.budget import pool

from ..family_checks import Atom, Recorder, expert_residual, member, type1_residual

R = sp.Rational
x = sp.symbols("x1 x2", real=True)
e2, a, b, e0 = sp.symbols("e2 e1_1 e1_2 e0", real=True)


def _type1(phi_text, phi):
    M = ((R(7, 8), R(1, 4)), (R(1, 4), R(-1, 2)))
    components = [(M, (R(-3, 8), R(5, 8))), (M, (R(3, 8), R(-5, 8)))]  # one M, a₂ = −a₁
    props = phi_properties(tuple(parse_activation(phi_text).derivatives))
    rec = Recorder(2, components)
    symmetry.type1_templates(rec, props.symmetry, list(type1_term_set(2).index), components[0][1], 0, 1)
    return props, rec, components


def test_type1_odd_phi_ties_the_sign_pair_term_by_term():
    props, rec, components = _type1("tanh(z)", sp.tanh)
    assert props.symmetry == (-1, 0) and len(rec.added) == len(type1_term_set(2).index)
    for family, hypothesis, parts in rec.added:
        assert (family, hypothesis) == ("symmetry", "phi(-z) = -1*phi(z) + (0)")
        assert type1_residual(sp.tanh, 2, components, parts) == 0


def test_type1_softplus_uses_its_linear_q_and_every_relation_holds():
    softplus = lambda z: sp.log(1 + sp.exp(z))  # noqa: E731  softplus(−z) = softplus(z) − z
    props, rec, components = _type1("softplus(z)", softplus)
    assert props.symmetry == (1, -Z)
    wide = [parts for _, _, parts in rec.added if len(parts[0][1]) > 1]  # the q = q₁z relations
    assert wide and all(type1_residual(softplus, 2, components, parts) == 0 for _, _, parts in rec.added)


def test_no_symmetry_for_a_phi_without_one():
    assert phi_properties(tuple(parse_activation("sigmoid(z + 1)").derivatives)).symmetry is None


def test_the_parity_of_an_expert_is_found_and_is_true():
    for text, h in (
        ("e2*tanh(dot(e1, x) + e0)", e2 * sp.tanh(a * x[0] + b * x[1] + e0)),
        ("e2*sigmoid(dot(e1, x) + e0)", e2 / (1 + sp.exp(-(a * x[0] + b * x[1] + e0)))),
        ("e2*softplus(dot(e1, x) + e0)", e2 * sp.log(1 + sp.exp(a * x[0] + b * x[1] + e0))),
    ):
        expert = parse_expert(text, 2)
        s, q = symmetry.expert_parity(expert.h, tuple(expert.params), tuple(expert.x))
        flip = {p: -p for p in (e2, a, b, e0)}
        difference = h.xreplace(flip) - s * h - q.xreplace({p: sp.Symbol(p.name, real=True) for p in q.free_symbols})
        assert sp.simplify(sp.expand(difference)) == 0 or sp.simplify(sp.diff(difference, x[0])) == 0, text
    expert = parse_expert("e2*exp(dot(e1, x))", 2)
    assert symmetry.expert_parity(expert.h, tuple(expert.params), tuple(expert.x)) is None


def _pair(expert, **values):
    first = Atom(expert, **values)
    return [first, Atom(expert, **{n: -v for n, v in first.items()})]


def test_an_expert_sign_pair_tie_is_named_and_a_tie_that_is_not_one_is_not():
    expert = parse_expert("e2*sigmoid(dot(e1, x) + e0)", 2)
    h = e2 / (1 + sp.exp(-(a * x[0] + b * x[1] + e0)))
    atoms = _pair(expert, e2="3/8", e1_1="1/2", e1_2="-5/8", e0="1/4")
    tied = [member(0, "d", ["e1_1"], 1), member(1, "d", ["e1_1"], 1)]  # σ(−z) = 1 − σ(z): ∂h/∂e1 is even
    assert expert_residual(h, atoms, tied, x) == 0
    assert symmetry.expert_name(expert, atoms, tied) == symmetry.EXPERT_SIGN
    # ∂h/∂e2 is not: h(−θ) = h(θ) − e2, so ∂h/∂e2(−θ) = −∂h/∂e2(θ) + 1 — no two-member tie
    untied = [member(0, "d", ["e2"], 1), member(1, "d", ["e2"], 1)]
    assert expert_residual(h, atoms, untied, x) != 0 and symmetry.expert_name(expert, atoms, untied) is None
    # atoms that are not a sign pair
    shifted = [atoms[0], Atom(expert, e2="3/8", e1_1="-1/2", e1_2="5/8", e0="-1/8")]
    assert symmetry.expert_name(expert, shifted, tied) is None


def test_softplus_eight_member_relation_is_the_sign_symmetry_with_its_polynomial():
    expert = parse_expert("e2*softplus(dot(e1, x) + e0)", 2)
    h = e2 * sp.log(1 + sp.exp(a * x[0] + b * x[1] + e0))
    atoms = _pair(expert, e2="3/8", e1_1="1/2", e1_2="-5/8", e0="1/4")
    # h(−θ) = −h(θ) + L, L = e2(e1ᵀx + e0): Σ c_j (∂_j h[1] − ∂_j h[2]) = Σ c_j ∂_j L(θ1), zero for
    # c_e2 = 1, c_e1u = −e1u/e2, c_e0 = −e0/e2 (by hand: (e1ᵀx + e0) − (e1ᵀx) − e0 = 0)
    v = atoms[0].by_name
    c = {"e2": 1, "e1_1": -v["e1_1"] / v["e2"], "e1_2": -v["e1_2"] / v["e2"], "e0": -v["e0"] / v["e2"]}
    relation = [member(0, "d", [n], c[n]) for n in c] + [member(1, "d", [n], -c[n]) for n in c]
    assert expert_residual(h, atoms, relation, x) == 0
    assert symmetry.expert_name(expert, atoms, relation) == symmetry.EXPERT_SIGN
    perturbed = relation[:-1] + [member(1, "d", ["e0"], -c["e0"] + R(1, 8))]
    assert symmetry.expert_name(expert, atoms, perturbed) is None


def test_the_condition_names_the_sign_pair_through_the_family_and_proves_it():
    result = check("tanh(dot(e1, x) + b)", condition="deepseek-weak", params={"b": "0"})
    relation = result.witness_probe.relation
    assert result.witness.endswith("sign pair θ2 = −θ1") and relation.family == symmetry.EXPERT_SIGN
    assert relation.proved and str(relation) == "∂h2/∂e1⁽¹⁾[1] − ∂h2/∂e1⁽¹⁾[2] = 0"
    # by hand: tanh is odd, so ∂/∂e1 tanh(e1ᵀx) = x1·tanh'(e1ᵀx) is even in e1
    g = sp.diff(sp.tanh(a * x[0] + b * x[1]), a)
    assert sp.simplify(g.xreplace({a: -a, b: -b}) - g) == 0
    # shared e1 ties atoms through a member that does not depend on e2: not a sign symmetry
    gelu = check("e2*gelu(dot(e1, x))", condition="deepseek-weak", dim=1)
    shared = next(p for p in gelu.probes if p.name.startswith("D2: shared e1"))
    assert shared.relations and all(r.family == "atoms tied (the same member)" for r in shared.relations)


def test_a_parity_the_budget_cut_short_is_not_kept():
    """Under a spent pool every sympy step is refused (None, not kept); afterwards the parity is found:
    (−c)·tanh(−w·z) = c·tanh(w·z), so s = 1 and q = 0 — checked here by sympy."""
    c, w, z = sp.symbols("c_cut w_cut z_cut", real=True)
    h = c * sp.tanh(w * z)
    assert sp.simplify(h.xreplace({c: -c, w: -w}) - h) == 0
    with pool(0):
        assert symmetry.expert_parity(h, (c, w), (z,)) is None
    assert symmetry.expert_parity(h, (c, w), (z,)) == (1, 0)


def test_type2_relations_a_polynomial_q_explains_are_named_symmetry_when_proved():
    """tanh(z) + z²/2: φ(−z) = z² − φ(z), and q = z², q' = 2z, q'' = 2 never vanish on the type-2
    terms (φ, φ', φ''), so no term-by-term template ties the mirrored head; the relations found
    raw are proved with φ abstract after the parity rewrite, which makes them the symmetry's."""
    phi = sp.tanh(Z) + Z**2 / 2
    assert sp.simplify(phi.subs(Z, -Z) - (Z**2 - phi)) == 0  # by hand: tanh is odd
    result = check("tanh(z) + 0.5*z**2", condition="type2")
    witness = result.witness_probe
    assert witness.name == "channel 2 = -channel 1" and witness.relations
    assert all(r.family == symmetry.SYMMETRY and r.proved for r in witness.relations)
    assert all(r.hypothesis is not None and "phi(-z) = -1*phi(z)" in r.hypothesis for r in witness.relations)
    # a certified run proves the same relations through the certificate: named the same
    certified = check("tanh(z) + 0.5*z**2", condition="type2", certify=True).witness_probe
    assert certified.relations and all(r.family == symmetry.SYMMETRY and r.proved for r in certified.relations)
