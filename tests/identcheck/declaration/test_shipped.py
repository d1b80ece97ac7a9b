"""The shipped examples are package data: pyproject.toml's globs take every file, and a name is refused."""

import tomllib
from pathlib import Path

import pytest

from identcheck.declaration import EXAMPLES, example_path
from identcheck.errors import IdentcheckError

ROOT = Path(__file__).resolve().parents[3]


def test_every_example_file_is_listed_and_packaged():
    folder = ROOT / "identcheck" / "declaration" / "examples"
    assert sorted(p.stem for p in folder.glob("*.toml")) == sorted(EXAMPLES)
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["identcheck"]
    packaged = {p for pattern in globs for p in (ROOT / "identcheck").glob(pattern)}
    assert {example_path(name) for name in EXAMPLES} <= packaged


def test_an_unknown_example_is_refused_with_the_closest_name():
    with pytest.raises(IdentcheckError, match=r"no such example \(did you mean deepseek-d[1-4]\?\)"):
        example_path("deepseek-dl")
