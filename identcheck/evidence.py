"""The typed vocabulary of a result: verdicts, evidence, certificates, tolerances.

Verdicts are three-valued and one-sided (docs/method.md §9): *not identifiable* needs a dependence
confirmed at two precisions or settled by relations proved first (§3, step 3), *identifiable* an
independence on every probe that counts, anything else is *inconclusive*. The enums are
``str``-valued, so a result serialises to the same strings as before they existed
(``json.dumps(Verdict.IDENTIFIABLE) == '"identifiable"'``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

__all__ = ["Certificate", "CertificateKind", "Evidence", "RankProof", "Tolerance", "Verdict"]


class Verdict(StrEnum):
    """A check's answer: three-valued and one-sided — "could not decide" is never "dependent".

    A ``str`` enum: ``result.verdict == "identifiable"`` holds.

    - ``IDENTIFIABLE``: the terms are independent on every probe that counts (numerical evidence
      at those parameters, or proved there with ``certify=True``);
    - ``NOT_IDENTIFIABLE``: some probe's terms are dependent, the relation confirmed at two
      precisions or proved first (and proved exactly where the evidence is ``PROOF``);
    - ``INCONCLUSIVE``: no dependence, but a probe could not be settled up to 120 digits.
    """

    IDENTIFIABLE = "identifiable"
    NOT_IDENTIFIABLE = "not identifiable"
    INCONCLUSIVE = "inconclusive"


class Evidence(StrEnum):
    """What a verdict rests on: ``PROOF`` (exact arithmetic reduced the witness relation to 0, or every
    counted probe carries a proof certificate) or ``NUMERIC`` (the precision ladder alone)."""

    PROOF = "proof"  # the witness reduced to 0 exactly, or every probe carries a proof certificate
    NUMERIC = "numeric"  # decided by the precision ladder only


class CertificateKind(StrEnum):
    """How a probe's outcome was certified: ``INTERVAL`` (an independence: a minor proved
    nonsingular in ball arithmetic) or ``PROOF`` (a dependence: exact relations proved identically
    zero in exact arithmetic)."""

    INTERVAL = "interval"  # independence: a minor proved nonsingular in ball arithmetic
    PROOF = "proof"  # dependence: an exact relation proved identically zero


class CertificateDetail(Protocol):
    """What a certificate's record offers (``IntervalDetail``, ``RelationsDetail`` in :mod:`certificates`,
    which imports this module: the protocol keeps the annotation resolvable without a cycle)."""

    @property
    def why_not(self) -> str | None: ...

    def brief(self) -> str: ...

    def to_dict(self) -> dict: ...


class RankProof(Protocol):
    """What a rank decision's proof of full column rank offers a result (an
    :class:`~identcheck.rank.interval.IntervalCertificate`, above this module: the protocol keeps
    :attr:`~identcheck.results.ProbeResult.rank_proof`'s annotation on the ground floor)."""

    def to_dict(self) -> dict: ...


@dataclass(frozen=True, slots=True)
class Certificate:
    """What a probe's outcome rests on beyond numerics (:mod:`certificates`).

    ``kind`` is None when nothing could be certified; ``detail`` then says why (a string, or a
    record with ``why_not``). The records are :class:`~identcheck.rank.certificates.IntervalDetail`
    (what :func:`~identcheck.rank.certificates.replay` needs: the sample points (float64 hex), columns,
    column scaling, precision and bounds) and :class:`~identcheck.rank.certificates.RelationsDetail`
    (the exact relations); each has ``brief()`` and ``to_dict()`` (schema 1).
    """

    kind: CertificateKind | None
    detail: CertificateDetail | str = field(repr=False)

    @property
    def proved(self) -> bool:
        return self.kind is not None

    def brief(self) -> str:
        """One line for the probe table: ``[proved: …]`` or ``[not certified: why]``."""
        if isinstance(self.detail, str):
            return f"[not certified: {self.detail}]"
        if self.kind is None:
            return f"[not certified: {self.detail.why_not}]"
        return f"[proved: {self.detail.brief()}]"

    def to_dict(self) -> dict:
        detail = self.detail if isinstance(self.detail, str) else self.detail.to_dict()
        return {"kind": None if self.kind is None else str(self.kind), "detail": detail}


@dataclass(frozen=True, slots=True)
class Tolerance:
    """A named threshold: its value (None when it scales with the matrix or the precision) and
    the rule that defines it."""

    name: str
    value: float | tuple | None
    rule: str

    def to_json(self):
        """The JSON form of schema 1: the value, or the rule when the threshold has no fixed value."""
        if self.value is None:
            return self.rule
        return list(self.value) if isinstance(self.value, tuple) else self.value
