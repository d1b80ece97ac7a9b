"""Constants as the user wrote them, in the text reports: ``1.702*z``, not ``851*z/500``.

φ is read exactly (``1.702`` is 851/500), and what is derived from it — a family hypothesis
``φ(−z) = φ(z) − 851*z/500``, a proof step — is printed by sympy in exact rationals. The text and
markdown reports show each rational equal to a decimal written in φ (or in a ``--param`` value)
as it was written (:attr:`identcheck.parse.activation.Activation.written_numbers`); other rationals,
and the JSON, stay exact. Display only: nothing reads these strings back.
"""

from __future__ import annotations

import re
from fractions import Fraction

__all__ = ["with_written_numbers"]

#: a rational as sympy prints it: 851/500, 851*z/500, 851*z**3/500, and 851*z/(500*(…)) before a product
_PRINTED_RATIONAL = re.compile(r"(?<![\w.])(\d+)((?:\*z(?:\*\*\d+)?)?)/(?:(\d+)(?![\w.*])|\((\d+)\*)")


def with_written_numbers(text: str, numbers) -> str:
    """``text`` with each printed rational equal to one of φ's written decimals shown as written.

    ``numbers`` are (exact value, as written) pairs (:attr:`Activation.written_numbers`):
    ``'φ(−z) = φ(z) − 851*z/500'`` with ``((851/500, '1.702'),)`` → ``'φ(−z) = φ(z) − 1.702*z'``,
    and ``851*z/(500*(exp(z) + 1))`` → ``1.702*z/(exp(z) + 1)``. Other rationals are left as they
    are; the JSON keeps every value exact.
    """
    if not numbers:
        return text
    written = {Fraction(int(v.p), int(v.q)): shown for v, shown in numbers}
    out, position = [], 0
    for match in _PRINTED_RATIONAL.finditer(text):
        if match.start() < position:
            continue
        over_product = match[4] is not None  # p*z/(q*X) = (p/q)*z/X
        shown = written.get(Fraction(int(match[1]), int(match[4] if over_product else match[3])))
        if shown is None:
            continue
        if over_product:
            close = _closing(text, match.end() - len(match[4]) - 2)
            inner = text[match.end() : close]
            if _top_level_sum(inner):  # 851*z/(500*x + 1): 500 is no factor of the denominator
                continue
            single = inner.startswith("(") and _closing(text, match.end()) == close - 1
            out.append(
                text[position : match.start()] + shown + match[2] + ("/" + inner if single else "/(" + inner + ")")
            )
            position = close + 1
        else:
            out.append(text[position : match.start()] + shown + match[2])
            position = match.end()
    return "".join(out) + text[position:]


def _top_level_sum(text: str) -> bool:
    """Does ``text`` have a + or a binary − outside its parentheses?"""
    depth = 0
    for index, ch in enumerate(text):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and (ch == "+" or (ch == "-" and index > 0 and text[index - 1] == " ")):
            return True
    return False


def _closing(text: str, opening: int) -> int:
    """The index of the parenthesis that closes the one at ``opening`` (len(text) if none)."""
    depth = 0
    for index in range(opening, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return len(text)
