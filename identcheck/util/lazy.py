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

__all__ = ["lazy_package"]


def lazy_package(name: str, api: dict) -> None:
    """Make the package ``name`` (already in ``sys.modules``) import each name of ``api`` on first use."""
    package = sys.modules[name]
    shadowed = frozenset(public for public, module in api.items() if module == "." + public)

    def __getattr__(attribute: str):
        if attribute not in api:
            raise AttributeError(f"module {name!r} has no attribute {attribute!r}")
        value = getattr(importlib.import_module(api[attribute], name), attribute)
        setattr(package, attribute, value)  # imported once
        return value

    def __dir__():
        return sorted(set(vars(package)) | set(api))

    class LazyPackage(types.ModuleType):
        def __setattr__(self, attribute, value):
            if attribute in shadowed and isinstance(value, types.ModuleType):
                return
            super().__setattr__(attribute, value)

    package.__getattr__ = __getattr__
    package.__dir__ = __dir__
    package.__class__ = LazyPackage
