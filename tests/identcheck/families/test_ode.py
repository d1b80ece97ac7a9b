"""The ``ode`` family (docs/method.md §4): φ's linear ODEs guessed and proved, their type-1 relations named.

Every expected value is checked here by sympy directly — the activation written out by hand, the
relation rebuilt from ū = exp(xᵀMx)·φ(aᵀx) by differentiation — not by the package's term set,
placeholders or provers.
"""

import pytest
import sympy as sp

from identcheck import parse_activation
from identcheck.families import ODE, ode_templates_for
from identcheck.families.ode import guess_ode, phi_odes, realizable_shapes
from identcheck.parse.activation import Z

from ..shared_checks import checked

#: φ by hand (not through the parser), and the ODE it satisfies, verified below by sympy.
GELU = Z / 2 * (1 + sp.erf(Z / sp.sqrt(2)))
RATIONAL = Z / (1 + Z**2)
ODES = {
    "gelu(z)": (GELU, "z**2*phi'' + (z**3 - 2*z)*phi' + (2 - z**2)*phi = 0"),
    "z/(1 + z**2)": (RATIONAL, "(z**3 + z)*phi' + (z**2 - 1)*phi = 0"),
}


def _applied(text: str, phi: sp.Expr) -> sp.Expr:
    """The left side of ``text`` ("P2*phi'' + P1*phi' + P0*phi = 0") with φ substituted, by sympy alone."""
    left = text.removesuffix(" = 0").replace("phi''", "D2").replace("phi'", "D1").replace("phi", "D0")
    d0, d1, d2 = sp.symbols("D0 D1 D2")
    expr = sp.sympify(left, locals={"z": Z, "D0": d0, "D1": d1, "D2": d2})
    return expr.subs({d2: sp.diff(phi, Z, 2), d1: sp.diff(phi, Z), d0: phi})


@pytest.mark.parametrize("text, phi", [(t, p) for p, t in ODES.values()] + [("phi' - phi = 0", sp.exp(Z))])
def test_the_expected_odes_hold(text, phi):
    assert sp.simplify(_applied(text, phi)) == 0


def test_a_wrong_sign_does_not_hold():
    assert sp.simplify(_applied("z**2*phi'' + (z**3 + 2*z)*phi' + (2 - z**2)*phi = 0", GELU)) != 0


def _u_bar(phi, M, a, x):
    """ū = exp(xᵀMx)·φ(aᵀx) with M's free entries as symbols (the symmetric parametrisation), and the
    symbol of each typed key variable (``("M", 0, 1)``, ``("a", 0)``, 0-based)."""
    d = len(x)
    m = {(j, k): sp.Symbol(f"M{j + 1}{k + 1}") for j in range(d) for k in range(j, d)}
    av = sp.symbols(f"a1:{d + 1}")
    quadratic = sum((1 if j == k else 2) * m[(j, k)] * x[j] * x[k] for (j, k) in m)
    u = sp.exp(quadratic) * phi.subs(Z, sum(ai * xi for ai, xi in zip(av, x)))
    values = {m[(j, k)]: M[j][k] for (j, k) in m} | dict(zip(av, a))
    return u, {("M", j, k): s for (j, k), s in m.items()} | {("a", i): s for i, s in enumerate(av)}, values


def _relation_value(phi, probe, relation, point):
    """Σ coefficient·∂^key ū(θ_c) at ``point``, rebuilt by sympy from the relation's keys (c, derivative)."""
    x = sp.symbols("x1:3")
    total = 0
    for (component, derivative), (_, coefficient) in zip(relation.keys, relation.exact):
        c = probe.components[component]
        u, names, values = _u_bar(phi, c.M, c.a, x)
        for name in derivative:
            u = sp.diff(u, names[name])
        total += sp.Rational(coefficient) * u.subs(values)
    return total.subs(dict(zip(x, point)))


@pytest.mark.parametrize("phi", sorted(ODES))
def test_single_expert_relation_is_the_ode_proved(phi):
    by_hand, text = ODES[phi]
    result = checked(phi)
    single = next(p for p in result.probes if p.name == "random single")
    assert single.dependent and single.nullity == 1
    (relation,) = single.relations
    assert relation.family == ODE and relation.proved
    assert relation.hypothesis == text
    assert result.witness == "random single"
    for point in [(sp.Rational(1, 3), sp.Rational(-2, 7)), (sp.Rational(-5, 8), sp.Rational(3, 4))]:
        assert abs(sp.N(_relation_value(by_hand, single, relation, point), 40)) < 1e-30
    data = relation.to_dict()
    assert data["family"] == "ode" and data["hypothesis"] == text and data["proved"] is True


def test_the_ode_is_in_text_and_markdown():
    result = checked("gelu(z)")
    assert "[ode: z**2*phi'' + (z**3 - 2*z)*phi' + (2 - z**2)*phi = 0, proved exactly; order 2:" in result.to_text()
    assert "ode: z**2*phi'' + (z**3 - 2*z)*phi' + (2 - z**2)*phi = 0" in result._repr_markdown_()


