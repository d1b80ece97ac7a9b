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


# --- the paper's assumptions (A.1)–(A.5): tags computed from the parameters ---------------------

from identcheck.terms.probes import ASSUMPTIONS, Component, HeadConfig, Probe, head_probes, type1_head  # noqa: E402

R = sp.Rational
ZERO = ((0, 0), (0, 0))


def _head(M, a):
    return Probe("hand-made", (HeadConfig(tuple(tuple(tuple(sp.Integer(v) for v in row) for row in m) for m in M), a),))


def test_type1_probes_are_all_admissible():
    # a type-1 probe is a family of experts; every one is completed to a valid head (docs/method.md)
    for probe in default_probes(2, seed=0, include_zero=True):
        assert probe.assumptions == ASSUMPTIONS and probe.admissible, probe.name


def test_uniform_gating_head_violates_a4_and_only_it():
    probes = {p.name: p for p in head_probes(2, 2, 2, seed=0)}
    uniform = probes["all M = 0 (uniform gating)"]
    assert uniform.assumptions == ("A.1", "A.2", "A.3", "A.5")
    assert not uniform.admissible and "(A.4)" in uniform.violation_note
    assert all(p.admissible for name, p in probes.items() if name != "all M = 0 (uniform gating)")


@pytest.mark.parametrize(
    "M, a, violated",
    [
        # hand-made heads, each breaking one assumption
        (
            [((1, 0), (0, 0)), ((0, 1), (0, 0))],
            (((R(1), R(0)),), ((R(0), R(1)),)),
            "A.3",
        ),  # a gating matrix not symmetric
        ([((1, 0), (0, 0)), ((1, 0), (0, 0))], (((R(1), R(0)),), ((R(0), R(1)),)), "A.3"),  # M_N ≠ 0
        ([ZERO, ZERO, ZERO], (((R(1), R(0)),), ((R(0), R(1)),), ((R(1), R(1)),)), "A.4"),  # every M = 0
        ([((1, 0), (0, 0)), ZERO], (((R(1), R(2)),), ((R(1), R(2)),)), "A.5"),  # two equal experts
    ],
)
def test_each_assumption_is_checked_on_a_head(M, a, violated):
    probe = _head(M, a)
    assert [tag for tag, _ in probe.violations] == [violated]
    assert violated not in probe.assumptions and not probe.admissible


def test_equal_experts_in_a_type1_family_violate_a5():
    M = ((R(1), R(0)), (R(0), R(0)))
    probe = Probe("twice", (Component(M, (R(1), R(1))), Component(ZERO, (R(1), R(1)))))
    assert [tag for tag, _ in probe.violations] == ["A.5"]


def test_type1_head_reading():
    probes = {p.name: p for p in default_probes(2, seed=0)}
    shared = type1_head(probes["shared M, random a"].components, 2)
    comps = probes["shared M, random a"].components
    assert shared.M[0] == comps[0].M and len(shared.M) == 2  # one free gate + the fixed gate
    assert shared.a[0] == (comps[0].a, comps[1].a)  # two channels of that gate
    assert all(v == 0 for row in shared.M[1] for v in row) and len(shared.a[1]) == 2
    assert len({*shared.a[0], *shared.a[1]}) == 4  # fresh fixed-gate experts are distinct (A.5)
    beside = type1_head(probes["gate M_N = 0 beside random M"].components, 2)
    gate = probes["gate M_N = 0 beside random M"].components
    assert beside.M == (gate[1].M, gate[0].M) and beside.a == ((gate[1].a,), (gate[0].a,))  # M = 0 is the fixed gate
    assert not Probe("x", (type1_head(probes["M = 0"].components, 2),)).admissible  # no free gate: (A.4)


# --- a component type carries its assumptions and its JSON -----------------------------------


def test_a_probe_asks_its_component_type_for_the_assumptions():
    """No type branch: any component type with ``assumptions_of`` gives a probe its tags."""

    class Pair(tuple):
        @classmethod
        def assumptions_of(cls, family):
            return ("A.1",), (("A.5", f"{len(family)} pairs"),)

    probe = Probe("toy", (Pair((1, 2)), Pair((3, 4))))
    assert probe.assumptions == ("A.1",) and probe.violations == (("A.5", "2 pairs"),) and not probe.admissible
    with pytest.raises(ValueError, match="one type per probe"):
        Probe("mixed", (Component(ZERO, (R(1), R(0))), Pair((1, 2))))


@pytest.mark.parametrize(
    "cls, data, match",
    [
        (Component, {"M": [["0", "0"], ["0", "0"]], "a": ["1/2", 0.5]}, r"^a: 0\.5 is not an exact rational"),
        (Component, {"M": [["0", "0"], ["0", "0"]], "a": ["1/2", "x"]}, r"^a: 'x' is not"),
        (Component, {"M": [["0", "0"], ["0", "0"]], "a": ["1/2", "1/0"]}, r"^a: '1/0' is not"),
        (Component, {"M": [["0", "0"], ["0", "0"]], "a": ["1/2", "2**3"]}, r"^a: '2\*\*3' is not"),
        (Component, {"M": [["0", "0"]], "a": ["1", "1"]}, r"^M: not a 2x2 matrix"),
        (Component, {"a": ["1", "1"]}, r"no field 'M'"),
        (HeadConfig, {"M": [[["0"]], [["0"]]], "a": [[["1"]]]}, r"^a: 1 gate\(s\) of experts for 2 gating matrices"),
        (HeadConfig, {"M": [[["0"]]], "a": [[["1"], ["1", "2"]]]}, r"^a: expert vectors of unequal lengths"),
        (HeadConfig, {"M": [["0"]], "a": [[["1"]]]}, r"^M: '0' is not a list"),
    ],
)
def test_a_malformed_component_is_a_one_line_error_naming_its_field(cls, data, match):
    with pytest.raises(ValueError, match=match) as info:
        cls.from_dict(data)
    assert "\n" not in str(info.value)


def test_components_read_back_exactly():
    head = head_probes(2, 2, 2, seed=4)[0].components[0]
    assert HeadConfig.from_dict(head.to_dict()) == head
    # by hand: the text "3/8" is the rational 3/8, "0.125" exactly 1/8 (read as a decimal, not a float)
    back = Component.from_dict({"M": [["3/8", "0"], ["0", "-1"]], "a": ["0.125", "-5/4"]})
    assert back == Component(((R(3, 8), R(0)), (R(0), R(-1))), (R(1, 8), R(-5, 4)))
    assert all(isinstance(v, sp.Rational) for v in back.a)
