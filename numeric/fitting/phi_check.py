"""identcheck's own check of a fit's gate φ: does the model fitted satisfy the condition its theorem needs?

A gated fit (Setting I: ``gated1``, Setting II: ``gated2``) measures rates that Theorems 2–3 imply only
when φ satisfies the type-1 / type-2 condition (each model's record in :mod:`numeric.shipped` names
its condition). ``numeric fit`` runs :func:`identcheck.check` on the fit's φ (with its constants, at
the truth's input dimension d) *after* the fit — the fit's start-up is untouched — and says so when
it fails: the default ``sigmoid(z)``, the paper's Figure-1 choice, fails type 1 at d = 2 by the
symmetry σ(−z) = 1 − σ(z) (sigmoid(z + b) at b = 0). MHA has linear experts and no φ: nothing to
check. The result is cached per (φ, constants, condition, d) for the process, so a caller fitting
many times pays once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache

import identcheck

from ..model.attention import exact_constants
from ..shipped import SHIPPED

__all__ = ["CONDITION_OF", "PhiCheck", "phi_check"]

#: The identcheck condition a gated model's theorem needs (:mod:`numeric.shipped`).
CONDITION_OF = {name: spec.condition for name, spec in SHIPPED.items() if spec.condition is not None}
SETTING = {"type1": "Setting I", "type2": "Setting II"}


@dataclass(frozen=True, slots=True)
class PhiCheck:
    """identcheck's verdict on a fit's φ for its model's condition, with its witness when it fails."""

    phi: str
    condition: str
    dim: int
    verdict: str
    evidence: str
    witness: str | None
    family: str | None
    seconds: float

    @property
    def fails(self) -> bool:
        return self.verdict == "not identifiable"

    def line(self) -> str:
        """One line for ``numeric fit``'s report."""
        where = f"{self.condition} ({SETTING[self.condition]}), d = {self.dim}"
        if self.fails:
            family = f", {self.family}" if self.family else ""
            return (
                f"identcheck: phi = {self.phi} FAILS the {where} condition ({self.evidence} evidence; witness probe "
                f"'{self.witness}'{family}): the theorem's rates are not implied for this phi"
            )
        if self.verdict == "identifiable":
            return f"identcheck: phi = {self.phi} satisfies the {where} condition ({self.evidence} evidence)"
        return f"identcheck: phi = {self.phi}: {self.verdict} for the {where} condition"

    def to_dict(self) -> dict:
        return {
            "phi": self.phi,
            "condition": self.condition,
            "dim": self.dim,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "witness": self.witness,
            "family": self.family,
            "fails": self.fails,
            "seconds": self.seconds,
        }


@lru_cache(maxsize=32)
def _check(phi: str, params: tuple, condition: str, dim: int) -> PhiCheck:
    started = time.perf_counter()
    result = identcheck.check(phi, condition=condition, dim=dim, params=dict(params) or None)
    witness = next((p for p in result.probes if p.name == result.witness), None) if result.witness else None
    relation = witness.relations[0] if witness is not None and witness.relations else None
    return PhiCheck(
        phi,
        condition,
        dim,
        str(result.verdict),
        str(result.evidence),
        result.witness,
        None if relation is None else relation.family,
        round(time.perf_counter() - started, 2),
    )


def phi_check(model: str, phi: str, params: dict, dim: int) -> PhiCheck | None:
    """identcheck's check of ``phi`` (constants ``params``) for ``model``'s condition at dimension ``dim``;
    None for a model without a gate (MHA)."""
    condition = CONDITION_OF.get(model)
    if condition is None:
        return None
    return _check(phi, tuple(sorted(exact_constants(params).items())), condition, dim)