def test_no_low_order_ode_no_family():
    act = parse_activation("sigmoid(z + 1)")
    assert guess_ode(act.derivatives) is None
    assert phi_odes(tuple(act.derivatives), 2) == ((), ())
    result = checked("sigmoid(z + 1)")
    assert str(result.verdict) == "identifiable"


@pytest.mark.parametrize(
    "phi, expected",
    [
        ("exp(z)", "phi' - phi = 0"),
        ("sin(z)", "phi'' + phi = 0"),
        ("erf(z)", "phi'' + 2*z*phi' = 0"),
        ("exp(-z**2)", "phi' + 2*z*phi = 0"),
        ("z/(1 + z**2)", "(z**3 + z)*phi' + (z**2 - 1)*phi = 0"),
        ("gelu(z)", "z**2*phi'' + (z**3 - 2*z)*phi' + (2 - z**2)*phi = 0"),
    ],
)
def test_guess_ode_on_known_functions(phi, expected):
    found = guess_ode(parse_activation(phi).derivatives)
    assert str(found) == expected
    by_hand = {"exp(z)": sp.exp(Z), "sin(z)": sp.sin(Z), "erf(z)": sp.erf(Z), "exp(-z**2)": sp.exp(-(Z**2))}.get(
        phi, ODES.get(phi, (None,))[0]
    )
    assert sp.simplify(_applied(expected, by_hand)) == 0


def test_an_ode_outside_the_shapes_gives_no_template():
    """exp's φ' − φ needs φ' with an even x-degree: no shape has it; φ'' − φ (heat) is found instead."""
    shapes = [set(shape) for _, shape in realizable_shapes(2)]
    assert not any({(0, 1), (0, 0)} <= shape for shape in shapes)
    operators = [str(op) for _, op in phi_odes(tuple(parse_activation("exp(z)").derivatives), 2)[0]]
    assert "phi' - phi = 0" not in operators and "phi'' - phi = 0" in operators


@pytest.mark.parametrize(
    "phi, family",
    [
        ("z", "Euler/homogeneity"),
        ("exp(z)", "heat type"),
        ("sin(z)", "heat type"),
        ("erf(z)", "Gaussian type"),
        ("z + 1", "zero second derivative"),
    ],
)
def test_an_ode_does_not_hide_a_named_family(phi, family):
    result = checked(phi)
    single = next(p for p in result.probes if p.name == "random single")
    assert single.relations[0].family == family
    assert all(r.family != ODE for p in result.probes for r in p.relations)


def test_symmetry_keeps_its_name_beside_the_ode():
    probe = next(p for p in checked("gelu(z)").probes if p.name == "shared M, a2 = -a1")
    assert probe.relations[0].family == "symmetry"
    assert {r.family for r in probe.relations} == {"symmetry", ODE}


def test_ode_templates_on_every_component(term_set_2d):
    from identcheck import default_probes

    act = parse_activation("gelu(z)")
    probe = next(p for p in default_probes(2) if p.name == "random triple")
    templates = ode_templates_for(term_set_2d, act.derivatives, probe)
    assert {column // len(term_set_2d.terms) for t in templates for column, _ in t.coefficients} == {0, 1, 2}


def test_a_coupling_of_experts_is_exact_and_says_which():
    """(z + 1/2)/(1 + z²): one expert alone is independent; two sharing M are tied, with rational coefficients."""
    result = checked("(z + 1/2)/(1 + z**2)")
    assert not next(p for p in result.probes if p.name == "random single").dependent
    probe = next(p for p in result.probes if p.name == "shared M, random a")
    for relation in probe.relations:
        assert relation.family is None and relation.exact is not None
        assert relation.ties == (1, 2)
        assert "ties experts [1], [2]" in relation.tag
        assert relation.to_dict()["ties"] == [1, 2]
    x = probe.relations[0]
    for point in [(sp.Rational(1, 3), sp.Rational(-2, 7))]:
        assert abs(sp.N(_relation_value((Z + sp.Rational(1, 2)) / (1 + Z**2), probe, x, point), 40)) < 1e-30


def test_the_prover_rejects_a_perturbed_ode_relation(term_set_2d):
    from identcheck import default_probes
    from identcheck.families.proofs import prove_relation

    act = parse_activation("gelu(z)")
    probe = next(p for p in default_probes(2) if p.name == "random single")
    (template,) = ode_templates_for(term_set_2d, act.derivatives, probe)
    assert prove_relation(term_set_2d, act.derivatives, probe.components, template.coefficients, family=ODE)
    (column, value), *rest = template.coefficients
    wrong = ((column, -value), *rest)
    assert not prove_relation(term_set_2d, act.derivatives, probe.components, wrong, thorough=False, family=ODE)


@pytest.mark.slow  # ≈ 3 s of CPU, 12 s at load 8
def test_scan_names_the_ode_of_an_exceptional_value():
    from identcheck import scan

    result = scan("gelu(z + b)", {"b": (-1, 1, 3)}, jobs=1, width=0.5)
    (point,) = result.exceptional
    assert point.values == (("b", 0),) and point.family == ODE and point.proved
    assert point.hypothesis == ODES["gelu(z)"][1] and point.to_dict()["hypothesis"] == point.hypothesis
    assert f"exceptional: b = 0: ode: {ODES['gelu(z)'][1]}, proved" in result.to_text()
