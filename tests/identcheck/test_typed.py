"""Both packages say they are typed (PEP 561) and ship the marker, and CI runs the type checker on them."""

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("package", ["identcheck", "numeric"])
def test_the_package_ships_its_py_typed_marker(package):
    assert (ROOT / package / "py.typed").is_file()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"][package]


def test_ci_runs_mypy_in_basic_mode_over_both_packages():
    mypy = PYPROJECT["tool"]["mypy"]
    assert mypy["files"] == ["identcheck", "numeric"] and not mypy.get("strict")
    assert any(line.startswith("python3 -m mypy") for line in (ROOT / ".ci" / "run").read_text().splitlines())
    assert any(dep.startswith("mypy>=") for dep in PYPROJECT["project"]["optional-dependencies"]["test"])
