"""The package's shape: imports flow one way, none hidden in a function, modules stay small."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "identcheck"
MODULES = sorted(PACKAGE.rglob("*.py"))
MAX_LINES = 400


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _target(module: str, is_package: bool, node: ast.ImportFrom) -> list[str]:
    """Modules of the package that ``node`` imports (relative or absolute)."""
    if node.level == 0:
        base = node.module or ""
    else:
        parts = module.split(".")
        parts = parts if is_package else parts[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([node.module] if node.module else []))
    if not base.startswith("identcheck"):
        return []
    known = {_name(p) for p in MODULES}
    names = [f"{base}.{alias.name}" for alias in node.names]
    return [n for n in names if n in known] or [base]


def _graph():
    graph, hidden = {}, []
    for path in MODULES:
        module = _name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                targets = _target(module, path.name == "__init__.py", node)
                top.update(targets)
                if targets and node not in tree.body:
                    hidden.append((module, targets))
        graph[module] = top - {module}
    return graph, hidden


def test_no_intra_package_import_inside_a_function():
    _, hidden = _graph()
    assert hidden == []


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
            if nxt.startswith("identcheck") and nxt != "identcheck":  # the package root re-exports
                visit(nxt, path + [node])
        state[node] = "done"

    for module in sorted(graph):
        visit(module, [])


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_modules_stay_small(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_LINES
