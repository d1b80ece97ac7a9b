"""--certify: dependence proved by exact relations, independence by interval arithmetic."""

import json
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck import check
from identcheck.errors import IdentcheckError
from identcheck.families.proofs import prove_relation
from identcheck.families.recovery import recover_relations
from identcheck.rank.rule import decide_rank
from identcheck.replay import replay

from ..conftest import probe_matrix
from ..shared_checks import checked


# z**2 (Euler k = 2 and the polynomial family, the same certification path as z) runs with the
# slow tests (pytest -m slow), to keep the default suite under 3 minutes
@pytest.mark.parametrize("phi", ["z", "z + 1", pytest.param("z**2", marks=pytest.mark.slow), "exp(z)"])
def test_the_paper_and_textbook_failures_are_proved(phi):
    result = checked(phi, certify=True)
    assert result.verdict == "not identifiable" and result.evidence == "proof"
    for probe in result.probes:
        cert = probe.certificate
        assert cert.kind == "proof", probe.name
        # every basis relation of the null space proved, and the rest of the columns certified
        assert len(cert.detail.relations) == probe.nullity == cert.detail.nullity
        assert cert.detail.nullity_exact and cert.detail.rest.test.proved
        assert cert.to_dict()["detail"]["rest_certificate"]["proved"]


def test_sigmoid_with_bias_is_certified_on_every_probe_and_replays():
    result = checked("sigmoid(z + 1)", certify=True)
    assert result.verdict == "identifiable" and result.evidence == "proof"
    assert "almost every one of each probe's stratum" in result.summary  # each probe's claim, below
    assert all(p.almost_everywhere for p in result.probes if p.counts_for_verdict)
    data = json.loads(json.dumps(result.to_dict()))
    for probe in data["probes"]:
        detail = probe["certificate"]["detail"]
        assert probe["certificate"]["kind"] == "interval"
        assert detail["residual_bound"] < 1 and detail["sigma_min_lower_bound"] > 0
        again = replay(data, probe["name"])
        assert again["proved"] and again["residual_bound"] < 1
        assert again["residual_bound"] == detail["residual_bound"]  # the same test on the same balls
    # the probes float64 left borderline were proved by the rank decision itself: that proof is
    # their certificate (not computed twice)
    proved_first = [p for p in result.probes if p.rank_proof is not None]
    assert len(proved_first) == 4 and all(p.precision_digits == 60 for p in proved_first)
    assert all(p.certificate.detail.test is p.rank_proof for p in proved_first)
    with pytest.raises(IdentcheckError, match="not in this result"):
        replay(data, "no such probe")


def test_replay_refuses_a_probe_without_interval_certificate():
    """z is dependent on every probe: its proof replays when every basis relation was proved (a
    rest certificate, tests/identcheck/test_replay.py); without one, or uncertified, nothing replays."""
    data = checked("z", certify=True).to_dict()
    first, second = data["probes"][:2]
    assert first["certificate"]["kind"] == "proof" and replay(data, first["name"])["proved"]
    del first["certificate"]["detail"]["rest_certificate"]  # as when not every relation was proved
    second["certificate"] = None
    for probe in (first, second):
        with pytest.raises(IdentcheckError, match="no interval certificate"):
            replay(data, probe["name"])


def test_without_certify_nothing_is_claimed():
    result = check("sigmoid(z + 1)")
    assert result.evidence == "numeric" and all(p.certificate is None for p in result.probes)
    assert result.to_dict()["certify"] is False


def test_a_tampered_certificate_does_not_replay():
    data = checked("sigmoid(z + 1)", certify=True).to_dict()
    probe = data["probes"][0]
    detail = probe["certificate"]["detail"]
    detail["points"][0] = detail["points"][1]  # two equal rows: the minor is singular
    again = replay(data, probe["name"])
    assert not again["proved"] and "its points are not the probe's sample points" in again["reason"]
    # the record's own minor at 1 digit, on the probe that needed the most: too low for the test
    probe = max(data["probes"], key=lambda p: p["certificate"]["detail"]["digits"])
    assert probe["certificate"]["detail"]["digits"] == 60
    probe["certificate"]["detail"]["digits"] = 1
    again = replay(data, probe["name"])
    assert not again["proved"] and again["residual_bound"] >= 1 and "not < 1 at 1 digits" in again["reason"]


