"""Helpers shared by the replay tests (test_replay.py, test_replay_inputs.py)."""

import json

from identcheck.cli.main import main


def probe_of(result, name):
    """The probe ``name`` of a check result's JSON."""
    return next(p for p in result["probes"] if p["name"] == name)


def write_result(tmp_path, result, name="check.json") -> str:
    """``result`` (JSON data) written to ``tmp_path/name``; its path."""
    path = tmp_path / name
    path.write_text(json.dumps(result), encoding="utf-8")
    return str(path)


def run_cli(capsys, argv):
    """(exit code, stdout, stderr) of ``identcheck`` run in this process."""
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err
