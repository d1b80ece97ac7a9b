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


def _imports(path: Path):
    """(module, top-level imports, [(function-level import, line)])."""
    module = _name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top, inner = set(), []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            targets = _imported(module, path.name == "__init__.py", node)
            if node in tree.body:
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
    graph, _ = _graph()
    assert "numeric.optimizers" in graph["numeric.fit"] and len(graph) == len(MODULES)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES
