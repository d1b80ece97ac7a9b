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
