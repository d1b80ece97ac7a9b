"""What a replay reads from the check's JSON besides the certificate: the
recorded ``points_per_term`` and condition ``options``, schema-2 files (relations without keys), the
φ shown against the expression for experts and mha, the verdict's witness, and the bounds on what a
record may ask (digits, type-2's head).

Expected values come from the check itself (a fresh check of the same φ replays; a schema-2 file is
a golden as an earlier check wrote it) or from the tamper made in the test.
"""

import copy
import json
from pathlib import Path

import pytest

from identcheck import check
from identcheck.conditions import CONDITIONS
from identcheck.errors import IdentcheckError
from identcheck.replay import condition_of, replay_file

from .replay_support import probe_of, run_cli, write_result

DATA = Path(__file__).parent / "data"
GOLDEN = Path(__file__).parent / "golden" / "json" / "sin_type2_d1_certify.json"
HEAD, DEPENDENT = "random head", "channel 2 = -channel 1"


@pytest.fixture(scope="module")
def tanh_five():
    """tanh(z) at d = 1 with 5 points per term (not the default 4)."""
    return check("tanh(z)", dim=1, points_per_term=5, certify=True).to_dict()


def test_the_recorded_points_per_term_is_replayed(tanh_five, tmp_path):
    assert tanh_five["points_per_term"] == 5
    assert condition_of(tanh_five).points_per_term == 5
    records = replay_file(write_result(tmp_path, tanh_five))
    assert len(records) == 9 and all(r["proved"] for r in records), [r["reason"] for r in records]
    # every condition's from_json reads it: type-2 and an expert condition
    for name, expression in (("type2", "sin(z)"), ("deepseek-routed", "e2*tanh(dot(e1, x))")):
        setup = {"expression": expression, "dim": 1, "seed": 0, "points_per_term": 7, "details": {}}
        if name == "type2":
            setup["details"]["head"] = {"n_gates": 2, "n_channels": 2, "mixed_products": False}
        assert CONDITIONS[name].from_json(setup).points_per_term == 7, name
    with pytest.raises(IdentcheckError, match="points_per_term 1 is not an integer from 2 to 100"):
        condition_of(tanh_five | {"points_per_term": 1})


def test_the_condition_options_are_recorded_and_replayed(tmp_path, capsys):
    result = check("tanh(z)", dim=1, include_zero=True, certify=True).to_dict()
    assert result["options"] == {"include_zero": True}
    assert "a = 0" in [p["name"] for p in result["probes"]]
    code, out, err = run_cli(capsys, ["replay", write_result(tmp_path, result), "--all"])
    assert code == 0 and err == "" and "probe 'a = 0': replays" in out and out.endswith("10 of 10 replayed\n")
    # a condition without options records {}; an option it does not declare is refused when read back
    mha = check(None, condition="mha", dim=1).to_dict()
    assert mha["options"] == {"include_zero": False} and CONDITIONS["mha"].options == {"include_zero": False}
    with pytest.raises(IdentcheckError, match="option 'gates' is not one of 'type1'"):
        condition_of(result | {"options": {"gates": 3}})


