"""The decision's steps on hand-made systems, where the right answer is known by inspection."""

import sympy as sp

from identcheck.model.decide import NON_TRIVIAL, TRIVIAL, _groebner_closed, decide_system
from identcheck.model.grading import Grading
from identcheck.model.system import CoefficientSystem, delta_symbols, weight_symbols


def hand_system(polynomials, labels, m, weights):
    """Σ_i p_i C(Δθ_i) = 0 for each C given in atom 1's moves d<label>_1."""
    deltas = tuple(delta_symbols(labels, i) for i in range(1, m + 1))
    p = weight_symbols(m)
    equations = []
    for c in polynomials:
        equations.append(sp.expand(sum(p[i] * c.xreplace(dict(zip(deltas[0], deltas[i]))) for i in range(m))))
    grading = Grading(weights, (), (True,) * len(labels))
    kept = tuple(range(len(polynomials)))
    return CoefficientSystem(m, 2, labels, grading, kept, tuple(polynomials), p, deltas, tuple(equations))


def test_an_indefinite_form_forces_nothing():
    """Σ p_i (Δa_i² − Δb_i²) = 0 is solved by Δa = Δb = 1, and Σ p_i Δa_i Δb_i = 0 by Δa = 1, Δb = 0:
    neither form is a square."""
    a, b = hand_system([], ("a", "b"), 1, (1, 1)).deltas[0]
    for form in (a**2 - b**2, a * b):
        decision = decide_system(hand_system([form], ("a", "b"), 2, (1, 1)))
        assert decision.status == NON_TRIVIAL and decision.proved and decision.forced == (), form


def test_a_definite_form_forces_everything():
    a, b = hand_system([], ("a", "b"), 1, (1, 1)).deltas[0]
    decision = decide_system(hand_system([a**2 + a * b + b**2], ("a", "b"), 3, (1, 1)))
    assert (decision.status, decision.method, decision.forced) == (TRIVIAL, "sum of squares", ("a", "b"))


def test_a_negative_definite_form_forces_everything_too():
    """−Σ p_i (Δa_i² + Δa_iΔb_i + Δb_i²) = 0 has only the trivial solution as its negative has."""
    a, b = hand_system([], ("a", "b"), 1, (1, 1)).deltas[0]
    decision = decide_system(hand_system([-(a**2) - a * b - b**2], ("a", "b"), 3, (1, 1)))
    assert (decision.status, decision.method, decision.forced) == (TRIVIAL, "sum of squares", ("a", "b"))


def test_semidefinite_forms_of_both_signs_force_the_intersection_of_their_kernels():
    """(Δa − Δb)² forces Δa = Δb, −Δb² − Δc² forces Δb = Δc = 0: together every move is forced; alone,
    the first leaves Δa = Δb free (kernel (1, 1, 0)) and forces nothing."""
    a, b, c = hand_system([], ("a", "b", "c"), 1, (1, 1, 1)).deltas[0]
    both = decide_system(hand_system([(a - b) ** 2, -(b**2) - c**2], ("a", "b", "c"), 2, (1, 1, 1)))
    assert (both.status, both.method, both.forced) == (TRIVIAL, "sum of squares", ("a", "b", "c"))
    alone = decide_system(hand_system([-((a - b) ** 2)], ("a", "b", "c"), 2, (1, 1, 1)))
    assert alone.status == NON_TRIVIAL and alone.forced == ()


def test_an_eliminant_with_a_positive_root_closes_nothing():
    p2 = sp.Symbol("p_2", positive=True)
    assert _groebner_closed([p2 - 2], [p2], {p2}, 5.0)[0] is None
    assert _groebner_closed([p2 + 2], [p2], {p2}, 5.0)[0] is True
    assert _groebner_closed([p2 - 2, p2 - 3], [p2], {p2}, 5.0)[0] is True  # {1}: no complex solution


def test_an_irrational_solution_is_exact_algebraic():
    """Σ p_i Δa_i = 0, Σ p_i (Δa_i⁴ − 4Δa_i²) = 0 with Δa_1 = 1: Δa_2 = (−1 − √13)/2, p_2 = (−1 + √13)/6
    (by hand): no rational solution, the decision finds the root and verifies it exactly."""
    (a,) = hand_system([], ("a",), 1, (1,)).deltas[0]
    decision = decide_system(hand_system([a, a**4 - 4 * a**2], ("a",), 2, (1,)))
    assert (decision.status, decision.proved, decision.method) == (NON_TRIVIAL, True, "exact algebraic solution")
    p2, move = decision.solution["p_2"], decision.solution["da_2"]
    assert sp.simplify(p2 - (-1 + sp.sqrt(13)) / 6) == 0
    assert sp.simplify(move - (-1 - sp.sqrt(13)) / 2) == 0


def test_an_algebraic_point_with_a_negative_weight_is_refused():
    """p_2·d + 1 = 0, d² = 2: d = −√2 gives p_2 = 1/√2 > 0, d = √2 gives p_2 < 0 (refused)."""
    from identcheck.model.algebraic import algebraic_solution

    p2, d = sp.Symbol("p_2", positive=True), sp.Symbol("da_2", real=True)
    equations = [p2 * d + 1, d**2 - 2]
    assert algebraic_solution(equations, {}, {p2: -0.7, d: 1.4}, {p2}, 5.0) is None
    found = algebraic_solution(equations, {}, {p2: 0.7, d: -1.4}, {p2}, 5.0).named()
    assert sp.simplify(found["p_2"] - 1 / sp.sqrt(2)) == 0 and sp.simplify(found["da_2"] + sp.sqrt(2)) == 0


def test_the_exact_check_modulo_the_minimal_polynomial():
    from identcheck.model.algebraic import vanishes

    t, u = sp.symbols("t u")
    f = sp.Poly(t**2 - 2, t)
    assert vanishes([u**2 - 2 * t**2 + 2], {u: t}, f, t)  # u = t: t² − 2t² + 2 = −(t² − 2) ≡ 0
    assert not vanishes([u - 1], {u: t}, f, t)


def test_a_float_coefficient_is_never_a_proof():
    (a,) = hand_system([], ("a",), 1, (1,)).deltas[0]
    decision = decide_system(hand_system([sp.Float(0.5) * a, a**2], ("a",), 2, (1,)))
    assert not decision.proved and "floating point" in decision.tried[0]
