"""Raw relations read as rationals only where the float is far closer to p/q than any real number is."""

import math

import numpy as np
import sympy as sp

from identcheck import check
from identcheck.families.relations import _rationals


def test_a_rational_is_read_and_an_irrational_is_not():
    assert _rationals(np.array([1.0, 128 / 27, -1 / 3])) == ((0, 1), (1, sp.Rational(128, 27)), (2, sp.Rational(-1, 3)))
    # 9π² is within 1e-9 relative of 109523/1233 — as every real number is of some p/q with q ≤ 4096
    assert _rationals(np.array([1.0, 9 * math.pi**2])) is None
    assert _rationals(np.array([1.0, 100 * math.pi])) is None


def test_an_irrational_relation_is_printed_with_floats_and_a_rational_one_is_tagged_unproved():
    irrational = check("exp(3*pi*z) + z", dim=1)
    raw = [r for p in irrational.probes for r in p.relations if r.family is None]
    assert raw and all(r.exact is None for r in raw if any(abs(c) > 50 for _, c in r.terms))
    rational = check("(z + 1)/(z**2 + 2)")  # no family explains its relations; they are rational
    others = [r for p in rational.probes if p is not rational.witness_probe for r in p.relations]
    assert others and all(r.family is None and r.exact is not None for r in others)
    assert all(not r.proved and "rational reading, not proved" in r.tag for r in others)
    # the witness's own are proved by default (the check's budget allowing), no certificate needed
    assert all(r.proved and r.tag.endswith("proved exactly") for r in rational.witness_probe.relations)
