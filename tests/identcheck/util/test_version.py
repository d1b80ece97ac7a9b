"""``__version__`` is pyproject.toml's version, written there once and read from the package metadata."""

import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import identcheck
import numeric
from identcheck.util import version

ROOT = Path(__file__).resolve().parents[3]
PYPROJECT_VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_both_packages_report_pyprojects_version_as_the_metadata_has_it():
    assert identcheck.__version__ == numeric.__version__ == metadata.version("identcheck") == PYPROJECT_VERSION
    assert "__version__" in dir(identcheck) and "__version__" not in identcheck.__all__


def test_the_version_is_written_nowhere_in_the_packages_sources():
    """No literal copy to keep in step: the version string appears in no module of identcheck/ or numeric/
    (docstrings' examples of recorded JSON aside, which say ``"identcheck": "0.1.0"`` as data)."""
    assignment = re.compile(r"^\s*__version__\s*=", re.MULTILINE)
    for package in ("identcheck", "numeric"):
        for path in (ROOT / package).rglob("*.py"):
            assert not assignment.search(path.read_text(encoding="utf-8")), path


def test_without_an_installed_distribution_the_source_trees_pyproject_says_it(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    assert version.project_version() == PYPROJECT_VERSION


def test_without_metadata_or_pyproject_the_version_says_it_is_unknown(monkeypatch):
    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", not_installed)
    monkeypatch.setattr(version, "_source_tree_version", lambda: None)
    assert version.project_version() == version.UNKNOWN == "0+unknown"


def test_importing_the_packages_does_not_read_the_metadata():
    """The version is read on first use: ``import identcheck`` and ``import numeric`` load no
    importlib.metadata (~15 ms), asking for ``__version__`` does."""
    code = (
        "import sys, identcheck, numeric\n"
        "before = 'importlib.metadata' in sys.modules\n"
        "v = identcheck.__version__\n"
        "print(before, 'importlib.metadata' in sys.modules, v == numeric.__version__)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]
