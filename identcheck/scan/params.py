"""A scan's parameters as given (:mod:`identcheck.scan`): ``NAME=LO:HI:COUNT`` and ``NAME=VALUE`` read
exactly, validated into scanned :class:`Axis` es and fixed values. Every error names its input and says
why — the API's ``params`` entry (``params={'b': (0, 1, 1)}: COUNT 1 must be …``), the command line's
text as typed (``--param 'b=0:1:1': COUNT 1 must be …``)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

import sympy as sp

from ..errors import IdentcheckError, Param
from ..parse.grammar import parse_param
from ..util.limits import MAX_COUNT, MAX_VALUES

__all__ = ["Axis", "axis_from", "exact", "number", "parse_scan_param", "split_params"]


def parse_scan_param(text: str):
    """``NAME=LO:HI:COUNT`` → (name, (lo, hi, count)); ``NAME=VALUE`` → (name, value). Errors name ``text``."""
    name, sep, value = text.partition("=")
    if value.count(":") == 0:
        return parse_param(text)
    parts = value.split(":")
    if len(parts) != 3:
        why = "expected NAME=LO:HI:COUNT (e.g. b=-2:2:81) or NAME=VALUE"
        raise IdentcheckError(param="param", value=text, reason=why)
    _, lo = parse_param(f"{name}={parts[0]}")
    _, hi = parse_param(f"{name}={parts[1]}")
    if not re.fullmatch(r"\s*\d{1,6}\s*", parts[2]):
        raise IdentcheckError(param="param", value=text, reason=f"COUNT {parts[2]!r} is not a positive integer")
    try:
        return name.strip(), _range(axis_from(name.strip(), (lo, hi, int(parts[2]))))
    except IdentcheckError as exc:  # about the range as typed: --param 'b=0:1:1'
        raise IdentcheckError(param="param", value=text, reason=exc.reason) from None


def exact(name, value, positive=False, key=None):
    """``value`` as an exact rational (int, Fraction, sympy Rational; a float as the decimal it prints as)."""
    if isinstance(value, sp.Basic) and value.is_Rational:
        exact = value
    elif isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise IdentcheckError(param=name, key=key, value=value, reason="expected a number")
    elif isinstance(value, float) and not math.isfinite(value):
        raise IdentcheckError(param=name, key=key, value=value, reason="not a finite number")
    else:
        exact = sp.Rational(str(value)) if isinstance(value, float) else sp.Rational(value)
    if positive and exact <= 0:
        raise IdentcheckError(param=name, key=key, value=value, reason="must be positive")
    return exact


def axis_from(name, value) -> Axis:
    """A scanned parameter from ``params[name]`` = (LO, HI, COUNT); errors name that entry."""

    def refuse(reason):
        return IdentcheckError(param="params", key=name, value=value, reason=reason)

    if not isinstance(value, tuple) or len(value) != 3:
        raise refuse(reason="a scanned parameter is (LO, HI, COUNT)")
    ends = []
    for end, v in zip(("LO", "HI"), value):
        try:
            ends.append(exact("params", v, key=name))
        except IdentcheckError as exc:
            raise refuse(reason=f"{end} {v!r}: {exc.reason}") from None
    count = value[2]
    if ends[0] >= ends[1]:
        raise refuse(reason=f"LO must be below HI ({number(ends[0])} is not below {number(ends[1])})")
    if isinstance(count, bool) or not isinstance(count, int) or not 2 <= count <= MAX_COUNT:
        why = f"COUNT {count!r} must be an integer from 2 to {MAX_COUNT} (the grid values from LO to HI)"
        raise refuse(reason=why)
    return Axis(name, ends[0], ends[1], count)


def split_params(text: str, params, subject: str = "phi") -> tuple[list, list]:
    """Validate a scan's ``params``: (axes, fixed) — one or two scanned, every name used by ``text`` (the
    ``subject`` of the condition, :attr:`~identcheck.conditions.base.Condition.subject`: ``phi`` or ``expert``)."""
    if not isinstance(params, Mapping):
        raise IdentcheckError(
            param="params", value=params, reason="expected a mapping name -> value or (lo, hi, count)"
        )
    axes, fixed = [], []
    for name, value in params.items():
        if not re.search(rf"\b{re.escape(name)}\b", text):
            raise IdentcheckError(
                param="param", value=name, shown=name, reason=(Param(subject, text), f" does not use {name!r}")
            )
        if isinstance(value, tuple):
            axes.append(axis_from(name, value))
        else:
            fixed.append((name, exact("params", value, key=name)))
    if not axes:
        why = (
            "nothing to scan; give one or two parameters a range: (LO, HI, COUNT), on the command line NAME=LO:HI:COUNT"
        )
        raise IdentcheckError(param="params", reason=why)
    if len(axes) > 2:
        names = ", ".join(a.name for a in axes)
        raise IdentcheckError(
            param="params", reason=f"{len(axes)} scanned parameters ({names}); a scan takes one or two"
        )
    total = math.prod(a.count for a in axes)
    if total > MAX_VALUES:
        raise IdentcheckError(param="params", reason=f"{total} grid values; at most {MAX_VALUES} (e.g. 51 x 51)")
    return axes, fixed


def number(value) -> str:
    """An exact parameter value as text: integers and fractions as such, else sympy's string."""
    return str(sp.nsimplify(value)) if not isinstance(value, sp.Basic) else str(value)


@dataclass(frozen=True, slots=True)
class Axis:
    """One scanned parameter: COUNT equally spaced exact values from LO to HI."""

    name: str
    lo: sp.Rational
    hi: sp.Rational
    count: int

    @property
    def values(self) -> tuple:
        step = (self.hi - self.lo) / (self.count - 1)
        return tuple(self.lo + i * step for i in range(self.count))

    def to_dict(self) -> dict:
        return {"name": self.name, "lo": number(self.lo), "hi": number(self.hi), "count": self.count}


def _range(axis: Axis) -> tuple:
    return axis.lo, axis.hi, axis.count
