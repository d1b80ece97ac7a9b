"""The registry of conditions: name → :class:`~identcheck.conditions.base.Condition` subclass.

Adding a condition is one module in this package and one entry here (docs/architecture.md). A
condition's module is imported the first time the condition is read from the registry: a type-1
check loads neither the DeepSeek modules nor the other conditions it does not ask for (issue 23 §5).
"""

import importlib
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING

from .base import Condition, ProbeMatrix

if TYPE_CHECKING:  # the registered classes, for readers and type checkers; at run time imported on first use
    from .deepseek import DeepSeekRouted, DeepSeekShared, DeepSeekWeak  # noqa: F401
    from .mha import MHA  # noqa: F401
    from .type1 import Type1  # noqa: F401
    from .type1_full import Type1Full  # noqa: F401
    from .type2 import Type2  # noqa: F401

__all__ = ["CONDITIONS", "Condition", "ProbeMatrix"]


class _Registry(MutableMapping):
    """name → Condition subclass, like a dict; an entry given as ``(module, class name)`` is
    imported when it is first read (iterating over the names, ``in``, ``len`` import nothing)."""

    def __init__(self, entries: dict):
        self._entries = dict(entries)

    def __getitem__(self, name: str) -> type[Condition]:
        entry = self._entries[name]
        if isinstance(entry, tuple):
            module, cls = entry
            entry = self._entries[name] = getattr(importlib.import_module(module, __name__), cls)
        return entry

    def __setitem__(self, name: str, cls: type[Condition]) -> None:
        self._entries[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"CONDITIONS({', '.join(self._entries)})"


#: type1: Setting I (gate after the value projection); type2: Setting II (after the SDPA output);
#: mha: no gate, the linear expert u = exp(xᵀMx)·aᵀx (the contrast: PDE (5) makes it fail);
#: type1-full: T1 ∪ the softmax-denominator terms of Theorem 2's decomposition (Appendix B.2);
#: deepseek-shared / -routed / -weak: an expert h(x; θ)'s sets of arXiv 2505.10860 (Definitions 1 and 2).
CONDITIONS: MutableMapping[str, type[Condition]] = _Registry(
    {
        "type1": (".type1", "Type1"),
        "type2": (".type2", "Type2"),
        "mha": (".mha", "MHA"),
        "type1-full": (".type1_full", "Type1Full"),
        "deepseek-shared": (".deepseek", "DeepSeekShared"),
        "deepseek-routed": (".deepseek", "DeepSeekRouted"),
        "deepseek-weak": (".deepseek", "DeepSeekWeak"),
    }
)
