"""A probe's stratum: its free parameters, its constraints, its dimension, and that the probe lies in it."""

import pytest
import sympy as sp

from identcheck.terms.probes import Component, default_probes
from identcheck.terms.strata import Stratum

#: probe → (what the stratum is, its dimension at d as counted by hand: a matrix d(d+1)/2, a vector d)
EXPECTED = {
    "random single": ("(M, a)", lambda d: d * (d + 1) // 2 + d),
    "M = 0": ("a with M = 0", lambda d: d),
    "random pair": ("(M1, a1, M2, a2)", lambda d: d * (d + 1) + 2 * d),
    "gate M_N = 0 beside random M": ("(a1, M2, a2) with M1 = 0", lambda d: d * (d + 1) // 2 + 2 * d),
    "shared M, random a": ("(M, a1, a2) with shared M", lambda d: d * (d + 1) // 2 + 2 * d),
    "shared M = 0, random a": ("(a1, a2) with M1 = M2 = 0", lambda d: 2 * d),
    "shared M, a2 = -a1": ("(M, a1) with shared M, a2 = −a1", lambda d: d * (d + 1) // 2 + d),
    "random triple": ("(M1, a1, M2, a2, M3, a3)", lambda d: 3 * (d * (d + 1) // 2) + 3 * d),
}


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_every_default_probe_lies_in_its_declared_stratum(dim):
    probes = default_probes(dim, include_zero=True)
    for probe in probes:
        if probe.name == "a = 0":
            assert probe.stratum is None  # a fixed a = 0: no stratum is claimed
            continue
        assert probe.stratum.holds(probe.components), probe.name
        if probe.name in EXPECTED:
            text, dimension = EXPECTED[probe.name]
            assert (probe.stratum.describe(), probe.stratum.dimension(dim)) == (text, dimension(dim))
    scaled = next(p for p in probes if p.name.startswith("shared M, a2 = ") and p.name != "shared M, a2 = -a1")
    c = sp.Rational(scaled.name.split("= ")[1].split("·")[0])
    assert scaled.stratum.describe() == f"(M, a1) with shared M, a2 = {c}·a1".replace("-", "−")


def test_components_outside_the_stratum_are_refused():
    one = sp.Integer(1)
    M, N, zero = ((one, 0), (0, one)), ((one, 0), (0, 2 * one)), ((0, 0), (0, 0))
    a, b = (one, one / 2), (-one, 3 * one)
    opposite = Stratum((0, 0), ((0, one), (0, -one)))
    assert opposite.holds([Component(M, a), Component(M, (-one, -one / 2))])
    assert not opposite.holds([Component(M, a), Component(M, b)])  # a2 ≠ −a1
    assert not opposite.holds([Component(M, a), Component(N, (-one, -one / 2))])  # M not shared
    assert not Stratum((None,), ((0, one),)).holds([Component(M, a)])  # M ≠ 0
    assert Stratum((None,), ((0, one),)).holds([Component(zero, a)])
    assert not Stratum.free(2).holds([Component(M, a)])  # one component for two
    assert Stratum.free(2).describe() == "(M1, a1, M2, a2)" and Stratum.free(1).parameters == ("M", "a")
