"""The registry of conditions: name → :class:`~identcheck.conditions.base.Condition` subclass.

Adding a condition is one module in this package and one entry here (docs/architecture.md). A
condition's module is imported the first time the condition is read from the registry: a type-1
check loads neither the DeepSeek modules nor the other conditions it does not ask for (docs/performance.md, Start-up).

A condition from outside the package is registered in the process (``CONDITIONS["toy"] = Toy``) or
by an installed package, through the entry-point group ``identcheck.conditions``::

    [project.entry-points."identcheck.conditions"]
    toy = "toy_condition:Toy"

The installed plug-ins are read (importlib.metadata) only when a name that is not built in is asked
for, or the list of names: a check of a built-in condition never looks (``identcheck --help`` and a
type-1 check load nothing more). A plug-in's module is imported when its condition is first read. A
bad plug-in — a name that is a built-in condition's, a module that does not import, an object that is
not a :class:`Condition` subclass or whose ``name`` is not its entry point's — is a one-line
IdentcheckError naming the plug-in (its distribution and entry point) and why. A registration in the
process is checked the same way when it is made (``CONDITIONS["my-routed"] = DeepSeekRouted`` is
refused: a result records the class's ``name``; ``class MyRouted(DeepSeekRouted): name = "my-routed"``
is the way), and ``both`` is reserved.
"""

import difflib
import importlib
import inspect
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING

from ..errors import IdentcheckError
from ..util.lazy import lazy_package
from .base import SUBJECTS, Condition, ProbeMatrix

if TYPE_CHECKING:  # the plug-in kit (below), for readers and type checkers; at run time imported on first use
    from ..families.base import Template
    from ..families.proofs import is_exact_zero
    from ..families.relations import explain_null_space
    from ..rank.rule import DEFAULT_LADDER
    from ..scope import Scope
    from ..terms.compile import CompiledTerms
    from ..terms.probes import Component, Probe
    from ..terms.recipes import Derivatives, Product, SetRecipe, XMultiplied
    from ..terms.type1 import phi_placeholder, substitute_phi
    from .deepseek import ExpertCondition
if TYPE_CHECKING:  # the registered classes, for readers and type checkers; at run time imported on first use
    from .deepseek import DeepSeekRouted, DeepSeekShared, DeepSeekWeak  # noqa: F401
    from .mha import MHA  # noqa: F401
    from .type1 import Type1  # noqa: F401
    from .type1_full import Type1Full  # noqa: F401
    from .type2 import Type2  # noqa: F401

#: The plug-in kit: what a condition written outside the package needs besides :class:`Condition` and
#: :class:`ProbeMatrix` (docs/conditions/your-own.md; tests/identcheck/toy_condition.py and
#: toy_expert_condition.py use nothing else). Name → the module that defines it, imported when the
#: name is first read: ``import identcheck.conditions`` loads no DeepSeek condition and no recipe.
_KIT = {
    "DEFAULT_LADDER": "..rank.rule",
    "Scope": "..scope",
    **dict.fromkeys(("Component", "Probe"), "..terms.probes"),
    "CompiledTerms": "..terms.compile",
    **dict.fromkeys(("phi_placeholder", "substitute_phi"), "..terms.type1"),
    **dict.fromkeys(("Derivatives", "Product", "SetRecipe", "XMultiplied"), "..terms.recipes"),
    "Template": "..families.base",
    "explain_null_space": "..families.relations",
    "is_exact_zero": "..families.proofs",
    "ExpertCondition": ".deepseek",
}
lazy_package(__name__, _KIT)

__all__ = [
    "CONDITIONS",
    "GROUP",
    "SUBJECTS",
    "Condition",
    "ProbeMatrix",
    "judging",
    "unknown_condition",
    # the plug-in kit
    "CompiledTerms",
    "Component",
    "DEFAULT_LADDER",
    "Derivatives",
    "ExpertCondition",
    "Probe",
    "Product",
    "Scope",
    "SetRecipe",
    "Template",
    "XMultiplied",
    "explain_null_space",
    "is_exact_zero",
    "phi_placeholder",
    "substitute_phi",
]


#: The entry-point group an installed package registers its conditions in (``name = "module:Class"``).
GROUP = "identcheck.conditions"
#: Names a plug-in may not take besides the built-in conditions': ``identcheck check --condition both``
#: (the command line's name for type1 and type2 in one run; not a condition).
RESERVED = ("both",)


