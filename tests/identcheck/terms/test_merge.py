"""One merge rule for every term set: a fingerprint proposes, an exact ratio confirms."""

import sympy as sp

import identcheck.terms.merge as merge
from identcheck.terms.merge import merge_proportional
from identcheck.terms.type1 import type1_term_set
from identcheck.terms.type2 import type2_term_set

x, y = sp.symbols("x y", real=True)


def test_proportional_factors_of_one_group_merge_with_their_exact_ratio():
    labels = ["p", "q", "r", "s", "t", "u"]
    groups = ["g", "g", "g", "g", "h", "g"]
    factors = [
        x * y,
        x**2 + y,
        -sp.Rational(3, 2) * x * y,
        4 * x**2 + 4 * y,
        2 * x * y,
        sp.exp(x) * (sp.sin(y) ** 2 + sp.cos(y) ** 2) / sp.exp(x) * x * y,
    ]
    kept, merges, placement = merge_proportional(labels, groups, factors)
    assert kept == [0, 1, 4]  # t: proportional to p but in another group
    assert [(m.merged, m.into, m.factor) for m in merges] == [
        ("r", "p", sp.Rational(-3, 2)),
        ("s", "q", 4),
        ("u", "p", 1),
    ]
    assert placement == [(0, 1), (1, 1), (0, sp.Rational(-3, 2)), (1, 4), (2, 1), (0, 1)]
    assert str(merges[0]) == "r = -3/2·p"


def test_a_zero_factor_is_kept_and_never_merged():
    kept, merges, _ = merge_proportional(["a", "b", "c"], [0, 0, 0], [sp.Integer(0), x - x, x])
    assert kept == [0, 1, 2] and merges == []


def test_a_fingerprint_collision_is_not_a_merge(monkeypatch):
    """Even when every fingerprint agrees, only an exact numeric ratio merges."""
    monkeypatch.setattr(merge, "_fingerprint", lambda factor, samples: (1.0,))
    kept, merges, _ = merge_proportional(["a", "b", "c"], [0, 0, 0], [x, x + 1, 5 * x])
    assert kept == [0, 1] and [(m.merged, m.into, m.factor) for m in merges] == [("c", "a", 5)]


def test_the_type1_and_type2_term_sets_merge_what_their_definitions_say():
    """d = 2, by hand: ∂/∂M12 brings 2·x1x2, ∂/∂M11 x1², ∂/∂M22 x2², ∂/∂a_j x_j·φ', so
    ∂²ū/∂M12∂a1 = 2x1²x2·φ' = 2·∂²ū/∂M11∂a2, ∂²ū/∂M22∂a1 = x1x2²·φ' = ½·∂²ū/∂M12∂a2 (the earlier
    one is kept), ∂²ū/∂M12² = 4x1²x2²·φ = 4·∂²ū/∂M11∂M22; type-2's counts as docs/type2.md states."""
    t1 = type1_term_set(2)
    assert [(m.merged, m.into, m.factor) for m in t1.merges] == [
        ("∂²ū/∂M12²", "∂²ū/∂M11∂M22", 4),
        ("∂²ū/∂M12∂a1", "∂²ū/∂M11∂a2", 2),
        ("∂²ū/∂M22∂a1", "∂²ū/∂M12∂a2", sp.Rational(1, 2)),
    ]
    t2 = type2_term_set(2, 2, 2, False)
    assert (t2.n_derivatives, len(t2.merges), len(t2.terms)) == (126, 22, 104)
    assert "∂²u[1,1]/∂M_12∂a_1·φ'(f1)/E = 2·∂²u[1,1]/∂M_11∂a_2·φ'(f1)/E" in [str(m) for m in t2.merges]
