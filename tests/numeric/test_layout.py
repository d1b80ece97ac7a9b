"""The numeric package's shape: imports flow one way, none hidden in a function, modules stay small.

Mirrors tests/identcheck/test_layout.py. One function-level import is allowed, and only of a heavy
optional library that cannot hide a cycle: matplotlib (kept lazy so that ``numeric`` and its CLI
start without it; only the figure functions need it).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "numeric"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400
#: External modules a function may import lazily (heavy, optional, outside both packages).
LAZY_ALLOWED = ("matplotlib",)


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


KNOWN = {_name(p) for p in MODULES}


def _imported(module: str, is_package: bool, node) -> list[str]:
    """Every module name ``node`` imports (absolute; a package's own modules resolved)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".")
        parts = parts if is_package else parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    if not base.startswith("numeric"):
        return [base]
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [n for n in names if n in KNOWN] or [base]


def _dynamic(module: str, is_package: bool, node) -> list[str]:
    """``importlib.import_module("name" or ".name", __package__)`` as the module it imports."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and func.attr == "import_module" and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return []
    name = node.args[0].value
    if not name.startswith("."):
        return [name]
    level = len(name) - len(name.lstrip("."))
    parts = module.split(".")
    parts = parts if is_package else parts[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return [".".join(parts + [name.lstrip(".")])]


def _imports(path: Path):
    """(module, top-level imports, [(function-level import, line)]); importlib.import_module counts."""
    module = _name(path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    outside = {id(n) for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               for n in ast.walk(stmt)}
    top, inner = set(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            targets = _imported(module, is_package, node)
        elif isinstance(node, ast.Call):
            targets = _dynamic(module, is_package, node)
        else:
            continue
        if id(node) in outside:
            top.update(targets)
        else:
            inner.extend((target, node.lineno) for target in targets)
    return module, top, inner


def _graph():
    """numeric's import graph, counting function-level imports too."""
    graph, hidden = {}, []
    for path in MODULES:
        module, top, inner = _imports(path)
        graph[module] = {t for t in top | {t for t, _ in inner} if t.startswith("numeric")} - {module}
        hidden += [(module, target, line) for target, line in inner]
    return graph, hidden


def test_no_import_inside_a_function_but_matplotlib():
    _, hidden = _graph()
    assert [h for h in hidden if h[1].split(".")[0] not in LAZY_ALLOWED] == []


def test_no_intra_package_import_inside_a_function():
    _, hidden = _graph()
    assert [h for h in hidden if h[1].startswith("numeric")] == []


def test_the_import_graph_has_no_cycle():
    """Counting every import, also the ones inside functions."""
    graph, _ = _graph()
    state = {}

    def visit(node, path):
        if state.get(node) == "done":
            return
        assert state.get(node) != "open", "import cycle: " + " -> ".join(path + [node])
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if nxt != "numeric":  # the package root re-exports
                visit(nxt, path + [node])
        state[node] = "done"

    for module in sorted(graph):
        visit(module, [])


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
    tree_text = "import numpy\n\ndef f():\n    from .fit import fit\n    import matplotlib.pyplot\n"
    tree = ast.parse(tree_text)
    inner = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) and n not in tree.body]
    names = [t for n in inner for t in _imported("numeric.sweep", False, n)]
    assert names == ["numeric.fit", "matplotlib.pyplot"]
    call = ast.parse('importlib.import_module(".fit", __package__)').body[0].value
    assert _dynamic("numeric.sweep", False, call) == ["numeric.fit"]
    graph, _ = _graph()
    assert "numeric.optimizers" in graph["numeric.fit"] and len(graph) == len(MODULES)
    assert "numeric.fit" in graph["numeric.sweep"]  # through importlib


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES
