"""Reading a TOML table key by key: every refusal names the key's full path and says why.

A declaration's keys are spelled as a path, ``parts.routed.gate.kind``, with list elements by
index, ``parts.routed.truth[1].nu``; an error is an :class:`~identcheck.errors.IdentcheckError`
about that path (``param``) with the value found there, one line::

    parts.routed.gate.kind='softmx': unknown gate (did you mean softmax?); known: constant, …

Numbers are TOML integers or floats (never booleans) and are kept as Python floats, so ``6`` and
``6.0`` are the same value in the canonical form (:mod:`.canonical`).
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Collection
from typing import Any, NoReturn, TypeVar, overload

from ..errors import IdentcheckError

__all__ = ["Table", "fail", "key_path"]

_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
MISSING = object()  # no default given: the key is required
_T = TypeVar("_T")
#: what a missing key is, where "missing" alone would not say
_MISSING = {
    "truth": "missing: the truth's atoms, [[…truth]] tables",
    "terms": "missing: the loss terms, [[…terms]] tables",
}


def key_path(prefix: str, key: str | int) -> str:
    """``prefix`` extended by a table key (``a.b``) or a list index (``a[1]``)."""
    if isinstance(key, int):
        return f"{prefix}[{key}]"
    return f"{prefix}.{key}" if prefix else str(key)


def fail(key: str, value: object = MISSING, reason: str = "") -> NoReturn:
    """Raise the one-line error about ``key`` (its ``value`` echoed when given)."""
    if value is MISSING:
        raise IdentcheckError(param=key, reason=reason)
    raise IdentcheckError(param=key, value=value, reason=reason)


def suggestion(word: object, known: Collection[str]) -> str:
    """`` (did you mean X?)`` for the closest of ``known``, or ''."""
    close = difflib.get_close_matches(str(word), list(known), n=1)
    return f" (did you mean {close[0]}?)" if close else ""


class Table:
    """A TOML table being read: each ``get`` marks its key as known; :meth:`done` refuses the rest.

    A getter without a default returns the key's type (``text``: ``str``) and refuses a missing
    key; with a default, the key's type or the default's (``integer("fitted", None)``: ``int | None``).
    """

    def __init__(self, data: object, path: str):
        if not isinstance(data, dict):
            fail(path or "declaration", data, "expected a table")
        self.data: dict[str, Any] = data
        self.path = path
        self.read: set[str] = set()

    def key(self, name: str | int) -> str:
        return key_path(self.path, name)

    def has(self, name: str) -> bool:
        return name in self.data

    def raw(self, name: str, default: Any = MISSING) -> Any:
        self.read.add(name)
        if name not in self.data:
            if default is MISSING:
                fail(self.key(name), reason=_MISSING.get(name, "missing"))
            return default
        return self.data[name]

    def table(self, name: str, default: Any = MISSING) -> Table:
        value = self.raw(name, default)
        return Table({} if value is None else value, self.key(name))

    def _given(self, name: str, default: Any) -> tuple[bool, Any]:
        """(True, value) when the key is present, else (False, default); missing and required: refused."""
        value = self.raw(name, default)
        return (name in self.data), value

    @overload
    def text(self, name: str, *, choices: Collection[str] | None = None) -> str: ...
    @overload
    def text(self, name: str, default: _T, choices: Collection[str] | None = None) -> str | _T: ...
    def text(self, name: str, default: Any = MISSING, choices: Collection[str] | None = None) -> object:
        given, value = self._given(name, default)
        if not given:
            return value
        if not isinstance(value, str):
            fail(self.key(name), value, "expected a string")
        if choices is not None and value not in choices:
            fail(self.key(name), value, f"not one of {', '.join(choices)}{suggestion(value, choices)}")
        return value

    @overload
    def number(self, name: str) -> float: ...
    @overload
    def number(self, name: str, default: _T) -> float | _T: ...
    def number(self, name: str, default: Any = MISSING) -> object:
        given, value = self._given(name, default)
        return number(value, self.key(name)) if given else value

    @overload
    def integer(self, name: str, *, low: int = 1, high: int = 64) -> int: ...
    @overload
    def integer(self, name: str, default: _T, low: int = 1, high: int = 64) -> int | _T: ...
    def integer(self, name: str, default: Any = MISSING, low: int = 1, high: int = 64) -> object:
        given, value = self._given(name, default)
        if given and (isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high):
            fail(self.key(name), value, f"expected an integer from {low} to {high}")
        return value

    @overload
    def names(self, name: str) -> tuple[str, ...]: ...
    @overload
    def names(self, name: str, default: _T) -> tuple[str, ...] | _T: ...
    def names(self, name: str, default: Any = MISSING) -> object:
        given, value = self._given(name, default)
        if not given:
            return value
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            fail(self.key(name), value, 'expected a list of names, e.g. ["beta1", "e1"]')
        return tuple(value)

    def done(self) -> None:
        """Refuse a key nobody read (a misspelling, or a key this table does not have)."""
        for name in self.data:
            if name not in self.read:
                known = sorted(self.read)
                fail(self.key(name), reason=f"unknown key{suggestion(name, known)}; known here: {', '.join(known)}")


def number(value: object, key: str) -> float:
    """A finite TOML number as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        fail(key, value, "expected a number")
    if not math.isfinite(value):
        fail(key, value, "expected a finite number")
    return float(value)


def identifier(value: object, key: str) -> str:
    """A part's or a parameter's name: a letter, then letters, digits, underscores."""
    if not isinstance(value, str) or not _NAME.fullmatch(value) or len(value) > 20:
        fail(key, value, "a name is a letter then up to 19 letters, digits or underscores")
    return value
