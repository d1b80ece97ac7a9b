"""The import graph of a package, read from its source with ``ast`` (shared by the layout tests).

Every ``import``/``from … import`` and every ``importlib.import_module("…")`` with a literal name
counts; relative names are resolved; ``from pkg import name`` is the module ``pkg.name`` when that
module exists. Imports inside a function or class body are "inner" (they can hide a cycle).
"""

import ast
from pathlib import Path


def module_name(path: Path, package_dir: Path) -> str:
    parts = path.relative_to(package_dir.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    parts = module.split(".")
    parts = parts if is_package else parts[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def imported(module: str, is_package: bool, node, known: set) -> list[str]:
    """Every module name ``node`` (an Import, ImportFrom or import_module call) imports."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        base = node.module or "" if node.level == 0 else _absolute(module, is_package, node.level, node.module)
        names = [f"{base}.{alias.name}" for alias in node.names]
        return [n for n in names if n in known] or [base]
    func = node.func
    if not (
        isinstance(func, ast.Attribute)
        and func.attr == "import_module"
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    ):
        return []
    name = node.args[0].value
    if not name.startswith("."):
        return [name]
    level = len(name) - len(name.lstrip("."))
    return [_absolute(module, is_package, level, name.lstrip("."))]


def import_graph(package_dir: Path):
    """(graph: module → the package's modules it imports anywhere, inner: [(module, target, line)])."""
    paths = sorted(package_dir.rglob("*.py"))
    known = {module_name(p, package_dir) for p in paths}
    package = package_dir.name
    graph, inner = {}, []
    for path in paths:
        module = module_name(path, package_dir)
        is_package = path.name == "__init__.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        outside = {
            id(n)
            for stmt in tree.body
            if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for n in ast.walk(stmt)
        }
        targets_all = set()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom, ast.Call)):
                continue
            targets = imported(module, is_package, node, known)
            targets_all.update(targets)
            if targets and id(node) not in outside:
                inner += [(module, target, node.lineno) for target in targets]
        graph[module] = {t for t in targets_all if t == package or t.startswith(package + ".")} - {module}
    return graph, inner


def find_cycle(graph: dict, root: str) -> list | None:
    """One import cycle among the modules (the package root, which re-exports, is not followed)."""
    state: dict = {}

    def visit(node, path):
        if state.get(node) == "done":
            return None
        if state.get(node) == "open":
            return path[path.index(node) :] + [node]
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if nxt != root:
                cycle = visit(nxt, path + [node])
                if cycle:
                    return cycle
        state[node] = "done"
        return None

    for module in sorted(graph):
        cycle = visit(module, [])
        if cycle:
            return cycle
    return None
