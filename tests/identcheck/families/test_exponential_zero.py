"""The exact zero test in flint: rational functions of exponentials of polynomials, other parts opaque.

Its answers are checked against sympy's own reduction (``expand`` with the exponentials split, then
``cancel``) on random sums of exponentials, and by hand on identities whose proof needs each of its
readings: exp of a sum, a fractional exponent (L > 1), e = exp(1), a quotient, an opaque placeholder.
"""

import hypothesis.strategies as st
import sympy as sp
from hypothesis import given, settings

from identcheck.families.exponential_zero import MAX_EXPONENT, zero_in_flint
from identcheck.terms.type1 import phi_placeholder

X = sp.symbols("x1:3", real=True)
x1, x2 = X
PHI0, PHI1 = phi_placeholder(0), phi_placeholder(1)


def cancels_in_flint(expr, x) -> bool:
    """Proved 0 in flint (``zero_in_flint`` True); False for both other answers."""
    return zero_in_flint(expr, x) is True


def test_the_softmax_outputs_sum_to_one():
    denominator = sp.exp(x1) + sp.exp(x2 / 2) + 1
    expr = sp.exp(x1) / denominator + sp.exp(x2 / 2) / denominator + 1 / denominator - 1
    assert cancels_in_flint(expr, X)
    assert not cancels_in_flint(expr + sp.exp(x1) / denominator**2, X)


def test_an_exponential_of_a_sum_is_the_product_of_the_exponentials():
    expr = sp.exp(x1 + 3 * x2 / 4) - sp.exp(x1) * sp.exp(x2 / 4) ** 3
    assert sp.expand(expr, power_exp=False) != 0  # sympy's term-wise reading leaves it
    assert cancels_in_flint(expr, X)


def test_e_is_the_exponential_of_one():
    assert cancels_in_flint(sp.E * sp.exp(x1 - x2) - sp.exp(1 + x1 - x2), X)
    assert cancels_in_flint(sp.exp(sp.Rational(1, 3)) ** 3 - sp.E, X)
    assert not cancels_in_flint(sp.E - sp.exp(x1), X)


def test_exponentials_of_different_monomials_are_independent():
    assert not cancels_in_flint(sp.exp(x1**2) - sp.exp(x1) ** 2, X)
    assert not cancels_in_flint(sp.exp(x1) - 1 - x1, X)  # equal at x1 = 0 only


def test_opaque_parts_cancel_only_as_themselves():
    w = x1 / 2 - 3 * x2 / 8
    expr = PHI0(w) * (1 + sp.exp(x1)) / (sp.exp(x1) + 1) - PHI0(w)
    assert sp.simplify(expr) == 0
    assert cancels_in_flint(PHI0(w) * (1 + sp.exp(x1)) / (1 + sp.exp(x1)) ** 2 * (sp.exp(x1) + 1) - PHI0(w), X)
    assert cancels_in_flint(sp.log(1 + sp.exp(w)) * sp.exp(w) - sp.exp(w) * sp.log(1 + sp.exp(w)), X)
    # φ at two different arguments: two indeterminates, whatever φ is
    assert not cancels_in_flint(PHI0(w) - PHI0(2 * w), X)
    # an identity of the opaque parts themselves is not seen: "not shown", not "non-zero"
    assert not cancels_in_flint(sp.sinh(x1) - (sp.exp(x1) - sp.exp(-x1)) / 2, X)
    assert not cancels_in_flint(sp.log(2 * sp.exp(x1)) - sp.log(2) - x1, X)
    assert not cancels_in_flint(sp.exp(sp.exp(x1) + x1) - sp.exp(x1) * sp.exp(sp.exp(x1)), X)


def test_numbers_other_than_rationals_are_not_read():
    assert not cancels_in_flint(sp.Add(sp.Float(0.5) * x1, -x1 / 2, evaluate=False), X)
    assert not cancels_in_flint(sp.nan * x1, X)
    assert not cancels_in_flint(sp.zoo + x1, X)


def test_a_parameter_symbol_is_opaque_and_an_exponential_of_it_too():
    b = sp.Symbol("b")
    assert cancels_in_flint(b * sp.exp(b * x1) / b - sp.exp(b * x1), X)
    assert not cancels_in_flint(sp.exp(b * x1) * sp.exp(x1) - sp.exp((b + 1) * x1), X)


_EXPONENT = st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.sampled_from([1, 2, 4]))


