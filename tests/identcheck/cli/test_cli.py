"""The CLI is a thin shell: same answers as the API, clear errors, meaningful exit codes."""

import contextlib
import copy
import json
import os
import subprocess
import sys

import pytest

from identcheck import check
from identcheck.cli.main import main


def _volatile(d):
    d = dict(d)
    d.pop("seconds")
    return d


def test_json_equals_the_api_to_dict(capsys):
    assert main(["check", "z", "sigmoid(z + b)", "--param", "b=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    api = [check("z").to_dict(), check("sigmoid(z + b)", params={"b": 1}).to_dict()]
    assert [_volatile(d) for d in out] == [_volatile(d) for d in api]


def test_default_runs_the_paper_examples(capsys):
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "φ(z) = z " in out and "φ(z) = sigmoid(z + 1)" in out
    assert "NOT IDENTIFIABLE" in out and "IDENTIFIABLE (numeric evidence)" in out


BAD = [
    (["check", "__import__('os').system('touch /tmp/identcheck_cli_pwned')"], "attribute access"),
    (["check", "relu(z)"], "not differentiable"),
    (["check", "log(z)"], "probed domain"),
    (["check", "z", "--dim", "0"], "dim"),
    (["check", "z", "--dim", "two"], "not an integer"),
    (["check", "z", "--condition", "typ1"], "did you mean type1"),
    (["check", "sigmoid(z + b)"], "--param b=VALUE"),
    (["check", "z", "--param", "b=1"], "no phi uses 'b'"),
    (["check", "z", "--param", "b=oops"], "not a number"),
    (["check", "z", "--seed", "-3"], "seed"),
    (["check", "z", "--bogus"], "unknown flag --bogus"),
    (["check", "z", "10**10**10**10"], "exponent"),
]


@pytest.mark.parametrize("argv, reason", BAD)
def test_bad_input_exits_2_with_one_line_and_no_output(capsys, argv, reason):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing written half-way, even when a valid phi came first
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("identcheck: error:") and reason in lines[0]
    assert not os.path.exists("/tmp/identcheck_cli_pwned")


def test_module_entry_point_and_exit_code():
    done = subprocess.run(
        [sys.executable, "-m", "identcheck", "check", "relu(z)"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_condition_both_gives_one_object_per_phi_and_condition(capsys):
    assert (
        main(["check", "sigmoid(z + 1)", "--condition", "both", "--dim", "1", "--json"]) == 0
    )  # d = 1: the same path, cheaper
    out = json.loads(capsys.readouterr().out)
    assert [d["condition"] for d in out] == ["type1", "type2"]
    api = check("sigmoid(z + 1)", condition="type2", dim=1).to_dict()
    assert _volatile(out[1]) == _volatile(api)
    assert out[1]["details"]["literal_verdict"] == "not identifiable" and out[1]["details"]["head"]["n_gates"] == 2


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["check", "--condition", "mha", "tanh(z)"], "condition 'mha' takes no phi"),
        (
            ["check", "--condition", "mha", "--param", "b=1"],
            "--param b=1: condition 'mha' takes no phi and no constants",
        ),
        (["check", "sigmoid(", "--param", "b=1"], "not a valid expression"),
        (
            ["check", "z", "--condition", "type2", "--mixed-products", "--include-zero"],
            "--include-zero: applies to type1 and mha only",
        ),
        (["check", "z", "--condition", "type2", "--gates", "9"], "--gates 9"),
        (["check", "z", "--condition", "type2", "--include-zero"], "--include-zero"),
        (["catalog", "--jobs", "0"], "--jobs"),
        (["catalog", "--out", "/nonexistent/folder/x.md"], "does not exist"),
        (["prove-pde", "z", "--dim", "8"], "--dim 8: must be an integer from 1 to 6"),
        (["prove-pde", "open('x')"], "phi="),
        (["prove-pde"], "required: phi"),
        (["prove-pde", "b*z"], "--param b=VALUE"),
    ],
)
def test_more_bad_input(capsys, argv, reason):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and reason in captured.err


def test_a_param_goes_to_the_phis_that_use_it(capsys):
    assert main(["check", "sigmoid(z + b)", "tanh(z)", "--param", "b=1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["phi"] for d in out] == ["sigmoid(z + b) [b=1]", "tanh(z)"]


def test_certify_flag_reaches_the_json_and_the_text(capsys):
    assert main(["check", "z", "sigmoid(z + 1)", "--certify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [d["evidence"] for d in out] == ["proof", "proof"] and all(d["certify"] for d in out)
    assert {p["certificate"]["kind"] for p in out[0]["probes"]} == {"proof"}
    assert {p["certificate"]["kind"] for p in out[1]["probes"]} == {"interval"}
    assert main(["check", "sigmoid(z + 1)", "--certify"]) == 0
    text = capsys.readouterr().out
    assert "IDENTIFIABLE (proof evidence)" in text and "[proved: interval" in text


def test_prove_pde_prints_the_papers_pde_and_its_proof(capsys):
    assert main(["prove-pde", "z"]) == 0
    text = capsys.readouterr().out
    assert "PDE (5)" in text and "sum_j a_j du/da_j - 1*u = 0" in text and "PROVED" in text
    assert main(["prove-pde", "sigmoid(z + 1)", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert not any(f["holds"] for f in data["families"])


def test_the_header_shows_a_param_as_written_and_the_json_keeps_it_exact(capsys):
    """``--param b=1e-3`` is shown so in the text (and Jupyter's markdown); the JSON's
    phi keeps the exact rational, as before."""
    args = ["check", "sigmoid(z*b)", "--param", "b=1e-3", "--dim", "1"]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[0] == "φ(z) = sigmoid(z*b) [b=1e-3]    [type1, d = 1]"
    assert main([*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["phi"] == "sigmoid(z*b) [b=1/1000]"
    api = check("sigmoid(z*b)", dim=1, params={"b": "1e-3"})
    assert api.phi == "sigmoid(z*b) [b=1/1000]" and "b=1e-3" in api.to_text().splitlines()[0]
    assert "sigmoid(z*b) [b=1e-3]" in api._repr_markdown_().splitlines()[0]


# --- identcheck replay CHECK.json PROBE | --all -------------------------------------------------------------------


@pytest.fixture(scope="module")
def certified(tmp_path_factory):
    """A saved `check z 'sigmoid(z + 1)' --dim 1 --certify --json`: z fails by Euler on every probe (its
    certificates are exact proofs), sigmoid(z + 1) passes (one interval certificate per counted probe)."""
    out = tmp_path_factory.mktemp("replay") / "check.json"
    with open(out, "w", encoding="utf-8") as handle, contextlib.redirect_stdout(handle):
        assert main(["check", "z", "sigmoid(z + 1)", "--dim", "1", "--certify", "--json"]) == 0
    return out


def _run(capsys, argv):
    code = main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return code, out, err


def test_replay_repeats_a_saved_certificate(capsys, certified):
    code, out, err = _run(capsys, ["replay", certified, "random pair"])
    # z's 'random pair' is dependent, every relation proved: its rest certificate is replayed, and
    # sigmoid(z + 1)'s interval certificate
    assert code == 0 and err == "" and len(out.splitlines()) == 3 and out.endswith("\n2 of 2 replayed\n")
    z, sigmoid = out.splitlines()[:2]
    assert z.startswith("z [type1] probe 'random pair': replays — ‖I − R·S‖_F ≤ ") and "nullity exactly" in z
    assert sigmoid.startswith("sigmoid(z + 1) [type1] probe 'random pair': replays — ‖I − R·S‖_F ≤ ")
    assert sigmoid.endswith("the minor is nonsingular")
    code, out, _ = _run(capsys, ["replay", certified, "--all", "--json"])
    saved = json.loads(certified.read_text(encoding="utf-8"))
    recorded = {
        (r["phi"], p["name"]): p["certificate"]["detail"]["residual_bound"]
        for r in saved
        for p in r["probes"]
        if (p["certificate"] or {}).get("kind") == "interval"
    }
    assert [r["phi"] for r in saved] == ["z", "sigmoid(z + 1)"]
    replays = json.loads(out)
    assert code == 0 and all(r["schema"] == "identcheck.replay/1" and r["proved"] for r in replays)
    assert {(r["phi"], r["probe"]): r["residual_bound"] for r in replays if r["kind"] == "interval"} == recorded
    assert all(phi == "sigmoid(z + 1)" for phi, _ in recorded) and len(recorded) >= 3
    assert {r["phi"] for r in replays if r["kind"] == "nullity"} == {"z"}  # every probe of z


def test_replay_of_a_tampered_record_does_not_replay(capsys, certified, tmp_path):
    """Two equal rows make the recorded minor singular (and are not the probe's sample points): not
    replayed, exit 1. The honest minor at 1 digit: the bound ‖I − R·S‖ < 1 is not reached, exit 1."""
    saved = json.loads(certified.read_text(encoding="utf-8"))[1:]  # sigmoid(z + 1)
    detail = next(p for p in saved[0]["probes"] if p["name"] == "random pair")["certificate"]["detail"]
    tampered = tmp_path / "tampered.json"
    for change, why in [
        (lambda: detail["points"].__setitem__(1, detail["points"][0]), "its points are not the probe's sample points"),
        (lambda: detail.update(digits=1), "not < 1 at 1 digits"),
    ]:
        honest = copy.deepcopy(detail)
        change()
        tampered.write_text(json.dumps(saved), encoding="utf-8")
        code, out, err = _run(capsys, ["replay", tampered, "random pair"])
        assert code == 1 and err == "" and "'random pair': does NOT replay — " in out and why in out
        assert out.endswith("0 of 1 replayed\n")
        detail.clear()
        detail.update(honest)


def _altered(tmp_path, certified, change) -> str:
    saved = json.loads(certified.read_text(encoding="utf-8"))
    path = tmp_path / "altered.json"
    path.write_text(change(saved) if callable(change) else change, encoding="utf-8")
    return path


def _rename_condition(saved):
    saved[1]["condition"] = "type9"
    return json.dumps(saved)


def _uncertified(saved):
    for result in saved:
        for probe in result["probes"]:
            probe["certificate"] = None
    return json.dumps(saved)


@pytest.mark.parametrize(
    "argv, change, reason",
    [
        (["replay", "{missing}", "random pair"], None, "cannot read (No such file or directory)"),
        (["replay", "{altered}", "random pair"], "[{", "not JSON (Expecting"),
        (["replay", "{altered}", "random pair"], '{"verdict": "identifiable"}', "not a check result"),
        (["replay", "{altered}", "random pair"], "[]", "not a check result"),
        (["replay", "{certified}", "random pari"], None, "probe='random pari': not in 'CERTIFIED' (did you mean"),
        (["replay", "{altered}", "random pair"], _uncertified, "it was not certified: run check with --certify"),
        (["replay", "{altered}", "--all"], _uncertified, "no probe has an interval certificate"),
        (["replay", "{altered}", "random pair"], _rename_condition, "condition='type9': not a registered condition"),
        (["replay", "{certified}"], None, "give one PROBE or --all"),
        (["replay", "{certified}", "random pair", "--all"], None, "give one PROBE or --all"),
    ],
)
def test_replay_refuses_bad_input_in_one_line(capsys, tmp_path, certified, argv, change, reason):
    where = {"missing": tmp_path / "nope.json", "certified": certified}
    if change is not None:
        where["altered"] = _altered(tmp_path, certified, change)
    code, out, err = _run(capsys, [a.format(**where) for a in argv])
    reason = reason.replace("CERTIFIED", str(certified))
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and reason in err, err
    if "did you mean" in reason:
        assert "(did you mean 'random pair'?)" in err


def test_replay_of_a_dependent_probe_says_its_certificate_is_a_proof(capsys, tmp_path, certified):
    saved = json.loads(certified.read_text(encoding="utf-8"))[:1]  # z alone: dependent everywhere
    probe = next(p for p in saved[0]["probes"] if p["name"] == "random pair")
    del probe["certificate"]["detail"]["rest_certificate"]  # as when not every relation was proved
    path = tmp_path / "z.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    code, out, err = _run(capsys, ["replay", path, "random pair"])
    assert code == 2 and "it is dependent and not every relation of its null space was proved" in err
