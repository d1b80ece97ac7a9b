"""What a verdict implies for the model, and what it does not.

A condition (type-1, type-2, …) is the paper's *sufficient* condition for a rate theorem, so
its verdict answers a narrower question than the one users ask ("does gated attention with
this φ learn its experts?"). Each condition declares a :class:`Scope`: the model it is about,
the theorem it feeds, and one statement per verdict; the result carries the statement for its
verdict (``CheckResult.scope``, JSON ``scope``) and every rendering shows it.

What the statements rest on (docs/theorems.md, docs/confirm.md):

- *identifiable* ⇒ the theorem's sufficient condition, at the parameter values the check covered
  (numeric evidence, or proved there with ``--certify``), hence its rates under (A.1)–(A.5) — with
  two limits. In Setting I the channels of a head enter only through the per-gate measures
  Σ_k ω_{h,k} δ_{a_{h,i,k}}, so with K > K* channels (or two equal weights at K = K*: a swap) they
  can be recombined without changing g, and the channel-level loss need not converge; the
  measure-level loss is the repair, measured, not proved. In Setting II the verdict is the reduced
  set's (the literal set fails for every φ): that it suffices is this project's reading.
- *not identifiable* ⇒ the sufficient condition fails (the witness relation); the model may
  still be locally identifiable (exp(z) in Setting I), and the theorem's rates are not implied.
- *inconclusive* ⇒ nothing follows.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LINEAR_EXPERT", "SETTING_I", "SETTING_I_FULL", "SETTING_II", "Scope", "ScopeStatement"]


@dataclass(frozen=True, slots=True)
class ScopeStatement:
    """What one verdict of one condition implies: JSON ``scope``."""

    model: str
    theorem: str
    implies: str

    def to_dict(self) -> dict:
        return {"model": self.model, "theorem": self.theorem, "implies": self.implies}


@dataclass(frozen=True, slots=True)
class Scope:
    """A condition's declaration: its model, its theorem, and a statement per verdict."""

    model: str
    theorem: str
    identifiable: str
    not_identifiable: str
    inconclusive: str = "Undecided: neither the condition nor its failure was shown; nothing follows for the model."

    def statement(self, verdict) -> ScopeStatement:
        """The statement for ``verdict`` (a :class:`~identcheck.evidence.Verdict` or its string)."""
        text = {
            "identifiable": self.identifiable,
            "not identifiable": self.not_identifiable,
            "inconclusive": self.inconclusive,
        }[str(verdict)]
        return ScopeStatement(self.model, self.theorem, text)


NOT_NECESSARY = (
    "The paper's sufficient condition fails (the witness relation). This does not show that the model is "
    "unidentifiable: it may stay locally identifiable (exp(z) in Setting I, docs/confirm.md); {theorem}'s rates "
    "are not implied."
)

SETTING_I = Scope(
    model="Setting I, model (9): gate after the value projection, φ(a_{h,i,k}ᵀx) inside the softmax mixture",
    theorem="Theorem 2",
    identifiable=(
        "Theorem 2's sufficient condition holds at the parameter values checked (numeric evidence, or proved there "
        "with --certify): under (A.1)-(A.5), least squares estimates the gating matrices and experts at its rates "
        "for the paper's channel-level Voronoi loss when the fitted K equals K* and no head has two channels of equal "
        "weight. Otherwise channels of a head can be recombined without changing g (equal weights: a swap; K > K*: "
        "exact alternatives), so the channel-level loss need not converge; the measure-level loss is the repair, "
        "its rates measured, not proved (docs/theorems.md)."
    ),
    not_identifiable=NOT_NECESSARY.format(theorem="Theorem 2"),
)

SETTING_II = Scope(
    model="Setting II, model (12): gate after the attention output, φ(Σ_i σ_{h,i} a_{h,i,k}ᵀx) per channel",
    theorem="Theorem 3",
    identifiable=(
        "The reduced type-2 set is independent at the parameter values checked (numeric evidence, or proved there "
        "with --certify). The literal set, as the paper states it, is dependent for every phi (docs/type2.md); that "
        "the reduced condition suffices for Theorem 3's rates under (A.1)-(A.5) is this project's reading, not the "
        "theorem as stated. The channel recombination of Setting I does not apply here (docs/theorems.md)."
    ),
    not_identifiable=NOT_NECESSARY.format(theorem="Theorem 3"),
)

LINEAR_EXPERT = Scope(
    model="multi-head attention, model (2): no gate, linear experts a_{h,i,k}ᵀx",
    theorem="Theorem 1",
    identifiable=(
        "Not expected for the linear expert, which satisfies the PDE (5) for every parameter: please report it."
    ),
    not_identifiable=(
        "The linear expert's terms are tied by the PDE (5), Σ_j a_j ∂u/∂a_j = u (the witness relation): the "
        "interaction behind Theorem 1, under which the experts of multi-head attention are estimated more slowly "
        "than at any polynomial rate."
    ),
)

SETTING_I_FULL = Scope(
    model=SETTING_I.model,
    theorem="Theorem 2 (the full decomposition of its proof: type-1 terms and softmax-denominator terms)",
    identifiable="The union that the proof of Theorem 2 expands is independent too. " + SETTING_I.identifiable,
    not_identifiable=NOT_NECESSARY.format(theorem="Theorem 2"),
)
