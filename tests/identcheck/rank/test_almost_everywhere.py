"""The almost-everywhere claim of a proved probe (identcheck/rank/almost_everywhere.py, docs/certificates.md).

The lemma is checked at its consequence, by a second method: the proved minor's determinant,
evaluated in arb at other parameters of the stratum, is a ball away from 0 at random ones and a
ball around 0 on tanh's null set a2 = −a1 (almost every, not every)."""

from types import SimpleNamespace

import numpy as np
import pytest
import sympy as sp

from identcheck.check import make_condition
from identcheck.parse.analyticity import Singularities
from identcheck.rank.almost_everywhere import NOT_EVERY, Premise
from identcheck.terms.probes import Component, Probe
from identcheck.terms.strata import Stratum

from ..shared_checks import checked


def test_every_proved_probe_of_an_identifiable_phi_claims_its_whole_stratum():
    result = checked("sigmoid(z + 1)", "type1", 1, True)
    assert result.evidence == "proof"
    for probe in result.probes:
        claim = probe.almost_everywhere
        assert claim is not None and claim.claimed and claim.region == "stratum", probe.name
        assert claim.components == len(probe.components)
        assert claim.statement == f"independent for almost every {claim.stratum}"
        assert probe.to_dict()["almost_everywhere"] == claim.to_dict()
    shown = result.to_text()
    assert "K = 2: independent for almost every (M1, a1, M2, a2)    ['random pair']" in shown and NOT_EVERY in shown


def test_a_dependent_or_unproved_probe_claims_nothing():
    result = checked("tanh(z)", "type1", 2, True)
    by_name = {p.name: p for p in result.probes}
    assert by_name["shared M, a2 = -a1"].dependent and by_name["shared M, a2 = -a1"].almost_everywhere is None
    assert by_name["shared M, random a"].almost_everywhere.claimed
    plain = checked("tanh(z)", "type1", 2, False)  # without --certify: only probes whose rank decision is a proof
    for probe in plain.probes:
        assert (probe.almost_everywhere is not None) == (probe.rank_proof is not None), probe.name


def test_a_reduction_chosen_numerically_claims_nothing():
    """Type-2 keeps a basis chosen at the probe's own points: no premise, whatever was proved."""
    data = checked("sin(z)", "type2", 1, True).to_dict()
    assert all(p["almost_everywhere"] is None for p in data["probes"])
    assert any((p["certificate"] or {}).get("kind") == "interval" for p in data["probes"])


def _determinant(condition, components, points, digits=60):
    matrix = condition.full_matrix(Probe("moved", tuple(components)), points)
    return matrix.arb(digits).det()


def test_the_proved_minor_stays_nonsingular_off_a_null_set_and_not_on_it():
    result = checked("tanh(z)", "type1", 2, True)
    condition = make_condition("tanh(z)", "type1", 2)
    probe = next(p for p in result.probes if p.name == "shared M, random a")
    detail = probe.certificate.detail
    points = np.array([[float.fromhex(v) for v in row] for row in detail.points])
    M, a1 = probe.components[0].M, probe.components[0].a
    at_probe = _determinant(condition, probe.components, points)
    assert not at_probe.contains(0)
    rng = np.random.default_rng(7)
    for _ in range(3):  # other parameters of the stratum (M, a1, a2) with shared M
        N = rng.integers(-8, 9, size=(2, 2))
        N = tuple(tuple(sp.Rational(int(N[min(i, j), max(i, j)]), 8) for j in range(2)) for i in range(2))
        b1, b2 = (tuple(sp.Rational(int(v), 8) for v in rng.integers(-8, 9, size=2)) for _ in range(2))
        assert not _determinant(condition, [Component(N, b1), Component(N, b2)], points).contains(0)
    on_null_set = _determinant(condition, [Component(M, a1), Component(M, tuple(-v for v in a1))], points)
    assert on_null_set.contains(0)  # a2 = −a1: tanh is odd, the columns are dependent there


def _premise(singular, a, points):
    stratum = Stratum((0,), ((0, sp.Integer(1)),))
    M = ((sp.Integer(0),),)
    return Premise(stratum, 1, singular, (Component(M, (sp.Rational(a),)),), np.array(points))


PROOF = SimpleNamespace(proved=True, rows=(0, 1))


def test_a_pole_outside_the_probed_range_bounds_the_claim_by_it():
    claim = _premise(Singularities(True, points=(-3.0,), reason="pole"), "1", [[0.5], [-0.25]]).claim(None, PROOF)
    assert claim.claimed and claim.region == "ball" and claim.radius == 3.0
    assert claim.statement == "independent for almost every (M, a), ‖a_c‖₁ < 3 for every component"


def test_a_singular_point_inside_the_probed_range_leaves_only_the_connected_piece():
    singular = Singularities(True, points=(0.3,), reason="branch point")
    claim = _premise(singular, "1", [[0.5], [-0.25]]).claim(None, PROOF)  # values 0.5 and −0.25, around 0.3
    assert claim.claimed and claim.region == "piece" and "on its piece" in claim.statement
    on_it = _premise(singular, "3/5", [[0.5], [-0.25]]).claim(None, PROOF)  # 3/5 · 1/2 = 0.3: a singular value
    assert not on_it.claimed and "is a singular point" in on_it.why_not


def test_no_proof_no_claim_and_an_undecided_phi_is_said():
    premise = _premise(Singularities(False, reason="a test"), "1", [[0.5], [-0.25]])
    assert premise.claim(None, None) is None
    assert premise.claim(None, SimpleNamespace(proved=False, rows=(0, 1))) is None
    claim = premise.claim(None, PROOF)
    assert not claim.claimed and claim.why_not == "where φ is real-analytic was not decided (a test)"


def test_components_off_their_stratum_are_not_claimed():
    premise = _premise(Singularities(True), "1", [[0.5], [-0.25]])
    moved = Premise(Stratum((None,), premise.stratum.experts), 1, premise.singularities, premise.components,
                    premise.points)  # says M = 0, but the component's M is [[0]]: holds; a non-zero M does not
    assert moved.claim(None, PROOF).claimed
    off = Premise(moved.stratum, 1, moved.singularities, (Component(((sp.Integer(1),),), (sp.Integer(1),)),),
                  moved.points)
    assert not off.claim(None, PROOF).claimed


@pytest.mark.parametrize("phi", ["log(z + 3)"])
def test_a_check_with_a_branch_point_beyond_the_range_claims_the_ball(phi):
    result = checked(phi, "type1", 1, True)
    claims = [p.almost_everywhere for p in result.probes if p.almost_everywhere is not None]
    assert claims and all(c.region == "ball" and c.radius == 3.0 for c in claims)
