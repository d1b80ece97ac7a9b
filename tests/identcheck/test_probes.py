"""The probe families: deterministic, structured as named, exact, a ≠ 0 unless asked."""

import pytest
import sympy as sp

from identcheck import default_probes


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_structure_of_the_named_families(dim):
    probes = {p.name: p for p in default_probes(dim, seed=3)}
    pair = probes["shared M, a2 = -a1"].components
    assert pair[0].M == pair[1].M and pair[1].a == tuple(-v for v in pair[0].a)
    scaled = next(p for name, p in probes.items() if name.startswith("shared M, a2 = ") and "-a1" not in name)
    c = sp.Rational(scaled.name.split("= ")[1].split("·")[0])
    assert c not in (0, 1, -1)
    assert scaled.components[1].a == tuple(c * v for v in scaled.components[0].a)
    assert all(v == 0 for row in probes["M = 0"].components[0].M for v in row)
    gate = probes["gate M_N = 0 beside random M"].components
    assert all(v == 0 for row in gate[0].M for v in row) and any(v != 0 for row in gate[1].M for v in row)
    assert len(probes["random triple"].components) == 3


def test_components_are_pairwise_distinct_symmetric_and_a_nonzero():
    for probe in default_probes(2, seed=11):
        comps = probe.components
        assert len(set(comps)) == len(comps)
        for c in comps:
            assert any(v != 0 for v in c.a)
            assert all(c.M[i][j] == c.M[j][i] for i in range(2) for j in range(2))
            assert all(isinstance(v, sp.Rational) and v.q & (v.q - 1) == 0 for v in c.a)  # dyadic


def test_deterministic_in_the_seed_and_varies_with_it():
    assert default_probes(2, seed=5) == default_probes(2, seed=5)
    assert default_probes(2, seed=5) != default_probes(2, seed=6)


def test_a_zero_only_on_request_and_never_counted():
    assert all(p.name != "a = 0" for p in default_probes(2))
    zero = [p for p in default_probes(2, include_zero=True) if p.name == "a = 0"]
    assert len(zero) == 1 and not zero[0].counts
    assert all(v == 0 for v in zero[0].components[0].a)
