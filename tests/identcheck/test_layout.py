"""The package's shape: imports flow one way, none hidden in a function, modules stay small."""

import subprocess
import sys
from pathlib import Path

import pytest

from tests.import_graph import find_cycle, import_graph

PACKAGE = Path(__file__).resolve().parents[2] / "identcheck"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400
#: The command line imports each command's modules inside the command (a command loads
#: only what it needs); nothing in the package imports it, so its lazy imports cannot hide a cycle —
#: and the cycle check below counts them anyway. (The package root's lazy API imports through
#: importlib with names from a table; its TYPE_CHECKING block lists them at the top.)
ENTRY_POINTS = ("identcheck.cli.main", "identcheck.__main__")
#: The command line's modules, whose commands import what they run inside the command.
COMMAND_MODULES = (*ENTRY_POINTS, "identcheck.cli.model_command", "identcheck.cli.pde_commands")


def test_no_intra_package_import_inside_a_function():
    _, inner = import_graph(PACKAGE)
    assert [i for i in inner if i[1].startswith("identcheck") and i[0] not in COMMAND_MODULES] == []


def test_the_command_line_imports_lazily_and_nothing_imports_it():
    graph, inner = import_graph(PACKAGE)
    assert {"identcheck.check", "identcheck.scan.run", "identcheck.catalog.activations"} <= {
        i[1] for i in inner if i[0] == "identcheck.cli.main"
    }
    assert [m for m, targets in graph.items() if m not in ENTRY_POINTS and set(targets) & set(ENTRY_POINTS)] == []


def test_the_import_graph_has_no_cycle():
    """Counting every import, also the ones inside functions."""
    graph, _ = import_graph(PACKAGE)
    assert len(graph) == len(MODULES) and "identcheck.rank.rule" in graph["identcheck.check"]  # it sees imports
    assert find_cycle(graph, "identcheck") is None


def test_the_cycle_finder_finds_one():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c", "p"}, "p.c": {"p.a"}, "p": {"p.a"}}
    assert find_cycle(graph, "p") == ["p.a", "p.b", "p.c", "p.a"]
    assert find_cycle({"p.a": {"p"}, "p": {"p.a"}}, "p") is None  # the root re-exports


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


# --- the layers: util → parse → terms → declaration → families → rank → conditions → model → driver → tools → face

LAYERS = ("util", "parse", "terms", "declaration", "families", "rank", "conditions", "model", "driver", "tools", "face")
#: A folder is a layer: a module below ``identcheck/<folder>/`` takes the folder's layer.
FOLDER_LAYER = {
    "util": "util",
    "parse": "parse",
    "terms": "terms",
    "declaration": "declaration",
    "families": "families",
    "rank": "rank",
    "conditions": "conditions",
    "model": "model",
    "scan": "tools",
    "catalog": "tools",
    "cli": "face",
}
#: The modules at the package root, which users touch: the result vocabulary (at the ground floor, with
#: util), the driver, the tools that stand alone, and the face.
ROOT_LAYER = {
    **dict.fromkeys(("errors", "evidence", "results", "scope"), "util"),
    **dict.fromkeys(("check", "replay"), "driver"),
    **dict.fromkeys(("pde", "positions", "testing"), "tools"),
    **dict.fromkeys(("", "__main__", "report"), "face"),
}
#: Imports that go up today, each with the owner's fix; the test below fails when one is fixed (drop it here).
KNOWN_UPWARD: dict = {}


def layer_of(module: str) -> str | None:
    parts = module.removeprefix("identcheck").lstrip(".").split(".")
    if len(parts) > 1 or parts[0] in FOLDER_LAYER:
        return FOLDER_LAYER.get(parts[0])
    return ROOT_LAYER.get(parts[0])


def test_every_module_has_a_layer():
    graph, _ = import_graph(PACKAGE)
    assert [m for m in sorted(graph) if layer_of(m) is None] == []


def test_every_folder_is_a_layer_and_the_root_holds_no_helper():
    """A new folder must say which layer it is; the root holds only the modules named above."""
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert set(folders) <= set(FOLDER_LAYER)
    roots = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert roots == sorted(name or "__init__" for name in ROOT_LAYER)


def test_imports_go_down_or_sideways():
    graph, _ = import_graph(PACKAGE)
    level = {m: LAYERS.index(layer_of(m)) for m in graph}
    upward = {(m, t): f"{layer_of(m)} → {layer_of(t)}" for m in graph for t in graph[m] if level[t] > level[m]}
    assert sorted(upward) == sorted(KNOWN_UPWARD), upward


def test_the_layer_check_sees_an_upward_import():
    """A certificate module that imported the condition registry (above it) would be an upward edge."""
    assert LAYERS.index(layer_of("identcheck.conditions")) > LAYERS.index(layer_of("identcheck.rank.certificates"))
    assert layer_of("identcheck.scan.run") == "tools" and layer_of("identcheck.scan.plot") == "tools"
    assert layer_of("identcheck.conditions.deepseek") == "conditions" and layer_of("identcheck") == "face"
    assert layer_of("identcheck.util.pool") == "util" and layer_of("identcheck.results") == "util"
    assert layer_of("identcheck.nosuch") is None and layer_of("identcheck.nosuch.module") is None


# --- the public API (identcheck/__init__.py's lazy table) ----------------------------------------------------


def test_replay_and_the_error_types_are_public_and_light():
    """``from identcheck import InputError, Param`` loads no heavy library; ``replay`` is the function
    (not the module of the same name), loaded when it is first read."""
    code = (
        "import sys\nheavy = ('sympy', 'numpy', 'scipy', 'flint', 'identcheck.replay')\n"
        "from identcheck import InputError, Param, IdentcheckError\n"
        "print([m for m in heavy if m in sys.modules])\n"
        "assert issubclass(IdentcheckError, InputError) and str(Param('jobs', 0)) == 'jobs=0'\n"
        "from identcheck import replay\nimport identcheck.replay, identcheck\n"
        "print(replay.__module__, replay.__name__, identcheck.replay is replay)\n"
        "print(sorted({'replay', 'InputError', 'Param'} & set(identcheck.__all__) & set(dir(identcheck))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["[]", "identcheck.replay replay True", "['InputError', 'Param', 'replay']"]
