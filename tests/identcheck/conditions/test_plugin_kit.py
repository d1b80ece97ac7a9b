"""The plug-in kit is ``identcheck.conditions``: what a condition written outside the package needs is
exported there (docs/conditions/your-own.md), and the two toy conditions import from it alone."""

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import identcheck.conditions as conditions

ROOT = Path(__file__).resolve().parents[3]
TOYS = ("tests/identcheck/toy_condition.py", "tests/identcheck/toy_expert_condition.py")


def _identcheck_imports(path: Path) -> set[str]:
    """The identcheck modules ``path`` imports from (``from identcheck.x import …``, ``import identcheck.x``)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "identcheck":
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "identcheck"}
    return found


@pytest.mark.parametrize("toy", TOYS)
def test_a_toy_condition_imports_the_kit_from_identcheck_conditions_only(toy):
    assert _identcheck_imports(ROOT / toy) == {"identcheck.conditions"}


@pytest.mark.parametrize("name", sorted(conditions._KIT))
def test_every_kit_name_is_public_and_is_its_modules_object(name):
    module = importlib.import_module(conditions._KIT[name], "identcheck.conditions")
    assert name in conditions.__all__ and name in dir(conditions)
    assert getattr(conditions, name) is getattr(module, name)


def test_the_kit_loads_on_first_use():
    """``import identcheck.conditions`` imports neither the DeepSeek conditions nor the recipes; reading a
    kit name imports its module, and only it."""
    code = (
        "import sys, identcheck.conditions as c\n"
        "heavy = ('identcheck.conditions.deepseek', 'identcheck.terms.recipes')\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "c.SetRecipe\n"
        "print([m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "['identcheck.terms.recipes']"]
