"""A package whose public names are imported on first use: ``identcheck`` and ``numeric`` (docs/performance.md).

``lazy_package(__name__, api)`` at the end of a package's ``__init__`` gives it, for ``api``
(public name → the relative module that defines it):

- a module ``__getattr__`` (PEP 562) that imports a name's module the first time the name is read
  and keeps the value, so ``import identcheck`` loads no sympy, numpy or scipy, and
  ``from identcheck import check`` works as before;
- ``__dir__`` listing the public names before they are loaded;
- names that are also their module's name (``identcheck.check``, ``numeric.fit``) stay the
  function: the import system binds a submodule to its package when it loads it (``from .check
  import run`` anywhere would make ``identcheck.check`` the module), and the package's class
  refuses that binding for those names.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable

__all__ = ["lazy_package"]


def lazy_package(name: str, api: dict[str, str], computed: dict[str, Callable[[], object]] | None = None) -> None:
    """Make the package ``name`` (already in ``sys.modules``) import each name of ``api`` on first use.

    ``computed`` maps further attributes (``__version__``) to the function that gives their value,
    called on first use too; they are not public names of the API (not in ``__all__``).
    """
    package = sys.modules[name]
    shadowed = frozenset(public for public, module in api.items() if module == "." + public)
    computed = computed or {}

    def __getattr__(attribute: str) -> object:
        if attribute in computed:
            value = computed[attribute]()
        elif attribute in api:
            value = getattr(importlib.import_module(api[attribute], name), attribute)
        else:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        setattr(package, attribute, value)  # imported once
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(package)) | set(api) | set(computed))

    class LazyPackage(types.ModuleType):
        def __setattr__(self, attribute, value):
            if attribute in shadowed and isinstance(value, types.ModuleType):
                return
            super().__setattr__(attribute, value)

    vars(package).update(__getattr__=__getattr__, __dir__=__dir__)  # PEP 562 reads them from the module's namespace
    package.__class__ = LazyPackage