class _Registry(MutableMapping):
    """name → Condition subclass, like a dict; an entry given as ``(module, class name)`` is
    imported when it is first read (``in`` and iteration over the built-in names import nothing).
    The installed plug-ins (:data:`GROUP`) are read the first time a name that is not in the
    registry is asked for, or when the iteration goes past the names already registered."""

    def __init__(self, entries: dict):
        self._entries = dict(entries)
        self._builtin = frozenset(self._entries)
        self._discovered = False

    def __getitem__(self, name: str) -> type[Condition]:
        if name not in self._entries:
            self._discover()
        entry = self._entries[name]
        if isinstance(entry, tuple):
            module, cls = entry
            entry = self._entries[name] = getattr(importlib.import_module(module, __name__), cls)
        elif isinstance(entry, _Plugin):
            entry = self._entries[name] = entry.load()
        return entry

    def __setitem__(self, name: str, cls: type[Condition]) -> None:
        """Register ``cls`` as ``name``, checked as an installed plug-in is: not a reserved name, a concrete
        Condition subclass whose ``name`` is ``name`` (a result records it; replay reads the class by it)."""
        label = cls.__qualname__ if isinstance(cls, type) else repr(cls)[:40]
        why = f"{name!r} is reserved (check --condition both: type1 and type2)" if name in RESERVED else None
        why = why or _refusal(cls, name, label)
        if why is not None:
            raise IdentcheckError(param="condition", value=name, reason=f"CONDITIONS[{name!r}] = {label}: {why}")
        self._entries[name] = cls

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __contains__(self, name) -> bool:
        if name not in self._entries:
            self._discover()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        known = list(self._entries)
        yield from known  # a search that stops among them (check's option defaults) reads no plug-in
        self._discover()
        yield from (name for name in list(self._entries) if name not in known)

    def __len__(self) -> int:
        self._discover()
        return len(self._entries)

    def __repr__(self) -> str:
        return f"CONDITIONS({', '.join(self._entries)})"

    def _discover(self) -> None:
        """Add the installed plug-ins, once; a name registered in the process keeps its class."""
        if self._discovered:
            return
        found: dict[str, _Plugin] = {}
        for point in _entry_points():
            plugin = _Plugin(point)
            if point.name in self._builtin or point.name in RESERVED:
                raise IdentcheckError(f"{plugin}: {point.name!r} is a built-in condition's name; rename the plug-in")
            if point.name in found:
                raise IdentcheckError(f"{plugin}: {point.name!r} is also the name of {found[point.name]}")
            found[point.name] = plugin
        for name, plugin in found.items():
            self._entries.setdefault(name, plugin)
        self._discovered = True


def _entry_points():
    """The entry points of :data:`GROUP` in the installed distributions."""
    import importlib.metadata  # the standard library's; loaded only when a plug-in is looked for

    return importlib.metadata.entry_points(group=GROUP)


class _Plugin:
    """An installed plug-in's entry point, loaded and checked when its condition is first read."""

    def __init__(self, point):
        self.point = point

    def __str__(self) -> str:
        dist = self.point.dist
        package = f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
        return f"plug-in {self.point.name} = {self.point.value} ({package}, entry point group {GROUP})"

    def load(self) -> type[Condition]:
        name = self.point.name
        if not self.point.attr:
            self._refuse("names a module, not a class: write module:Class")
        try:
            cls = self.point.load()
        except Exception as exc:  # whatever the plug-in's import raised: one line naming the plug-in
            self._refuse(f"cannot be imported ({type(exc).__name__}: {' '.join(str(exc).split())})")
        why = _refusal(cls, name, self.point.attr)
        if why is not None:
            self._refuse(why)
        return cls

    def _refuse(self, why: str):
        raise IdentcheckError(param="condition", value=self.point.name, reason=f"{self}: {why}")


def _refusal(cls, name: str, label: str) -> str | None:
    """Why ``cls`` (written ``label``) cannot be the condition ``name``; None when it is a concrete
    :class:`Condition` subclass whose ``name`` is ``name``. For a plug-in and a registration in the process."""
    if not (isinstance(cls, type) and issubclass(cls, Condition)):
        what = f"the class {cls.__module__}.{cls.__qualname__}" if isinstance(cls, type) else type(cls).__name__
        return f"is not a Condition subclass: {label} is {what}"
    if inspect.isabstract(cls):
        return f"does not implement {', '.join(sorted(cls.__abstractmethods__))}"
    if getattr(cls, "name", None) != name:
        return f"its class's name is {getattr(cls, 'name', None)!r}, not {name!r} (a result records it)"
    return None


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


def unknown_condition(name, param: str = "condition", extra=()) -> IdentcheckError:
    """The one refusal of a condition ``name`` that is not registered: its close match, then every name.

    Parameters
    ----------
    name : str
        The condition asked for.
    param : str
        The input that named it (``"condition"``), for the message.
    extra : iterable of str
        Names a command adds to the registered ones (the command line's ``both``).

    Returns
    -------
    IdentcheckError
        To raise: ``unknown condition (did you mean …?); available: …`` with the installed plug-ins' names too.
    """
    choices = [*CONDITIONS, *extra]
    close = difflib.get_close_matches(name, choices, n=1) if isinstance(name, str) else []
    hint = f" (did you mean {close[0]}?)" if close else ""
    return IdentcheckError(param=param, value=name, reason=f"unknown condition{hint}; available: {', '.join(choices)}")


def judging(subject) -> list[str]:
    """The registered conditions whose :attr:`~Condition.subject` is ``subject``.

    Reads every registered class (the plug-ins' too): meant for messages, not for a check's path.

    Parameters
    ----------
    subject : {"phi", "expert", None}
        What the user's text is (:data:`SUBJECTS`).

    Returns
    -------
    list of str
        Their registry names.
    """
    if subject not in SUBJECTS:
        raise ValueError(f"subject={subject!r}: one of {SUBJECTS}")
    return [name for name in CONDITIONS if CONDITIONS[name].subject == subject]
