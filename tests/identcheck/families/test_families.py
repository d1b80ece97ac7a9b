"""Family hypotheses are detected exactly, and every template they imply is a true relation."""

import pytest
import sympy as sp

from identcheck import default_probes, parse_activation
from identcheck.check import check
from identcheck.families import at_zero, gaussian, heat, phi_properties, polynomial, templates_for, zero_second
from identcheck.families.base import structure
from identcheck.families.proofs import prove_relation
from identcheck.families.reach import REACH_EXPERT, REACH_TEMPLATE, ProbeAlgebra
from identcheck.parse.activation import Z
from identcheck.parse.expert import parse_expert
from identcheck.terms.expert_sets import member_set
from identcheck.terms.type1 import type1_term_set

A2 = type1_term_set(2).a_symbols()


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


# --- each type-1 family module on its own, checked on ū written by hand (tests/identcheck/family_checks.py) ---

_C = [
    (
        ((sp.Rational(7, 8), sp.Rational(1, 4)), (sp.Rational(1, 4), sp.Rational(-1, 2))),
        (sp.Rational(-3, 8), sp.Rational(5, 8)),
    )
]


def _recorded(propose, components=_C):
    from ..family_checks import Recorder

    rec = Recorder(2, components)
    propose(rec)
    return rec.added


@pytest.mark.parametrize(
    "name, propose, phi, other",
    [
        ("heat type", lambda b: heat.type1_templates(b, 1, 2, 0), sp.exp, sp.sin),
        ("heat type", lambda b: heat.type1_templates(b, -4, 2, 0), lambda z: sp.cos(2 * z), sp.exp),
        ("Gaussian type", lambda b: gaussian.type1_templates(b, -2, A2, 0), sp.erf, sp.tanh),
        ("zero second derivative", lambda b: zero_second.type1_templates(b, 2, 0), lambda z: 3 * z + 1, sp.exp),
    ],
)
def test_a_family_module_proposes_true_relations_and_they_fail_for_another_phi(name, propose, phi, other):
    from ..family_checks import type1_residual

    added = _recorded(propose)
    assert added and {family for family, _, _ in added} == {name}
    assert all(type1_residual(phi, 2, _C, parts) == 0 for _, _, parts in added)
    assert all(type1_residual(other, 2, _C, parts) != 0 for _, _, parts in added)


def test_the_a_zero_family_holds_for_any_phi_at_a_zero_only():
    from ..family_checks import type1_residual

    zero = [(_C[0][0], (0, 0))]
    for phi, text in ((lambda z: 1 / (1 + sp.exp(-z)), "sigmoid(z)"), (lambda z: sp.sin(z) + 2, "sin(z) + 2")):
        derivatives = tuple(parse_activation(text).derivatives)
        added = _recorded(lambda b: at_zero.type1_templates(b, derivatives, 2, 0), zero)
        assert added and all(type1_residual(phi, 2, zero, parts) == 0 for _, _, parts in added)
        assert any(type1_residual(phi, 2, _C, parts) != 0 for _, _, parts in added)  # a ≠ 0: not a relation


def test_the_polynomial_family_is_a_terminating_taylor_expansion():
    from ..family_checks import type1_residual

    M = _C[0][0]
    pair = [(M, (sp.Rational(-3, 8), sp.Rational(5, 8))), (M, (sp.Rational(1, 2), sp.Rational(1, 4)))]
    keys = list(type1_term_set(2).index)
    added = _recorded(lambda b: polynomial.type1_templates(b, 2, keys, pair[0][1], pair[1][1], 0, 1), pair)
    quadratic = lambda z: z**2 + z  # noqa: E731
    assert added and all(type1_residual(quadratic, 2, pair, parts) == 0 for _, _, parts in added)
    assert any(type1_residual(lambda z: z**3, 2, pair, parts) != 0 for _, _, parts in added)


@pytest.mark.slow  # 10–26 s; `python3 -m pytest -m slow` runs it
def test_a_relations_reach_agrees_with_its_template_evaluated_by_hand():
    """reach.py refutes a relation for the template from its columns' values at two points (each column
    once per probe): every relation it calls shared by the template vanishes for c·F1(−s·F2(x1 − m1))
    with two functions other than the code's at another point, every one it calls specific does not —
    and the columns' values alone refute exactly the specific ones (the shared ones are all proved by
    expand before the values are read, so they are asked here directly)."""
    result = check("c*exp(-s*(x1 - m1)**2)", condition="deepseek-routed", dim=1)
    expert = parse_expert("c*exp(-s*(x1 - m1)**2)", 1)
    s3 = member_set(expert, "S3")
    columns = [m.key for m in s3.members]
    x1, c, s, m1 = sp.symbols("x1 c s m1", real=True)
    F1, F2, t = sp.Function("F1"), sp.Function("F2"), sp.Dummy("t")
    template = c * F1(-s * F2(x1 - m1))  # the expert's calls exp and **2 made arbitrary, by hand
    concrete = {F1: sp.Lambda(t, sp.cos(t) + t**2 / 7), F2: sp.Lambda(t, sp.exp(-t / 5) + t**3 / 3)}
    symbols = {"c": c, "s": s, "m1": m1}
    seen = {REACH_TEMPLATE: 0, REACH_EXPERT: 0}
    for probe in result.probes:
        for relation in probe.relations:
            if relation.reach is None:
                continue
            value = 0
            for m in structure(relation.keys, [sp.Rational(v) for _, v in relation.exact]):
                member = sp.diff(template, *(symbols[n] for n in m.names))
                if m.kind == "prod":
                    member = sp.diff(template, symbols[m.names[0]]) * sp.diff(template, symbols[m.names[1]])
                elif m.kind == "x":
                    member = x1 * sp.diff(template, symbols[m.names[0]])
                values = dict(zip((c, s, m1), probe.components[m.atom].values))
                value += m.coefficient * member.subs(concrete).doit().subs(values)
            size = abs(complex(value.subs(x1, sp.Rational(5, 9)).evalf(30)))
            assert (size < 1e-20) == (relation.reach == REACH_TEMPLATE), (str(relation), size)
            coefficients = [
                (a * len(columns) + columns.index(k), sp.Rational(v))
                for (a, k), (_, v) in zip(relation.keys, relation.exact)
            ]
            algebra = ProbeAlgebra(expert, s3, probe)
            assert algebra.refuted(coefficients, 0) == (relation.reach == REACH_EXPERT), str(relation)
            seen[relation.reach] += 1
    assert seen[REACH_TEMPLATE] >= 10 and seen[REACH_EXPERT] >= 10
