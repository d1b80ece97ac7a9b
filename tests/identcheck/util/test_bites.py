"""The order at which a failure bites (identcheck/util/bites.py), on relations derived by hand.

Each hand relation is first shown to hold with sympy for its φ (so its terms are the right ones), then
its order is read: sigmoid's sign pair ties first derivatives (order 1, exact-fitted cells), exp's
heat relation ties ∂ū/∂M11 to ∂²ū/∂a1² (order 2, over-fitted cells only).
"""

import json
from dataclasses import replace

import pytest
import sympy as sp

import identcheck
from identcheck.results import Relation
from identcheck.util.bites import Bites, Cells, bites_at, key_order, lowest, lowest_known, relation_order, span_order

X1, X2, M11, A1, A2 = sp.symbols("x1 x2 m11 a1 a2", real=True)


def _u(phi, m11, a1, a2):
    """ū(x; M, a) at d = 2 with M = diag(m11, 0): exp(m11·x1²)·φ(a1 x1 + a2 x2)."""
    return sp.exp(m11 * X1**2) * phi(a1 * X1 + a2 * X2)


def _relation(terms):
    """A Relation from ((label, key, exact coefficient), …)."""
    return Relation(
        terms=tuple((label, float(c)) for label, _, c in terms),
        exact=tuple((label, str(c)) for label, _, c in terms),
        family=None,
        hypothesis=None,
        proved=False,
        keys=tuple(key for _, key, _ in terms),
    )


def test_sigmoid_sign_pair_is_first_order():
    sigmoid = lambda z: 1 / (1 + sp.exp(-z))  # noqa: E731
    # σ(−z) = 1 − σ(z): at a2 = −a1 (shared M) ∂ū/∂a1 agrees on both atoms.
    b1, b2 = sp.symbols("b1 b2", real=True)
    one = sp.diff(_u(sigmoid, M11, A1, A2), A1)
    two = sp.diff(_u(sigmoid, M11, b1, b2), b1).subs({b1: -A1, b2: -A2})  # ∂ū/∂a1 at the atom −a
    assert sp.simplify((two - one).rewrite(sp.exp)) == 0
    relation = _relation([("∂ū/∂a1[2]", (1, (("a", 0),)), 1), ("∂ū/∂a1[1]", (0, (("a", 0),)), -1)])
    assert relation_order(relation) == 1
    assert bites_at(relation_order(relation)) == Bites(1, Cells.EXACT_FITTED)
    assert span_order([relation]) == 1


def test_exp_heat_relation_is_second_order():
    u = _u(sp.exp, M11, A1, A2)
    assert sp.simplify(sp.diff(u, M11) - sp.diff(u, A1, 2)) == 0  # ∂ū/∂M11 = ∂²ū/∂a1² for φ = exp
    relation = _relation([("∂ū/∂M11", (0, (("M", 0, 0),)), 1), ("∂²ū/∂a1²", (0, (("a", 0), ("a", 0))), -1)])
    assert relation_order(relation) == 2
    assert (
        bites_at(2) == Bites(2, Cells.OVER_FITTED) and "only in over-fitted cells" in Bites(2, Cells.OVER_FITTED).text
    )


def test_a_zero_coefficient_does_not_raise_the_order():
    relation = _relation(
        [("∂ū/∂a1", (0, (("a", 0),)), 1), ("∂²ū/∂a1²", (0, (("a", 0), ("a", 0))), 0), ("ū", (0, ()), 2)]
    )
    assert relation_order(relation) == 1


def test_the_span_can_hold_a_lower_order_than_every_relation():
    """R1 = A + B, R2 = C + B with A, C first-order and B second-order: both of order 2, R1 − R2 of order 1."""
    a, b, c = (0, (("a", 0),)), (0, (("a", 0), ("a", 1))), (0, (("a", 1),))
    r1 = _relation([("A", a, 1), ("B", b, sp.Rational(1, 2))])
    r2 = _relation([("C", c, -3), ("B", b, sp.Rational(1, 2))])
    assert relation_order(r1) == relation_order(r2) == 2
    assert span_order([r1, r2]) == 1
    floats = [Relation(r.terms, None, None, None, False, keys=r.keys) for r in (r1, r2)]  # the float path
    assert span_order(floats) == 1
    d = (0, (("M", 0, 0), ("a", 0)))
    r3 = _relation([("C", c, -3), ("B", b, 1), ("D", d, 1)])  # two second-order terms: none cancels both
    assert span_order([r1, r3]) == 2


@pytest.mark.parametrize(
    "low, high, order",
    [
        (("ū", (0, ())), ("∂ū/∂a1", (0, (("a", 0),))), 0),  # a tiny first-order part on ū
        (("∂ū/∂a1", (0, (("a", 0),))), ("∂²ū/∂a1²", (0, (("a", 0), ("a", 0)))), 1),  # a tiny second-order part
    ],
)
def test_a_tiny_float_part_is_judged_against_the_whole_coefficient_matrix(low, high, order):
    """The float relation 1·low + 5·10⁻⁹·high (the null vector's scale: largest coefficient 1). The whole
    coefficient matrix (1 × 2) has largest singular value √(1 + 25·10⁻¹⁸) ≈ 1, so the high part is below
    FLOAT_RANK (10⁻⁸) of it: float noise, and the order is low's. Judged against itself (a 1 × 1 block
    whose own largest singular value is 5·10⁻⁹) it would count as rank 1 and give high's order. Read
    exactly, 5·10⁻⁹ is a rational like any other and keeps high's order."""
    tiny = sp.Rational(5, 10**9)
    exact = _relation([(low[0], low[1], 1), (high[0], high[1], tiny)])
    floats = Relation(exact.terms, None, None, None, False, keys=exact.keys)
    assert [c for _, c in floats.terms] == [1.0, 5e-9]
    assert span_order([floats]) == order
    assert span_order([exact]) == order + 1
    assert bites_at(span_order([floats])) == Bites(order, Cells.EXACT_FITTED)


