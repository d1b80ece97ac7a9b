"""Compiled terms: numpy and arb agree with sympy; the PDE (5) holds on the compiled functions."""

import flint
import mpmath
import numpy as np
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck import parse_activation, type1_terms
from identcheck.terms.compile import CompiledTerms, arb_closure, arb_precision, compile_terms

from ..conftest import components, dyadic

floats = st.floats(-1, 1, allow_nan=False, allow_infinity=False)


def _theta(ts, comp):
    return list(ts.numeric_params(*comp).values())


@settings(max_examples=20)
@given(comp=components(), x=st.tuples(floats, floats))
def test_pde_5_on_the_compiled_numpy_functions(term_set_2d, comp, x):
    ts = term_set_2d
    compiled = compile_terms(ts)
    act = parse_activation("z")
    row = compiled.float64(np.array([x]), [_theta(ts, comp)], act)[0]
    col = {label: i for i, label in enumerate(ts.labels)}
    a = [float(v) for v in comp[1]]
    lhs = a[0] * row[col["∂ū/∂a1"]] + a[1] * row[col["∂ū/∂a2"]] - row[col["ū"]]
    assert abs(lhs) <= 1e-13 * max(1.0, np.abs(row).max())


@settings(max_examples=10)
@given(
    comp=components(),
    x=st.tuples(dyadic, dyadic),
    phi=st.sampled_from(["sigmoid(z + 1)", "gelu(z)", "tanh(z) + z/10", "softplus(z)"]),
)
def test_numpy_and_arb_agree_with_sympy(term_set_2d, comp, x, phi):
    ts = term_set_2d
    compiled = compile_terms(ts)
    act = parse_activation(phi)
    theta = _theta(ts, comp)
    values = ts.numeric_params(*comp)
    values.update(dict(zip(ts.x, x)))
    exact = [sp.N(expr.xreplace(values), 50) for _, expr in type1_terms(phi, dim=2)]
    points = np.array([[float(v) for v in x]])
    row64 = compiled.float64(points, [theta], act)[0]
    row_arb = compiled.arb(points, [theta], act, 40).tolist()[0]
    with arb_precision(60):
        for value, f64, ball in zip(exact, row64, row_arb):
            assert abs(f64 - float(value)) <= 1e-13 * max(1.0, abs(float(value)))
            assert abs(sp.Float(ball.mid().str(50, radius=False), 50) - value) <= sp.Float(10) ** -35 * max(
                1, abs(value)
            )
            assert ball.rad() < 1e-35


def test_arb_closure_handles_constants_and_powers():
    z = sp.Symbol("z", real=True)
    f = arb_closure([sp.sqrt(2) * z**3 + sp.pi / 3 - sp.exp(-z) * sp.Rational(1, 7)], [z])
    with arb_precision(50):
        (value,) = f([[flint.arb(flint.fmpq(1, 2))]])[0]
        mpmath.mp.dps = 60
        expected = mpmath.sqrt(2) * mpmath.mpf(1) / 8 + mpmath.pi / 3 - mpmath.exp(-0.5) / 7
        assert abs(float(value.mid()) - float(expected)) < 1e-15
        assert value.rad() < 1e-45


def test_phi_free_part_is_reused_across_activations_with_identical_results(term_set_2d):
    """A second φ on the same points and parameters reuses the φ-free subexpressions (memo): every
    entry equals, ball for ball, the one a fresh compilation computes from scratch."""
    pts = np.random.default_rng(3).uniform(-1, 1, size=(6, 2))
    theta = list(
        term_set_2d.numeric_params(((1, sp.Rational(-1, 2)), (sp.Rational(-1, 2), 0)), (1, sp.Rational(3, 4))).values()
    )
    shared = CompiledTerms([t.expr for t in term_set_2d.terms], term_set_2d.x, term_set_2d.params)
    shared.arb(pts, [theta], parse_activation("sigmoid(z + 1)"), 60)
    memo = shared._fixed_memo(pts, theta, 60)
    assert memo and "arguments" in memo  # filled by the first φ
    reused = shared.arb(pts, [theta], parse_activation("tanh(z)"), 60)
    fresh = CompiledTerms([t.expr for t in term_set_2d.terms], term_set_2d.x, term_set_2d.params).arb(
        pts, [theta], parse_activation("tanh(z)"), 60
    )
    pairs = list(zip(reused.entries(), fresh.entries()))
    assert len(pairs) == 6 * len(term_set_2d.terms)
    assert all(a.mid() == b.mid() and a.rad() == b.rad() for a, b in pairs)
    with arb_precision(60):  # and they are tanh's terms, not sigmoid's left over
        x0 = [flint.arb(float(v)) for v in pts[0]]
        z = x0[0] + flint.arb(0.75) * x0[1]
        q = x0[0] * x0[0] - x0[0] * x0[1]
        assert reused[0, 0].overlaps(q.exp() * z.tanh())


def test_a_sum_of_thousands_of_terms_compiles_and_is_exact():
    """Python's parser gives up near 3,000 operands on one line: long sums are folded in steps.
    Second method: the exact rational sum, which the ball must contain."""
    import flint
    import sympy as sp

    from identcheck.terms.compile import arb_closure, arb_precision

    xs = sp.symbols("x0:3000")
    closure = arb_closure([sp.Add(*[(i % 7 + 1) * x for i, x in enumerate(xs)])], xs)
    exact = sum(sp.Rational(i % 7 + 1, i + 1) for i in range(3000))
    with arb_precision(40):
        (row,) = closure([[flint.arb(1) / (i + 1) for i in range(3000)]])
        assert row[0].contains(flint.fmpq(int(exact.p), int(exact.q))) and row[0].rad() < 1e-30
