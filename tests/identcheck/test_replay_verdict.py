"""replay --all and a verdict: every counted probe must replay for an identifiable verdict, the verdict
line names what was replayed, one note per result, and a relation's labels are the columns its keys
name (each checked against a tampered record)."""

import copy
import json
from pathlib import Path

import pytest

from identcheck import check

from .replay_support import probe_of, run_cli, write_result

GOLDEN = Path(__file__).parent / "golden" / "json" / "sin_type2_d1_certify.json"
DEPENDENT = "channel 2 = -channel 1"


@pytest.fixture(scope="module")
def certified():
    result = check("sigmoid(z + 1)", dim=1, certify=True).to_dict()
    assert (result["verdict"], result["evidence"]) == ("identifiable", "proof")
    return result


def test_an_identifiable_verdict_does_not_replay_when_a_counted_probe_does_not(certified, tmp_path, capsys):
    tampered = copy.deepcopy(certified)
    name = next(p["name"] for p in tampered["probes"] if p["counts_for_verdict"])
    points = probe_of(tampered, name)["certificate"]["detail"]["points"]
    points[0], points[1] = points[1], points[0]  # the minor's rows no longer the probe's sample points
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, tampered), "--all", "--json"])
    records = json.loads(out)
    assert code == 1 and not next(r for r in records if r["probe"] == name)["proved"]
    assert {r["verdict_replayed"] for r in records} == {False}  # was True: the probes' own replays were not read
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, tampered), "--all"])
    assert "verdict 'identifiable' (proof) does NOT replay (above)" in out and "replayed: every counted" not in out


def test_the_verdict_line_names_the_expression_replayed(certified, tmp_path, capsys):
    shown = copy.deepcopy(certified) | {"phi": "tanh(z)"}  # phi as written no longer reads as the expression
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, shown), "--all"])
    verdict = [line for line in out.splitlines() if ": verdict " in line]
    assert code == 0 and verdict == [
        f"tanh(z) (replayed as {certified['expression']}) [type1]: verdict 'identifiable' (proof) replayed: "
        "every counted probe proved again"
    ]


def test_two_results_of_one_phi_each_say_their_verdict(tmp_path, capsys):
    honest = json.loads(GOLDEN.read_text(encoding="utf-8"))
    broken = copy.deepcopy(honest) | {"witness": "no such probe"}
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, [broken, honest]), "--all"])
    notes = [line.split(": ", 1)[1] for line in out.splitlines() if ": verdict " in line]
    assert code == 1 and notes == [
        "verdict 'not identifiable' (proof) does NOT replay (above)",
        f"verdict 'not identifiable' (proof) replayed: its witness '{DEPENDENT}' proved again",
    ]


def test_a_relations_labels_must_be_the_columns_its_keys_name(tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    relation = probe_of(stored, DEPENDENT)["certificate"]["detail"]["relations"][0]
    relation["exact"] = [["BOGUS", value] for _, value in relation["exact"]]  # keys kept: the proof would pass
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), DEPENDENT])
    assert code == 1 and "relation 1's labels ['BOGUS'" in out and "are not those of the columns its keys name" in out
