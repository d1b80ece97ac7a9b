"""A replay proves what the probe claims, not merely that the recorded minor is nonsingular: a record cut down
to 1 of its 28 columns, or a dependence passed off as an independence, does not replay.

Every expected count is read from the stored check (the golden sin on type-2, d = 1, written by the
check itself: 'random head' judged 28 columns, 'channel 2 = -channel 1' of nullity 14 with a rest
of 14) or worked out by hand from the claim; a tampered record is built in the test from an honest one.
"""

import copy
import json
from fractions import Fraction
from pathlib import Path

import pytest

from identcheck.errors import IdentcheckError
from identcheck.replay import REPLAY_SCHEMA, replay

from .replay_support import probe_of, run_cli, write_result
from .shared_checks import checked

GOLDEN = Path(__file__).parent / "golden" / "json" / "sin_type2_d1_certify.json"
HEAD, DEPENDENT, OTHER = "random head", "channel 2 = -channel 1", "channel 2 = -2·channel 1"


@pytest.fixture
def stored():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_an_honest_record_replays_and_says_what_it_proved(stored, capsys, tmp_path):
    head = probe_of(stored, HEAD)
    assert len(head["certificate"]["detail"]["columns"]) == head["n_terms"] == 28  # all judged columns
    again = replay(stored, HEAD)
    assert again["proved"] and again["reason"] is None and again["residual_bound"] < 1
    # the dependence: its 14 relations proved again, the other 28 - 14 columns independent
    dependent = replay(stored, DEPENDENT)
    assert dependent["proved"] and dependent["reason"] is None
    code, out, err = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all", "--json"])
    records = json.loads(out)
    assert code == 0 and err == "" and {r["schema"] for r in records} == {REPLAY_SCHEMA}
    assert [(r["probe"], r["kind"], r["nullity"]) for r in records] == [
        (p["name"], "interval" if not p["dependent"] else "nullity", p["nullity"]) for p in stored["probes"]
    ]
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), DEPENDENT])
    assert code == 0 and "its 14 relations proved again, the other columns independent: nullity exactly 14" in out


def test_a_record_cut_to_one_column_does_not_replay(stored, capsys, tmp_path):
    """A tampered record: 1 of 28 columns (points, rows, exponents cut alike) — a nonsingular
    1 × 1 minor, which proves nothing about the 28 columns."""
    detail = probe_of(stored, HEAD)["certificate"]["detail"]
    for field in ("columns", "points", "rows", "column_exponents"):
        detail[field] = detail[field][:1]
    again = replay(stored, HEAD)
    assert not again["proved"] and "the minor has 1 columns, the probe's claim needs all 28" in again["reason"]
    code, out, err = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD])
    assert code == 1 and err == "" and f"probe '{HEAD}': does NOT replay — the minor has 1 columns" in out
    assert out.endswith("\n0 of 1 replayed\n")


def test_a_dependence_passed_off_as_independent_does_not_replay(stored, capsys, tmp_path):
    """A tampered record: the dependent probe's 14-column rest certificate (a true proof
    that those 14 columns are independent) relabelled as the probe's interval certificate, the
    probe independent and the verdict identifiable: 4 honest replays, this one refused."""
    probe = probe_of(stored, DEPENDENT)
    rest = probe["certificate"]["detail"]["rest_certificate"]
    probe.update(dependent=False, nullity=0, certificate={"kind": "interval", "detail": rest})
    stored.update(verdict="identifiable", evidence="proof", witness=None)
    again = replay(stored, DEPENDENT)
    assert not again["proved"] and "the minor has 14 columns, the probe's claim needs all 28" in again["reason"]
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all"])
    assert code == 1 and out.endswith("\n4 of 5 replayed\n") and f"'{DEPENDENT}': does NOT replay" in out


def test_an_identifiable_verdict_needs_every_counted_probe_certified(stored, capsys, tmp_path):
    """The dependent probe's certificate dropped (and its record made independent) under an
    'identifiable' (proof) verdict: every certificate left replays, the verdict does not. The probe
    left out of the verdict ('all M = 0', inadmissible) is not needed."""
    probe = probe_of(stored, DEPENDENT)
    probe.update(dependent=False, nullity=0, certificate=None)
    stored.update(verdict="identifiable", evidence="proof", witness=None)
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all", "--json"])
    records = json.loads(out)
    assert code == 1 and [r["probe"] for r in records if not r["proved"]] == [DEPENDENT]
    (gap,) = [r for r in records if r["kind"] == "verdict"]
    assert "the verdict 'identifiable' (proof) needs this counted probe certified independent" in gap["reason"]
    stored["probes"].remove(probe)  # the probe removed altogether
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all"])
    assert code == 1 and f"'{DEPENDENT}': does NOT replay — the verdict" in out and "it is missing" in out


def _other_components(result, probe):
    probe["components"] = copy.deepcopy(probe_of(result, OTHER)["components"])


