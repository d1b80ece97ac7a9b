"""Almost every parameter, from one certificate (docs/certificates.md, "Almost every parameter").

**Lemma.** Let L be a probe's stratum (:mod:`~identcheck.terms.strata`: a linear space of parameters
θ containing the probe's θ*), t_1(x; θ) … t_T(x; θ) its columns, and S(θ) = [t_j(x_i; θ)] the T × T
minor of a proof of full column rank at θ* (an interval certificate, :mod:`~identcheck.rank.interval`),
its rows x_1 … x_T and its columns held fixed. If every entry is a real-analytic function of θ on
an open connected set Ω ⊆ L that contains θ*, then D(θ) = det S(θ) is real-analytic on Ω and
D(θ*) ≠ 0, so its zero set Z is closed in Ω and of measure zero in L (a real-analytic function on a
connected open set that vanishes on a set of positive measure vanishes identically). For θ ∈ Ω ∖ Z
the minor is nonsingular, hence the T functions t_j(·; θ) are linearly independent: the probe's
term set is independent for almost every θ of Ω. "Almost every" is not "every": Z may be non-empty
(for φ = exp(−z²), ū(x; M, a) = exp(xᵀ(M − aaᵀ)x), so two components with M1 − a1a1ᵀ = M2 − a2a2ᵀ are
the same function — a null set of the random pairs' stratum where they are dependent).

**Type-1 (and mha).** A column is exp(xᵀM_c x)·w·x^α·φ^(m)(a_cᵀx) (docs/method.md §1): entire in M_c,
and analytic in a_c wherever φ is analytic at every a_cᵀx_i. With S the real singular points of φ
(:func:`~identcheck.parse.analyticity.real_singularities`), Ω is, in this order:

- ``"stratum"``: S = ∅ (φ real-analytic on ℝ): Ω = L;
- ``"ball"``: r = min |s| > ‖a*_c‖₁ for every component: Ω = {θ ∈ L : ‖a_c‖₁ < r for every c}, convex
  (|a_cᵀx_i| ≤ ‖a_c‖₁ < r, x_i ∈ [−1, 1]^d) — a pole or branch point outside the probed range;
- ``"piece"``: a singular point inside the probed range, none at a value a*_cᵀx_i: Ω = {θ ∈ L :
  a_cᵀx_i ∈ J_ic for every row i and component c}, J_ic the interval of ℝ ∖ S holding a*_cᵀx_i — an
  intersection of L with open slabs, convex: the claim covers that connected piece only.

Where the columns are chosen numerically (type-2's reduction: a basis picked at θ*'s own points)
or the columns' analyticity is not stated (an expert, type1-full's heads), there is no premise and
nothing is claimed; where S is undecided, the premise says why and nothing is claimed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..parse.analyticity import Singularities
from ..terms.strata import Stratum

__all__ = ["AlmostEverywhere", "Premise"]

NOT_EVERY = (
    "almost every is not every: a null set of distinct parameters may still fail — tanh on a2 = −a1 inside "
    "shared M; exp(−z²): ū = exp(xᵀ(M − aaᵀ)x), so M1 − a1a1ᵀ = M2 − a2a2ᵀ gives one function twice"
)


@dataclass(frozen=True, slots=True)
class AlmostEverywhere:
    """What a proved independence at θ* says about the stratum around it (the lemma above).

    ``claimed`` is False when the premise fails (``why_not``); ``region`` is ``"stratum"``, ``"ball"``
    (``radius``: ‖a_c‖₁ < radius) or ``"piece"``; ``stratum`` its free parameters and constraints
    (``'(M, a1) with shared M, a2 = −a1'``), ``components`` K, ``dimension`` dim L."""

    claimed: bool
    stratum: str
    components: int
    dimension: int
    analyticity: str
    region: str | None = None
    radius: float | None = None
    why_not: str | None = None

    @property
    def statement(self) -> str:
        """``'independent for almost every (M1, a1, M2, a2)'`` (with its region), or why not claimed."""
        if not self.claimed:
            return f"not claimed for {self.stratum}: {self.why_not}"
        where = ""
        if self.region == "ball":
            where = f", ‖a_c‖₁ < {self.radius:.6g} for every component"
        elif self.region == "piece":
            where = " on its piece: each a_cᵀx of the proof's points between the same singular points of φ"
        return f"independent for almost every {self.stratum}{where}"

    def to_dict(self) -> dict:
        return {
            "claimed": self.claimed,
            "statement": self.statement,
            "stratum": self.stratum,
            "components": self.components,
            "dimension": self.dimension,
            "region": self.region,
            "radius": self.radius,
            "analyticity": self.analyticity,
            "why_not": self.why_not,
        }


@dataclass(frozen=True, slots=True)
class Premise:
    """What a condition knows of one probe for the lemma: its stratum, d, φ's singular points, its
    components and sample points. :meth:`claim` reads the proof of full rank the probe got."""

    stratum: Stratum
    dim: int
    singularities: Singularities
    components: tuple = field(repr=False)
    points: np.ndarray = field(repr=False)

    def claim(self, certificate, rank_proof) -> AlmostEverywhere | None:
        """The claim from the probe's interval ``certificate`` (a Certificate whose detail has ``test``)
        or its rank decision's ``rank_proof`` (an IntervalCertificate); None without a proof."""
        rows = _proved_rows(certificate, rank_proof)
        if rows is None:
            return None
        stratum = self.stratum.describe()
        base = (stratum, self.stratum.components, self.stratum.dimension(self.dim), self.singularities.describe())
        if not self.stratum.holds(self.components):
            return AlmostEverywhere(False, *base, why_not="the probe's components are not in its stratum")
        if not self.singularities.decided:
            return AlmostEverywhere(False, *base, why_not=self.singularities.describe())
        if self.singularities.empty:
            return AlmostEverywhere(True, *base, region="stratum")
        radius = self.singularities.radius
        if all(sum(abs(float(v)) for v in c.a) < radius for c in self.components):
            return AlmostEverywhere(True, *base, region="ball", radius=radius)
        values = self.points[list(rows)] @ np.array([[float(v) for v in c.a] for c in self.components]).T
        if any(self.singularities.neighbours(float(v)) is None for v in values.ravel()):
            return AlmostEverywhere(False, *base, why_not="a sample value aᵀx of the proof is a singular point of φ")
        return AlmostEverywhere(True, *base, region="piece")


def _proved_rows(certificate, rank_proof):
    test = getattr(getattr(certificate, "detail", None), "test", None)
    if certificate is not None and certificate.proved and test is not None and test.proved:
        return test.rows
    if rank_proof is not None and getattr(rank_proof, "proved", False):
        return rank_proof.rows
    return None
