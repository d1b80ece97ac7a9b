"""The installed program is the one pyproject.toml declares (a stale install ran ``identcheck.cli.main:main``,
not ``:program``: a closed stdout then printed "internal error: BrokenPipeError")."""

import importlib.metadata
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def test_the_installed_console_scripts_are_pyprojects():
    declared = tomllib.loads(PYPROJECT.read_text())["project"]["scripts"]
    installed = {
        e.name: e.value
        for e in importlib.metadata.distribution("identcheck").entry_points
        if e.group == "console_scripts"
    }
    assert installed == declared, "reinstall: python3 -m pip install -e '.[test]'"
