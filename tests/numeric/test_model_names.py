"""No numeric module outside the registry of shipped models branches on a shipped model's name.

The three hand-written attention models (docs/numeric.md, "The shipped models") are records of
:mod:`numeric.shipped`: what the rest of numeric asks about a model — whether it has a gate φ and
where, its condition, its loss, its title, its slopes — it asks the record, never by comparing
the model's name. The scan reads every module's syntax tree: a string constant equal to a
shipped model's or declaration's name (in a comparison, a dict, a tuple, a call: anywhere) is an
offence, outside the registry. Docstrings and help texts mention the names inside longer text,
which is not an equal constant, so they need no exception.
"""

import ast
import tomllib
from pathlib import Path

import pytest

from identcheck.declaration import example_path
from numeric.errors import NumericError
from numeric.model.attention import Model
from numeric.model.attention_declared import DeclaredAttention
from numeric.shipped import AFTER_OUTPUT, AFTER_VALUES, SHIPPED, shipped_model

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "numeric"
#: The one module that names the shipped models.
REGISTRY = PACKAGE / "shipped.py"
#: The names that must not be spelled out elsewhere: the models', their declarations', and the
#: class name the gated models once shared in a table.
NAMES = frozenset(SHIPPED) | {spec.declaration for spec in SHIPPED.values()} | {"gated"}


def name_constants(source: str, names=NAMES) -> list:
    """(line, name) of every string constant of ``source`` equal to one of ``names``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names:
            found.append((node.lineno, node.value))
    return sorted(found)


def test_the_names_are_the_registrys():
    assert {"mha", "gated1", "gated2", "setting1", "setting2"} <= NAMES


@pytest.mark.parametrize(
    "path", [p for p in sorted(PACKAGE.rglob("*.py")) if p != REGISTRY], ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_module_outside_the_registry_names_a_shipped_model(path):
    assert name_constants(path.read_text(encoding="utf-8")) == []


def test_the_scan_sees_what_it_should():
    """The scanner itself: it finds a name in a comparison, a membership test, a dict key, a tuple,
    a call and an f-string's expression, and not in a docstring or a longer text."""
    source = '''
"""Models mha, gated1 and gated2."""
def f(model, args):
    """The ``gated2`` model."""
    if model == "mha":
        pass
    if model.kind in ("gated1", "gated2"):
        pass
    TABLE = {"gated1": 1}
    Leg("local", ("mha",))
    text = f"{args.model != 'gated2'} and help: choose mha or gated1"
    return "L1,r" if model != "x" else "setting1"
'''
    assert name_constants(source) == [
        (5, "mha"),
        (7, "gated1"),
        (7, "gated2"),
        (9, "gated1"),
        (10, "mha"),
        (11, "gated2"),
        (12, "setting1"),
    ]
    assert name_constants(REGISTRY.read_text(encoding="utf-8"))  # the registry does name them


def _where_phi(name: str):
    """Where the shipped declaration's TOML applies φ, read from its two experts."""
    data = tomllib.loads(example_path(name).read_text(encoding="utf-8"))
    part = data["parts"]["channels"]
    outer, inner = part["expert"], part["inner"]["expert"]
    if "phi(" in outer:
        return AFTER_OUTPUT
    return AFTER_VALUES if "phi(" in inner else None


@pytest.mark.parametrize("name", SHIPPED)
def test_a_records_structure_is_its_declarations(name):
    """The record's φ placement is what its declaration file says; the model objects carry it, and
    the condition is the one identcheck states for that placement (type 1 for φ of one atom's
    aᵀx, type 2 for φ of a mixture), none without φ."""
    spec = SHIPPED[name]
    assert spec.name == name and spec.phi_after == _where_phi(spec.declaration)
    assert Model(name).phi_after == DeclaredAttention(name).phi_after == spec.phi_after
    assert spec.condition == {None: None, AFTER_VALUES: "type1", AFTER_OUTPUT: "type2"}[spec.phi_after]
    assert spec.loss_kind == ("L2" if spec.has_phi else "L1")
    assert spec.channels_through_measures == (spec.phi_after != AFTER_OUTPUT)


def test_an_unknown_model_is_one_line():
    with pytest.raises(NumericError, match=r"^model='gated3': unknown; choose one of mha, gated1, gated2$"):
        shipped_model("gated3")
    with pytest.raises(NumericError, match="unknown"):
        Model("gated3")