def _points_doubled(result, probe):
    detail = probe["certificate"]["detail"]  # 2x is exact: a minor at other points, outside [-1, 1]
    detail["points"] = [[(2 * float.fromhex(v)).hex() for v in row] for row in detail["points"]]


def _rows_shifted(result, probe):
    detail = probe["certificate"]["detail"]
    detail["rows"] = [r + 1 for r in detail["rows"]]  # the same points, claimed at other rows


@pytest.mark.parametrize(
    "tamper, reason",
    [
        (_other_components, "its components are not those of the condition's probe 'random head'"),
        (_points_doubled, "its points are not the probe's sample points"),
        (_rows_shifted, "its points are not the probe's sample points"),
        (lambda r, p: p.update(name="random head 2"), "has no probe 'random head 2'"),
        (lambda r, p: p.update(dependent=True), "recorded dependent=True, nullity=0"),
    ],
)
def test_a_record_of_other_parameters_or_points_does_not_replay(stored, tamper, reason):
    """Each tamper leaves a nonsingular minor (the replay's arb test alone still passes it: seen with
    the claim check off), but not the minor of this probe's claim."""
    probe = probe_of(stored, HEAD)
    tamper(stored, probe)
    again = replay(stored, probe["name"])
    assert not again["proved"] and reason in again["reason"], again["reason"]


def _swap_pivot(relations):
    """φ(f2) + φ(f1) = 0 led by φ(f1) (column 0, in the rest) instead of φ(f2) (column 15): the same
    relation, but then column 0 is the pivot to leave out of the rest, not 15."""
    first = relations[0]
    assert first["keys"] == [["phi", 1], ["phi", 0]]
    first["keys"].reverse(), first["exact"].reverse()


def _perturb(relations):
    label, value = relations[0]["exact"][1]
    relations[0]["exact"][1] = [label, str(Fraction(value) + Fraction(1, 1024))]


@pytest.mark.parametrize(
    "tamper, reason",
    [
        (lambda rs: rs.pop(), "recorded dependent=True, nullity=14: 13 relations proved"),
        (_swap_pivot, "the rest's claim needs all 14 of its columns; missing 15; not in the claim, or twice: 0"),
        (lambda rs: rs.__setitem__(1, copy.deepcopy(rs[0])), "not each in one relation only"),
        (_perturb, "relation 1 is not proved identically zero again"),
    ],
)
def test_a_dependence_whose_relations_are_not_its_basis_does_not_replay(stored, tamper, reason):
    """The rest certificate proves nullity exactly k only with k independent proved relations, one
    pivot each, and a minor on the other columns."""
    probe = probe_of(stored, DEPENDENT)
    tamper(probe["certificate"]["detail"]["relations"])
    again = replay(stored, DEPENDENT)
    assert not again["proved"] and reason in again["reason"], again["reason"]


def test_a_rest_certificate_must_leave_out_the_pivots_exactly(stored):
    """A column of a pivot put into the rest (in place of one that is not): the rest would then hold
    a dependent column, and it is not the set the relations leave."""
    detail = probe_of(stored, DEPENDENT)["certificate"]["detail"]
    rest = detail["rest_certificate"]
    pivot = 15  # not in the honest rest: columns 0-14 but 6 (the pivots are 6 and 15-29 but the reduced ones)
    assert pivot not in rest["columns"] and 6 not in rest["columns"]
    rest["columns"][-1] = pivot
    again = replay(stored, DEPENDENT)
    assert not again["proved"] and "the rest's claim needs all 14 of its columns; missing 14" in again["reason"]


def test_a_fresh_check_replays_and_an_uncertified_probe_is_refused():
    """From a check this test runs: sigmoid(z + 1) (independent everywhere) and z (dependent
    everywhere, every relation proved, the rest certified) replay probe by probe."""
    for phi in ("sigmoid(z + 1)", "z"):
        data = json.loads(json.dumps(checked(phi, certify=True).to_dict()))
        for probe in data["probes"]:
            again = replay(data, probe["name"])
            assert again["proved"] and again["reason"] is None, (phi, probe["name"])
    data["probes"][0]["certificate"] = None
    with pytest.raises(IdentcheckError, match="has no interval certificate"):
        replay(data, data["probes"][0]["name"])


def test_a_phi_label_that_is_not_the_expression_replayed_is_named(stored, capsys, tmp_path):
    """The replay rebuilds φ from ``expression``; ``phi`` is how the user wrote it. A ``phi`` that does
    not read as the expression (here tanh over sin's certificates) is shown with what was replayed."""
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD])
    assert code == 0 and out.startswith(f"sin(z) [type2] probe '{HEAD}': replays")
    stored["phi"] = "tanh(z)"
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD])
    assert code == 0 and out.startswith(f"tanh(z) (replayed as sin(z)) [type2] probe '{HEAD}': replays")