@settings(max_examples=40, deadline=None)
@given(
    terms=st.lists(st.tuples(st.integers(-4, 4), _EXPONENT), min_size=1, max_size=4),
    other=st.lists(st.tuples(st.integers(-4, 4), _EXPONENT), min_size=1, max_size=3),
)
def test_agrees_with_sympy_on_sums_of_exponentials(terms, other):
    """f·g − (f·g expanded), and f/g·g − f, are 0; f − g is 0 exactly when sympy's split-and-cancel says so."""

    def total(spec):
        return sp.Add(*(c * sp.exp((a * x1 + b * x2) / q) for c, (a, b, q) in spec))

    f, g = total(terms), total(other)
    assert cancels_in_flint(f * g - sp.expand(f * g), X)
    if g != 0:
        assert cancels_in_flint(f / g * g - f, X)
    by_sympy = sp.cancel(sp.expand(f - g, power_exp=True)) == 0
    assert cancels_in_flint(f - g, X) == by_sympy


def test_not_zero_is_said_only_where_sympy_reads_it_the_same_way():
    w = x1 / 2 - 3 * x2 / 8
    relation = x1 * sp.exp(-x1**2 / 8) * PHI1(w) - sp.exp(-x1**2 / 8) * PHI0(w)  # z·φ' = φ is not a formal identity
    assert zero_in_flint(relation, X) is False
    assert zero_in_flint(relation - relation, X) is True
    # parts sympy reads otherwise: the verdict "not 0" is not given
    assert zero_in_flint(relation + sp.sqrt(2), X) is None  # an algebraic number
    assert zero_in_flint(relation + sp.E, X) is None  # e, which sympy keeps apart from the exponentials
    assert zero_in_flint(relation * sp.exp(x1 + 1), X) is None  # an exponential with a constant term
    assert zero_in_flint(relation + PHI0(2 * (x1 + x2) * (x1 - x2)), X) is None  # an argument not written out
    assert zero_in_flint(relation + PHI0(sp.Symbol("b") * x1), X) is None  # an argument with a symbol
    assert zero_in_flint(relation + sp.sinh(x1), X) is None  # sympy rewrites it in exponentials
    assert cancels_in_flint(relation, X) is False


@settings(max_examples=40, deadline=None)
@given(
    terms=st.lists(
        st.tuples(st.integers(-3, 3), st.integers(0, 2), st.sampled_from([0, 1]), _EXPONENT), min_size=1, max_size=4
    )
)
def test_where_it_says_not_zero_sympy_cannot_show_zero(terms):
    """Sums of c·x1^i·φ^(m)(x1/2 − x2/4)·exp(linear form): "not 0" (False) agrees with sympy's expand and cancel."""
    w = x1 / 2 - x2 / 4
    expr = sp.Add(
        *(c * x1**i * (PHI1 if m else PHI0)(w) * sp.exp((a * x1 + b * x2) / q) for c, i, m, (a, b, q) in terms)
    )
    by_sympy = sp.cancel(sp.together(sp.expand(expr, power_exp=True))) == 0
    assert zero_in_flint(expr, X) is by_sympy


def test_exponents_past_the_bound_are_left_to_sympy():
    """exp(x1/p) beside exp(x1/3): L = 3p and exp(x1/3) = T^p. Past MAX_EXPONENT the expression is not
    read (at p = 10000019 flint would spend about a minute in C code a budget cannot stop); at it, it is."""
    for p, read in ((10000019, None), (MAX_EXPONENT + 1, None), (MAX_EXPONENT, True)):
        expr = (1 / (1 + sp.exp(x1 / p)) - sp.exp(-x1 / p) / (sp.exp(-x1 / p) + 1)) * sp.exp(x1 / 3)
        assert zero_in_flint(expr, X) is read
    assert zero_in_flint((1 + x1) ** (MAX_EXPONENT + 1) - (1 + x1) ** (MAX_EXPONENT + 1), X) is True  # sympy: 0
    assert zero_in_flint((1 + x1) ** (MAX_EXPONENT + 1) * (1 - x1) - x2, X) is None


def test_what_is_not_a_function_of_x_is_not_read():
    y, z = sp.symbols("y z")
    identity = x1**2 + 2 * x1 + 1 - (x1 + 1) ** 2  # a zero sympy keeps unexpanded
    assert zero_in_flint(sp.zoo * identity, X) is None  # nan, not 0
    a, b = sp.symbols("a b", commutative=False)
    assert zero_in_flint(a * b - b * a, X) is None
    assert zero_in_flint(sp.exp(y) - sp.exp(z), ()) is None  # no x to read exp's arguments in
    assert not cancels_in_flint(sp.exp(y * x1) - sp.exp(z * x1), X)
