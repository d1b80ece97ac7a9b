"""``identcheck catalog --experts --model-level``: bad flags are one line, exit 2, nothing written; the JSON
cells carry ``model_level``; the help names the flags."""

import json

import pytest

from identcheck.catalog import experts
from identcheck.cli.main import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model-level"], "--model-level: only with --experts"),
        (["--model-level", "--models"], "--model-level: only with --experts"),
        (["--experts", "--model-seconds", "5"], "--model-seconds: only with --model-level"),
        (["--experts", "--model-level", "--model-seconds", "0"], "--model-seconds 0: must be a finite number"),
        (["--experts", "--model-level", "--model-seconds", "-1"], "--model-seconds -1: must be a finite number"),
        (["--experts", "--model-level", "--model-seconds", "abc"], "--model-seconds 'abc': not a number"),
        (["--experts", "--model-level", "--model-seconds", "nan"], "--model-seconds nan: must be a finite number"),
        (["--experts", "--model-level", "--model-seconds", "inf"], "--model-seconds inf: must be a finite number"),
    ],
)
def test_a_bad_flag_is_one_line_exit_2_and_nothing_written(argv, message, capsys, tmp_path, monkeypatch):
    def never(*args, **kwargs):
        raise AssertionError("no check may run")

    monkeypatch.setattr(experts, "expert_catalog_rows", never)
    out = tmp_path / "catalog.md"
    assert main(["catalog", *argv, "--out", str(out)]) == 2
    printed, err = capsys.readouterr()
    assert printed == "" and err.count("\n") == 1 and message in err, err
    assert list(tmp_path.iterdir()) == []


def test_the_json_cells_carry_the_model_level_record(capsys, monkeypatch):
    monkeypatch.setattr(experts, "EXPERT_CATALOG", [("exp(dot(e1, x))", "")])
    assert main(["catalog", "--experts", "--model-level", "--model-seconds", "60", "--jobs", "1", "--json"]) == 0
    [row] = json.loads(capsys.readouterr().out)
    keys = {"part", "conditions", "verdict", "evidence", "bites", "summary", "atoms", "unfinished", "refused"}
    for condition, part in (("deepseek-shared", "shared"), ("deepseek-routed", "routed"), ("deepseek-weak", "routed")):
        record = row[condition]["model_level"]
        assert keys <= set(record) and record["part"] == part and record["budget"] == 60.0
        assert record["verdict"] == "identifiable" and record["evidence"] == "proof"
        assert all(cell["rbar"] == 2 for atom in record["atoms"] for cell in atom["cells"])


def test_the_help_names_the_flags(capsys):
    with pytest.raises(SystemExit):
        main(["catalog", "--help"])
    text = capsys.readouterr().out
    assert "--model-level" in text and "--model-seconds S" in text and "default 120" in text


@pytest.mark.slow  # about 5 s: a catalog started and interrupted
def test_ctrl_c_during_the_model_level_checks_writes_nothing(tmp_path):
    """The model-level checks run in the catalog's pool (their first tasks): Ctrl-C to the group ends
    them all and leaves no catalog and no temporary file."""
    import signal
    import sys
    import time

    from tests.identcheck.cli.test_interrupt import interrupt_when_working
    from tests.identcheck.util.test_pool import _alive

    out = tmp_path / "catalog.md"
    argv = [sys.executable, "-m", "identcheck", "catalog", "--experts", "--model-level", "--markdown"]
    argv += ["--jobs", "2", "--out", str(out)]
    started = time.monotonic()
    code, seconds, workers, stdout, stderr = interrupt_when_working(
        argv, signal.SIGINT, True, tmp_path, ready=lambda: time.monotonic() > started + 4
    )
    assert code == 130, stderr
    assert seconds < 2.0 and not any(_alive(p) for p in workers)
    assert stderr.strip().splitlines()[-1] == (
        "identcheck: interrupted (SIGINT): nothing written: "
        "the catalog is printed, or written to --out, only when complete"
    )
    assert stdout == "" and list(tmp_path.iterdir()) == []
