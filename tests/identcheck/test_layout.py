"""The package's shape: imports flow one way, none hidden in a function, modules stay small."""

from pathlib import Path

import pytest

from tests.import_graph import find_cycle, import_graph

PACKAGE = Path(__file__).resolve().parents[2] / "identcheck"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400
#: The command line imports each command's modules inside the command (issue 23 §5: a command loads
#: only what it needs); nothing in the package imports it, so its lazy imports cannot hide a cycle —
#: and the cycle check below counts them anyway. (The package root's lazy API imports through
#: importlib with names from a table; its TYPE_CHECKING block lists them at the top.)
ENTRY_POINTS = ("identcheck.cli", "identcheck.__main__")


def test_no_intra_package_import_inside_a_function():
    _, inner = import_graph(PACKAGE)
    assert [i for i in inner if i[1].startswith("identcheck") and i[0] not in ENTRY_POINTS] == []


def test_the_command_line_imports_lazily_and_nothing_imports_it():
    graph, inner = import_graph(PACKAGE)
    assert {"identcheck.check", "identcheck.scan.run", "identcheck.catalog"} <= {
        i[1] for i in inner if i[0] == "identcheck.cli"
    }
    assert [m for m, targets in graph.items() if m not in ENTRY_POINTS and set(targets) & set(ENTRY_POINTS)] == []


def test_the_import_graph_has_no_cycle():
    """Counting every import, also the ones inside functions."""
    graph, _ = import_graph(PACKAGE)
    assert len(graph) == len(MODULES) and "identcheck.rank" in graph["identcheck.check"]  # it sees imports
    assert find_cycle(graph, "identcheck") is None


def test_the_cycle_finder_finds_one():
    graph = {"p.a": {"p.b"}, "p.b": {"p.c", "p"}, "p.c": {"p.a"}, "p": {"p.a"}}
    assert find_cycle(graph, "p") == ["p.a", "p.b", "p.c", "p.a"]
    assert find_cycle({"p.a": {"p"}, "p": {"p.a"}}, "p") is None  # the root re-exports


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES
