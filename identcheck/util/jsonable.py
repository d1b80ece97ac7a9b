"""The JSON form of result values: typed values as JSON, and structural keys read back.

A result's ``to_dict`` writes tuples as lists (a relation's typed keys included), enums as their strings
and records by their own ``to_dict()`` (:func:`jsonable`); :func:`key_from_json` turns the lists of a
key back into tuples, so a key read from JSON equals the key the condition built.
"""

from __future__ import annotations

from enum import Enum
from typing import Mapping

__all__ = ["jsonable", "key_from_json"]


def jsonable(value):
    """A result value in its JSON form: tuples as lists (typed keys included), enums as their strings,
    records by their ``to_dict()``."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, Enum):
        return str(value.value)
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (tuple, list)):
        return [jsonable(v) for v in value]
    return value


def key_from_json(value):
    """A structural key read back from JSON: lists become tuples again (``["a", 0]`` → ``("a", 0)``)."""
    return tuple(key_from_json(v) for v in value) if isinstance(value, list) else value