def test_type2_options_and_head_are_read_with_their_types(tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    head = stored["details"]["head"]
    assert condition_of(stored | {"options": dict(head)}).head == head
    for tamper, why in (
        ({"options": head | {"n_channels": 3}}, "are not details.head"),
        ({"details": stored["details"] | {"head": head | {"mixed_products": "yes"}}}, "mixed_products='yes' is not"),
        ({"details": stored["details"] | {"head": head | {"n_gates": 2.0}}}, "n_gates=2.0 is not of type int"),
        ({"details": stored["details"] | {"head": {"n_gates": 2}}}, "does not name exactly"),
    ):
        code, out, err = run_cli(capsys, ["replay", write_result(tmp_path, stored | tamper), HEAD])
        assert code == 2 and out == "" and why in err and err.count("\n") == 1, (tamper, err)


@pytest.mark.parametrize("name", ["schema2_sin_type2_d1_certify.json", "schema2_z_type1_certify.json"])
def test_a_schema_2_file_replays(name, capsys):
    """Written by an earlier check (schema 2: relations without keys, type-2's head at the top level)."""
    path = str(DATA / name)
    stored = json.loads(Path(path).read_text(encoding="utf-8"))
    assert stored["schema"] == "identcheck.check/2"
    assert all("keys" not in r for p in stored["probes"] for r in (p["certificate"]["detail"].get("relations") or []))
    code, out, err = run_cli(capsys, ["replay", path, "--all"])
    n = len(stored["probes"])
    assert code == 0 and err == "" and out.endswith(f"\n{n} of {n} replayed\n"), out[-400:]


def test_a_keyless_relation_that_reads_as_no_column_fails_its_probe_only(tmp_path):
    stored = json.loads((DATA / "schema2_z_type1_certify.json").read_text(encoding="utf-8"))
    relation = probe_of(stored, "random pair")["certificate"]["detail"]["relations"][0]
    relation["exact"][0][0] = "∂ū/∂a9[1]"  # a label of no column of the probe
    records = replay_file(write_result(tmp_path, stored))
    failed = [r for r in records if not r["proved"]]
    assert [r["probe"] for r in failed] == ["random pair"] and len(records) == 9
    assert failed[0]["reason"].startswith("schema 2: relations without keys; re-run check")


def test_an_expert_and_mha_read_as_their_expression(tmp_path, capsys):
    for argv in (
        ["--condition", "deepseek-routed", "--expert", "e2*tanh(dot(e1, x)) + c", "--param", "c=0.5"],
        ["--condition", "deepseek-routed", "--expert", "e2*tanh(dot(e1, x))"],
        ["--condition", "mha"],
    ):
        code, out, _ = run_cli(capsys, ["check", *argv, "--dim", "1", "--certify", "--json"])
        assert code == 0
        (result,) = json.loads(out)
        path = write_result(tmp_path, result)
        code, out, err = run_cli(capsys, ["replay", path, "--all"])
        assert code == 0 and err == "" and "(replayed as" not in out and f"{result['phi']} [" in out, out
        code, out, _ = run_cli(capsys, ["replay", path, "--all", "--json"])
        assert code == 0 and all(r["phi_is_expression"] for r in json.loads(out)), argv
    # an expert shown as another expert is named with what was replayed
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, result | {"phi": "z + 1"}), "--all"])
    assert code == 0 and "z + 1 (replayed as z) [mha]" in out


@pytest.mark.parametrize(
    "tamper, why",
    [
        (lambda r: r.update(witness=HEAD), "it is recorded independent"),
        (lambda r: r.update(witness="no such probe"), "it is missing"),
        (lambda r: r.update(witness="all M = 0 (uniform gating)"), "it is not a counted probe"),
        (
            lambda r: probe_of(r, DEPENDENT)["certificate"]["detail"]["relations"][0]["exact"][0].__setitem__(1, "2"),
            "it does not replay",
        ),
    ],
)
def test_a_not_identifiable_verdict_needs_its_witness_proved_dependent(tamper, why, tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert stored["verdict"] == "not identifiable" and stored["witness"] == DEPENDENT
    tamper(stored)
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all"])
    assert code == 1 and "does NOT replay — the verdict 'not identifiable' (proof) needs its witness" in out
    assert why in out and "verdict 'not identifiable' (proof) does NOT replay (above)" in out


def test_a_witness_without_rest_certificate_is_proved_again_by_its_relations(tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    del probe_of(stored, DEPENDENT)["certificate"]["detail"]["rest_certificate"]  # not every relation proved
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all"])
    assert code == 0 and f"replayed: its witness '{DEPENDENT}' proved again" in out and "4 of 4 replayed" in out
    broken = copy.deepcopy(stored)
    probe_of(broken, DEPENDENT)["certificate"]["detail"]["relations"][0]["exact"][0][1] = "2"
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, broken), "--all"])
    assert code == 1 and "it is not proved dependent again: relation 1 is not proved identically zero" in out
    probe_of(broken, DEPENDENT)["certificate"]["detail"]["relations"] = []
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, broken), "--all"])
    assert code == 1 and "no exact relation is recorded to prove again" in out


def test_a_verdict_not_replayed_is_said(tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD, "--json"])
    (record,) = json.loads(out)  # one probe asked: its verdict is not replayed, and the text says nothing of it
    assert code == 0 and record["verdict_replayed"] is None and record["verdict_note"] is None
    stored["evidence"] = "numeric"
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), "--all", "--json"])
    records = json.loads(out)
    assert code == 0 and {r["verdict_replayed"] for r in records} == {None}
    assert records[0]["verdict_note"] == "verdict 'not identifiable' (numeric) not replayed: only a verdict with " + (
        "evidence proof is"
    )


def test_a_record_asking_too_many_digits_is_refused(tmp_path, capsys):
    stored = json.loads(GOLDEN.read_text(encoding="utf-8"))
    probe_of(stored, HEAD)["certificate"]["detail"]["digits"] = 10**7
    code, out, err = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "asks for 10000000 digits, above 480 (the most check --certify uses): not replayed" in err
    probe_of(stored, HEAD)["certificate"]["detail"]["digits"] = 480  # the top itself is replayed
    code, out, _ = run_cli(capsys, ["replay", write_result(tmp_path, stored), HEAD])
    assert code == 0