@pytest.mark.parametrize(
    "tamper, match",
    [
        (lambda d: d["column_exponents"].pop(), "malformed interval record"),
        (lambda d: d["points"].pop(), "malformed interval record"),
        (lambda d: d.update(digits=0), "malformed interval record"),
        (lambda d: d["columns"].__setitem__(0, 10**6), "does not fit its probe"),
        (lambda d: d["points"][0].__setitem__(0, "not hex"), "does not fit its probe"),
        (lambda d: d["points"][0].append(d["points"][0][0]), "does not fit its probe"),
        (lambda d, p: p["components"][0]["a"].__setitem__(0, 0.5), r"a: 0\.5 is not an exact rational"),
        (lambda d, p: p["components"][0].pop("M"), r"no field 'M'"),
        (lambda d, p: p["components"][0]["M"].pop(), r"M: not a 2x2 matrix"),
        (lambda d, p, r: r.update(condition="no-such"), r"condition='no-such': not a registered condition"),
        (lambda d, p, r: r.pop("dim"), r"condition='type1': this result does not set it up \(KeyError"),
    ],
)
def test_a_malformed_certificate_is_a_one_line_error(tamper, match):
    data = checked("sigmoid(z + 1)", certify=True).to_dict()
    probe = data["probes"][0]
    (tamper(probe["certificate"]["detail"], *(probe, data)[: tamper.__code__.co_argcount - 1]))
    with pytest.raises(IdentcheckError, match=match) as info:
        replay(data, probe["name"])
    assert "\n" not in str(info.value)


def test_an_unrecognised_type2_relation_is_made_exact_and_proved():
    """sin on the 'channel 2 = -channel 1' head: no named family, yet every relation is proved."""
    result = check("sin(z)", condition="type2", certify=True)
    assert result.verdict == "not identifiable" and result.evidence == "proof"
    witness = next(p for p in result.probes if p.name == result.witness)
    assert len(witness.certificate.detail.relations) == witness.nullity > 0
    assert all(r.proved and r.exact is not None for r in witness.relations)
    assert all(p.certificate.kind == "interval" for p in result.probes if not p.dependent)


@pytest.fixture(scope="module")
def recovered(term_set_2d):
    """Exact relations recovered from the numerical null space of exp(z) on a random pair."""
    act, probe, matrix, rows_at = probe_matrix(term_set_2d, "exp(z)", 2, seed=3)
    every_row = list(range(matrix.shape[0]))
    decision = decide_rank(matrix, lambda digits: rows_at(every_row, digits))
    relations = recover_relations(decision.null_space, lambda digits: rows_at(every_row, digits))
    return act, probe, decision, relations


def test_recovered_relations_are_proved(term_set_2d, recovered):
    act, probe, decision, relations = recovered
    assert len(relations) == decision.nullity == 6
    assert all(prove_relation(term_set_2d, act.derivatives, probe.components, r) for r in relations)


@settings(max_examples=20, deadline=None)
@given(which=st.integers(0, 100), relation=st.integers(0, 5), delta=st.integers(-64, 64).filter(bool))
def test_a_perturbed_recovered_relation_is_never_proved(term_set_2d, recovered, which, relation, delta):
    act, probe, _, relations = recovered
    coeffs = list(relations[relation])
    column, value = coeffs[which % len(coeffs)]
    coeffs[which % len(coeffs)] = (column, value + sp.Rational(delta, 1024))
    assert not prove_relation(term_set_2d, act.derivatives, probe.components, coeffs, thorough=False)


def test_irrational_coefficients_are_not_guessed():
    """A null vector with coefficient sqrt(2) is not rounded into a rational 'relation'."""
    import flint

    from identcheck.terms.compile import arb_precision

    def matrix(digits):
        with arb_precision(digits):
            rows = []
            for t in np.linspace(-1, 1, 6):
                f = flint.arb(float(t)).exp()
                rows.append([f, f * flint.arb(2).sqrt(), flint.arb(float(t))])
            return flint.arb_mat(rows)

    null = np.array([[np.sqrt(2)], [-1.0], [0.0]])
    assert recover_relations(null / np.linalg.norm(null), matrix) == [None]


def test_certified_relations_keep_the_experts_they_tie():
    """--certify replaces raw relations by proved exact ones; they still say which experts they tie
    (docs/method.md §4), as the uncertified reading did."""
    from identcheck import check

    plain = check("(z + 1/3)/(1 + z**2)", dim=1)
    certified = check("(z + 1/3)/(1 + z**2)", dim=1, certify=True)

    def tied(result):
        return {r.ties for p in result.probes for r in p.relations if r.family is None and r.ties}

    assert tied(plain) and tied(certified) == tied(plain) == {(1, 2)}


def test_the_stored_certificates_replay():
    """The certificates in the JSON goldens (written by earlier code) still replay: a component's
    JSON keeps its meaning. sin on type-2 at d = 1: four heads certified independent."""
    stored = json.loads((Path(__file__).parents[1] / "golden" / "json" / "sin_type2_d1_certify.json").read_text())
    certified = [p for p in stored["probes"] if (p["certificate"] or {}).get("kind") == "interval"]
    assert len(certified) == 4
    for probe in certified:
        again = replay(stored, probe["name"])
        assert again["proved"] and again["sigma_min_lower_bound"] > 0, probe["name"]
