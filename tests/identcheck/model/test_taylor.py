"""The Taylor terms: term order, the ratio recurrence against plain differentiation, the expansion."""

import math

import sympy as sp

from identcheck.model.examples import mha_linear_expert, softmax_gaussian_moe
from identcheck.model.taylor import Derivatives, expansion_monomial, multi_indices, term_key


def test_multi_indices_count_and_order():
    for q, r in [(1, 5), (2, 4), (4, 3)]:
        kappas = multi_indices(q, r)
        assert len(kappas) == math.comb(q + r, r)
        assert [sum(k) for k in kappas] == sorted(sum(k) for k in kappas)


def test_term_order_is_a_monomial_order():
    """κ < κ' ⇒ κ + e_j < κ' + e_j: what lets a differentiated relation use earlier terms only."""
    kappas = multi_indices(3, 3)
    for a in kappas:
        for b in kappas:
            if term_key(a) < term_key(b):
                for j in range(3):
                    e = tuple(int(i == j) for i in range(3))
                    assert term_key(tuple(x + y for x, y in zip(a, e))) < term_key(tuple(x + y for x, y in zip(b, e)))


def test_ratios_equal_plain_derivatives():
    """G_κ = ∂^κF / F from the log-derivative recurrence equals sympy's plain ∂^κF divided by F."""
    for atom in (softmax_gaussian_moe("linear"), softmax_gaussian_moe("tanh"), mha_linear_expert()):
        d = Derivatives(atom)
        for kappa in multi_indices(len(atom.params), 3, lowest=1)[::3]:
            plain = atom.expr
            for p, k in zip(atom.params, kappa):
                plain = sp.diff(plain, p, k) if k else plain
            point = {s: sp.Rational(1 + i, 7) for i, s in enumerate(atom.variables + atom.params)}
            left = (plain / atom.expr).xreplace(point).evalf(30)
            right = d.ratio(kappa).xreplace(point).evalf(30)
            assert abs(left - right) <= 1e-20 * (1 + abs(left)), (atom.name, kappa)


def test_expansion_monomial():
    a, b = sp.symbols("a b")
    assert expansion_monomial((a, b), (2, 1)) == a**2 * b / 2
    assert expansion_monomial((a, b), (0, 0)) == 1


def test_a_quotient_of_exponentials_is_differentiated_directly_and_agrees_with_the_ratios():
    """F = a·x·e^{Mx²}/(e^{Mx²} + 1): L_M divides by e^{Mx²} + 1, so the columns are direct; each equals
    F(θ*)·G_κ(θ*) of the ratio recurrence (sympy, exactly), and ∂²F/∂a² is 0 as differentiated."""
    from identcheck.model.atom import atom_function, gaussian_density

    x, m, a, y, mu = sp.symbols("x M a y mu", real=True)
    gate = sp.exp(m * x**2) / (sp.exp(m * x**2) + 1)
    d = Derivatives(atom_function(a * x * gate, [x], [m, a], {"M": sp.Rational(1, 2), "a": sp.Rational(3, 4)}))
    assert d.direct
    for kappa in multi_indices(2, 2, lowest=1):
        assert sp.simplify(d.column(kappa) - d.value_at_truth * d.ratio_at_truth(kappa)) == 0, kappa
    assert d.derivative((0, 2)) == 0 and d.difference((0, 2), (), at_truth=False) == 0
    nu = sp.Symbol("nu", positive=True)
    gaussian = atom_function(gaussian_density(y, mu, nu), [y], [mu, nu], {"mu": 0, "nu": 1})
    assert not Derivatives(gaussian).direct  # its ratios are polynomials: the recurrence stays


def test_a_column_that_outlasts_the_deadline_is_stopped():
    """The ratio recurrence on MHA's held atom costs about half a second for an order-2 column and
    minutes for an order-3 one (221 s measured); with half a second left the order-3 column is given
    up (OutOfTime) instead of finishing past the deadline. (An order-2 column finishes near the
    deadline: no test of the deadline on this machine or a faster one.)"""
    import time

    import numpy as np

    from identcheck.declaration import read_example
    from identcheck.model.declared import declared_atoms
    from identcheck.model.taylor import OutOfTime
    from identcheck.model.tied import held_atom

    nested = declared_atoms(read_example("mha"), "channels")[0]
    atom = held_atom(nested, tuple(p for p in nested.params if p.name.startswith("M_")))  # F linear in a
    d = Derivatives(atom, deadline=time.monotonic() + 0.5)
    d.direct = False  # the slow path, on purpose
    start = time.monotonic()
    try:
        d.evaluate([(3,) + (0,) * (len(atom.params) - 1)], np.zeros((3, len(atom.variables))))
    except OutOfTime:
        pass
    else:
        raise AssertionError("the column finished: no deadline was reached")
    assert time.monotonic() - start < 4.0
