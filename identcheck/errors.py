"""The exception types for bad input, and the parameters their messages name.

An error about one parameter is built from its parts::

    raise IdentcheckError(param="jobs", value=0, reason="must be from 1 to 64")

and carries them (``exc.param``, ``exc.value``, ``exc.reason``); ``str(exc)`` reads as the API
spells it, ``jobs=0: must be from 1 to 64``. A mapping's entry names its key
(``param="params", key="b"``: ``params={'b': …}``), a sequence's element its index
(``param="ns", index=3``: ``ns[3]=…``); ``shown`` is the value's text when it is not
``repr(value)``. A reason may name other parameters: give it as a tuple of text and
:class:`Param` pieces (``("set ", Param("params", key="b", shown="VALUE"), " first")``).
An error that is about no one parameter keeps a plain message (``IdentcheckError("…")``).

The command lines spell each :class:`Param` as the flag the user typed
(:func:`identcheck.cli.common.render_error`): ``--jobs 0: must be from 1 to 64``. Imports
nothing: the command lines raise these before numpy loads.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["IdentcheckError", "InputError", "Param"]

_NO_VALUE = object()  # a parameter named without a value (``set params``)


@dataclass(frozen=True)
class Param:
    """A parameter as a message names it: the API's ``name``, its ``value`` (``shown`` as text),
    and a ``key`` (an entry of a mapping) or an ``index`` (an element of a sequence)."""

    name: str
    value: object = _NO_VALUE
    key: str | None = None
    index: int | None = None
    shown: str | None = None

    @property
    def text(self) -> str:
        """The value as the message writes it ('' when there is none)."""
        if self.shown is not None:
            return self.shown
        return "" if self.value is _NO_VALUE else repr(self.value)

    def __str__(self) -> str:  # the API's spelling
        if self.key is not None:
            return f"{self.name}={{{self.key!r}: {self.text}}}"
        where = "" if self.index is None else f"[{self.index}]"
        return f"{self.name}{where}={self.text}" if self.text else self.name


class InputError(ValueError):
    """Bad input: the message names the input, echoes its value and says why.

    The base of :class:`IdentcheckError` and ``numeric``'s ``NumericError``; the command lines
    turn it into a one-line error on stderr and exit code 2.
    """

    def __init__(
        self,
        message: str | None = None,
        *,
        param: str | None = None,
        value=_NO_VALUE,
        reason=None,
        key: str | None = None,
        index: int | None = None,
        shown: str | None = None,
    ):
        if message is not None:
            if param is not None or reason is not None:
                raise TypeError("give either a message or param=/reason=, not both")
            subject, parts = None, (str(message),)
        else:
            if reason is None:
                raise TypeError("an error needs a message or a reason")
            subject = None if param is None else Param(param, value, key=key, index=index, shown=shown)
            parts = tuple(reason) if isinstance(reason, tuple) else (str(reason),)
        self.subject, self.parts = subject, parts
        super().__init__(self.spelled(str))

    @property
    def param(self) -> str | None:
        """The parameter the error is about (None for a plain message)."""
        return None if self.subject is None else self.subject.name

    @property
    def value(self):
        """The parameter's value as given (None for a plain message or a parameter named without one)."""
        return None if self.subject is None or self.subject.value is _NO_VALUE else self.subject.value

    @property
    def reason(self) -> str:
        """Why the value is refused, as the API spells it (the whole message for a plain one)."""
        return "".join(str(part) for part in self.parts)

    def spelled(self, spell) -> str:
        """The message with each :class:`Param` written by ``spell`` (``str``: the API's spelling)."""
        reason = "".join(spell(part) if isinstance(part, Param) else part for part in self.parts)
        return reason if self.subject is None else f"{spell(self.subject)}: {reason}"


class IdentcheckError(InputError):
    """Bad input to identcheck (see :class:`InputError`)."""
