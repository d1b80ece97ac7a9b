"""Type-2 relations proved with φ abstract (the homogeneity family's apply_euler; families/type2.py's prover)."""

import numpy as np
import pytest
import sympy as sp

import identcheck.families.type2 as families
from identcheck import parse_activation
from identcheck.families import homogeneity, phi_properties
from identcheck.parse.activation import Z
from identcheck.terms.probes import head_probes
from identcheck.terms.type1 import _PhiDerivative, phi_placeholder, substitute_phi
from identcheck.terms.type2 import type2_term_set


def _head(name="random head"):
    ts = type2_term_set(2, 2, 2, False)
    config = next(p for p in head_probes(2, 2, 2, 0) if p.name == name).components[0]
    return ts, config, ts.numeric_params(config.M, config.a)


@pytest.mark.parametrize("phi", ["z", "z**3", "3*z**2"])
def test_the_euler_rewrite_is_an_identity(phi):
    """φ^(m)(f) rewritten by zφ' = kφ equals φ^(m)(f) once φ is substituted (random points,
    m = 0, 1, 2; computed by sympy's evalf, not by the rewrite)."""
    ts, _, values = _head()
    act = parse_activation(phi)
    k = phi_properties(tuple(act.derivatives)).euler
    assert k is not None
    outputs = [f.xreplace(values) for f in ts.channel_outputs]
    rng = np.random.default_rng(7)
    for m in range(3):
        original = phi_placeholder(m)(outputs[0])
        rewritten = homogeneity.apply_euler(original, k, outputs, {})
        assert not rewritten.atoms(_PhiDerivative)  # only the plain symbol for φ(f¹) is left
        concrete = rewritten.xreplace({homogeneity._value_symbol(0): act.derivatives[0].subs(Z, outputs[0])})
        for point in rng.uniform(-1, 1, size=(3, 2)):
            at = dict(zip(ts.x, point))
            left = float(substitute_phi(original, act.derivatives).xreplace(at).evalf(30))
            right = float(concrete.xreplace(at).evalf(30))
            assert abs(left - right) <= 1e-12 * (1 + abs(left)), (m, left, right)


def test_an_argument_that_is_not_a_channel_output_is_left_alone():
    ts, _, values = _head()
    outputs = [f.xreplace(values) for f in ts.channel_outputs]
    assert homogeneity.apply_euler(phi_placeholder(1)(ts.x[0] + 3), 1, outputs, {}) is None


def _euler_template(ts, config, k, scale=1):
    """k·φ(f¹) − Σ a_{i,1,l} ∂u_{i,1}/∂a_l·(…) on every column of the set, as the family builds it."""
    parts = [(("phi", 0), k)] + [
        (("u", 0, i, (("a", l),)), -scale * config.a[i][0][l]) for i in range(2) for l in range(2)
    ]
    coefficients = {}
    for key, coeff in parts:
        column, factor = ts.index[key]
        coefficients[column] = coefficients.get(column, 0) + coeff * factor
    return tuple(coefficients.items())


def test_the_euler_relation_is_proved_with_phi_abstract_and_a_wrong_one_is_not(monkeypatch):
    """z³ on a random head: with every concrete route made useless (φ "substitutes" to 1, which
    is never 0), the Euler relation is still proved — by the abstract route alone — and the same
    relation with a wrong coefficient is not."""
    ts, config, values = _head()
    act = parse_activation("z**3")
    columns = list(range(len(ts.terms)))
    right = _euler_template(ts, config, 3)
    wrong = _euler_template(ts, config, 3, scale=sp.Rational(1, 2))
    monkeypatch.setattr(families, "substitute_phi", lambda *args: sp.Integer(1))
    prove = families.prover(ts, act, values, columns, True)
    assert prove(right, False, "Euler/homogeneity")
    outcome = prove(wrong, False, "Euler/homogeneity")
    assert not outcome and not outcome.timed_out


def test_the_numeric_screen_only_says_clearly_nonzero():
    x = sp.symbols("x1 x2", real=True)
    assert families._clearly_nonzero([sp.exp(x[0]), -1, -x[1]], x)
    assert not families._clearly_nonzero([sp.sin(x[0] + x[1]) ** 2, sp.cos(x[0] + x[1]) ** 2, -1], x)
    assert not families._clearly_nonzero(
        [sp.exp(x[0]) * sp.exp(-x[0]), -1, 1e-14 * x[1]], x
    )  # below NONZERO: left to sympy
    # relative to the terms' size: an identity among huge terms is not "clearly nonzero", a small
    # discrepancy among small terms is
    big = sp.Integer(10) ** 20
    assert not families._clearly_nonzero([big * sp.sin(x[0]) ** 2, big * sp.cos(x[0]) ** 2, -big], x)
    assert families._clearly_nonzero([1e-15 * x[0], -1e-15 * x[1]], x)


def test_a_wrong_relation_is_refused_without_an_exact_attempt(monkeypatch):
    """sin's symmetry relation φ(f²) + φ(f¹) on a head where f² ≠ −f¹: not an identity, refused
    by the numeric screen before sympy's (slow, hopeless) exact routes; on the right head it is
    still proved."""
    calls = []
    real = families.is_exact_zero
    monkeypatch.setattr(families, "is_exact_zero", lambda *a, **k: calls.append(1) or real(*a, **k))
    act = parse_activation("sin(z)")
    for name, expected in (("random head", False), ("channel 2 = -channel 1", True)):
        ts, config, values = _head(name)
        labels = [t.label for t in ts.terms]
        relation = ((labels.index("φ(f2)"), sp.Integer(1)), (labels.index("φ(f1)"), sp.Integer(1)))
        calls.clear()
        outcome = families.prover(ts, act, values, list(range(len(labels))), True)(relation, False, "symmetry")
        assert bool(outcome) is expected and not outcome.timed_out
        assert calls == ([] if not expected else [1])  # wrong: no exact attempt; right: the abstract parity route


def test_without_the_parity_rewrite_phi_is_substituted_and_proves_it(monkeypatch):
    """sin's symmetry relation φ(f²) + φ(f¹) on the head f² = −f¹ with the parity route disabled: the
    last route substitutes sin and proves sin(−f¹) + sin(f¹) ≡ 0 (not the symmetry's family then);
    with φ left abstract it could not, and a wrong sign is refused."""
    monkeypatch.setattr(families, "apply_parity", lambda expr, *args: (expr, False))
    act = parse_activation("sin(z)")
    ts, config, values = _head("channel 2 = -channel 1")
    labels = [t.label for t in ts.terms]
    prove = families.prover(ts, act, values, list(range(len(labels))), True)
    first, second = labels.index("φ(f1)"), labels.index("φ(f2)")
    outcome = prove(((second, sp.Integer(1)), (first, sp.Integer(1))), False, "symmetry")
    assert outcome and outcome.family is None
    assert not prove(((second, sp.Integer(1)), (first, sp.Integer(-1))), False, "symmetry")