def test_key_orders_of_every_condition_shape():
    e0, e1 = ("e0",), ("e1", 0)
    assert key_order((0, ())) == 0 and key_order((2, (("M", 0, 1), ("a", 1)))) == 2
    assert key_order((0, ("d", (e0,)))) == 1 and key_order((1, ("dd", (e0, e1)))) == 2
    assert key_order((0, ("x", 1, (e0,)))) == 2  # x1·∂h/∂e0: the slope's and the expert's derivative
    assert key_order((0, ("prod", (e0, e1)))) == 2 and key_order((0, ("prod", 1, 2, (e0, e0, e1)))) == 3
    assert key_order(("1",)) == 1
    assert key_order(("phi", 0)) == 0 and key_order(("u", 1, 0, (("M", 0, 0), ("a", 1)))) == 2
    assert key_order(("uu", 0, (0, (("a", 0),)), (1, (("M", 0, 0),)))) == 2
    assert key_order(("v", 0, 0, (("M", 0, 0),))) == 1
    assert key_order("ū") is None and key_order(("what", 1, 2)) is None
    unknown = _relation([("?", ("what", 1, 2), 1)])
    assert relation_order(unknown) is None and span_order([unknown]) is None


def test_lowest_prefers_exact_fitted_then_the_lower_order():
    over, exact = Bites(2, Cells.OVER_FITTED), Bites(1, Cells.EXACT_FITTED)
    assert lowest([None, over, exact, Bites(None, Cells.OVER_FITTED)]) == exact
    assert lowest([Bites(None, Cells.OVER_FITTED), over]) == over and lowest([None]) is None
    assert over.to_dict() == {"order": 2, "cells": "over-fitted"}


def test_the_check_reports_the_order_in_json_text_and_markdown():
    sigmoid = identcheck.check("sigmoid(z)")
    assert sigmoid.bites == Bites(1, Cells.EXACT_FITTED) and sigmoid.witness == "shared M, a2 = -a1"
    exp = identcheck.check("exp(z)")
    assert exp.bites == Bites(2, Cells.OVER_FITTED)
    data = json.loads(json.dumps(exp.to_dict()))
    assert data["bites"] == {"order": 2, "cells": "over-fitted"}
    witness = next(p for p in data["probes"] if p["name"] == data["witness"])
    assert witness["bites"] == data["bites"] and all(r["bites"] == data["bites"] for r in witness["relations"])
    assert "order 2: bites only in over-fitted cells (|V| ≥ 2) (earliest on probe 'random single')" in exp.to_text()
    assert "Order 2: bites only in over-fitted cells" in exp._repr_markdown_()
    assert "order 1: bites in exact-fitted cells" in sigmoid.to_text()
    relation = Relation.from_dict(witness["relations"][0])  # read back: the keys carry the order
    assert relation_order(relation) == 2


def test_a_relation_of_unknown_order_makes_the_span_order_unknown():
    """Beside exp's second-order heat relation, a relation whose key tells no order might be first-order
    (or combine with the heat relation into one): the span's order is then not known, never 2 read off the
    known relation alone, which would claim "only in over-fitted cells" without having shown it."""
    heat = _relation([("∂ū/∂M11", (0, (("M", 0, 0),)), 1), ("∂²ū/∂a1²", (0, (("a", 0), ("a", 0))), -1)])
    unknown = _relation([("?", ("what", 1, 2), 1), ("∂ū/∂a1", (0, (("a", 0),)), 1)])
    assert span_order([heat]) == 2
    assert span_order([heat, unknown]) is None and span_order([unknown, heat]) is None
    assert bites_at(span_order([heat, unknown])) is None
    # beside a known first-order relation the unknown one cannot make it bite later: exact-fitted stands
    pair = _relation([("∂ū/∂a1[2]", (1, (("a", 0),)), 1), ("∂ū/∂a1[1]", (0, (("a", 0),)), -1)])
    assert span_order([pair, unknown]) == 1 and bites_at(span_order([unknown, pair])) == Bites(1, Cells.EXACT_FITTED)


def test_a_probe_of_unknown_order_keeps_the_check_from_claiming_over_fitted_cells():
    """exp(z)'s dependent probes all bite at order 2 (the heat relation). Give one of them only a
    relation whose order is not known: that probe might bite in exact-fitted cells, so the check's
    order is not known, never "only in over-fitted cells" read off the other probes. A probe of known
    first order decides "exact-fitted" whatever the unknown one holds."""
    result = identcheck.check("exp(z)", dim=1)
    dependent = [i for i, p in enumerate(result.probes) if p.counts_for_verdict and p.dependent]
    assert len(dependent) >= 2 and result.bites == Bites(2, Cells.OVER_FITTED)
    unknown = _relation([("?", ("what", 1, 2), 1)])
    probes = list(result.probes)
    probes[dependent[0]] = replace(probes[dependent[0]], relations=(unknown,))
    assert probes[dependent[0]].bites is None
    assert replace(result, probes=tuple(probes)).bites is None
    first = _relation([("∂ū/∂a1[2]", (1, (("a", 0),)), 1), ("∂ū/∂a1[1]", (0, (("a", 0),)), -1)])
    probes[dependent[1]] = replace(probes[dependent[1]], relations=(first,))
    assert replace(result, probes=tuple(probes)).bites == Bites(1, Cells.EXACT_FITTED)
    assert lowest_known([None, Bites(2, Cells.OVER_FITTED)]) is None
    assert lowest_known([Bites(2, Cells.OVER_FITTED)]) == Bites(2, Cells.OVER_FITTED)
