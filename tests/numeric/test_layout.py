"""The numeric package's shape: imports flow one way, none hidden in a function, modules stay small.

Mirrors tests/identcheck/test_layout.py. One function-level import is allowed, and only of a heavy
optional library that cannot hide a cycle: matplotlib (kept lazy so that ``numeric`` and its CLI
start without it; only the figure functions need it).
"""

import ast
from pathlib import Path

import pytest

from tests.import_graph import find_cycle, import_graph, imported

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "numeric"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400
#: External modules a function may import lazily (heavy, optional, outside both packages).
LAZY_ALLOWED = ("matplotlib",)
#: The command lines import each command's modules inside the command (`numeric --help`
#: loads no numpy, scipy or sympy); nothing else in the package imports them, so their lazy imports
#: cannot hide a cycle — and the cycle check below counts them anyway. (The package root's lazy API
#: imports through importlib with names from a table; its TYPE_CHECKING block lists them at the top.)
ENTRY_POINTS = ("numeric.cli.main", "numeric.cli.parser", "numeric.confirm.cli", "numeric.__main__")


def _graph():
    """numeric's import graph, counting function-level imports too."""
    return import_graph(PACKAGE)


def test_no_import_inside_a_function_but_matplotlib():
    _, hidden = _graph()
    assert [h for h in hidden if h[1].split(".")[0] not in LAZY_ALLOWED and h[0] not in ENTRY_POINTS] == []


def test_no_intra_package_import_inside_a_function():
    _, hidden = _graph()
    assert [h for h in hidden if h[1].startswith("numeric") and h[0] not in ENTRY_POINTS] == []


def test_the_command_lines_import_lazily_and_only_they_import_each_other():
    graph, hidden = _graph()
    lazy = {h[1] for h in hidden if h[0] == "numeric.cli.main"}
    assert {"numeric.fitting.attention_fit", "numeric.experiments.sweep", "numeric.experiments.rates"} <= lazy
    assert "numeric.confirm.run" in {h[1] for h in hidden if h[0] == "numeric.confirm.cli"}
    assert [m for m, targets in graph.items() if m not in ENTRY_POINTS and set(targets) & set(ENTRY_POINTS)] == []


def test_the_import_graph_has_no_cycle():
    """Counting every import, also the ones inside functions."""
    graph, _ = _graph()
    assert find_cycle(graph, "numeric") is None


def test_identcheck_never_imports_numeric():
    """numeric builds on identcheck (the φ parser, the check); the other way round would be a cycle
    across the two packages."""
    offenders = []
    for path in sorted((ROOT / "identcheck").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            offenders += [(path.name, name) for name in names if name.split(".")[0] == "numeric"]
    assert offenders == []


def test_the_checks_see_what_they_should():
    """The scanner itself: it finds a hidden import and a cycle when there is one (guards against a
    test that passes because it sees nothing)."""
    tree_text = "import numpy\n\ndef f():\n    from ..fitting.attention_fit import fit\n    import matplotlib.pyplot\n"
    tree = ast.parse(tree_text)
    inner = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and n not in tree.body]
    known = {"numeric.fitting.attention_fit", "numeric.experiments.sweep"}
    names = [t for n in inner for t in imported("numeric.experiments.sweep", False, n, known)]
    assert names == ["numeric.fitting.attention_fit", "matplotlib.pyplot"]
    call = ast.parse('importlib.import_module("..fitting.attention_fit", __package__)').body[0].value
    assert imported("numeric.experiments.sweep", False, call, known) == ["numeric.fitting.attention_fit"]
    graph, _ = _graph()
    assert "numeric.fitting.optimizers" in graph["numeric.fitting.attention_fit"] and len(graph) == len(MODULES)
    assert "numeric.fitting.attention_fit" in graph["numeric.experiments.sweep"]  # through importlib


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES


#: The declared model's folders, bottom up: each imports only the folders before it (and numeric's
#: root modules): the array code knows no fit or loss, the losses know no fit.
DECLARED_LAYERS = ("model", "losses", "fitting")


def test_the_declared_model_folders_import_downwards():
    graph, _ = _graph()
    offenders = []
    for module, targets in graph.items():
        folder = module.split(".")[1] if module.count(".") else None
        if folder not in DECLARED_LAYERS:
            continue
        for target in targets:
            other = target.split(".")[1] if target.count(".") else None
            if other in DECLARED_LAYERS and DECLARED_LAYERS.index(other) > DECLARED_LAYERS.index(folder):
                offenders.append((module, target))
    assert offenders == []
    assert any(t.startswith("numeric.model") for t in graph["numeric.fitting.fit"])  # it sees the folders' imports
