"""What ``numeric confirm`` returns, and the rules that read a ratio sequence and a result.

A :class:`Sequence` is ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*) along one path
(:mod:`numeric.confirm.curves`). Its :attr:`Sequence.status` is one of

- ``"to zero"``: the function did not move at all (``exact_invariance``: ‖Δg‖ ≤ EXACT_TOL·‖g*‖),
  or the t → 0 limit ρ₀ (computed from first-order quantities) is 0 and the log-log slope over
  the standard window t = 10⁻¹ … 10⁻⁴ is ≥ SLOPE_TO_ZERO = 0.25 (a fall by ≥ 5.6×); without a
  computed limit, the slope alone;
- ``"bounded"``: ρ₀ > 0 **and the data show the plateau**: the ratio at the smallest t measured
  is within PLATEAU_FACTOR = 2 of ρ₀ (t is extended below 10⁻⁴ until it is, or until float64
  cannot resolve ‖Δg‖, :func:`numeric.confirm.curves.extend_to_plateau`); without a computed limit, a
  slope < SLOPE_TO_ZERO;
- ``"not resolved"``: ρ₀ > 0 but the measured ratio never comes within 2× of it;
- ``"undecided"``: ρ₀ = 0 but the ratio does not fall over the window.

A :class:`RateRow` is one Figure-1-style rate (:mod:`numeric.confirm.rates`); a
:class:`ConfirmResult` holds the symbolic verdict, the sequences, the rates, the outcome
(:data:`OUTCOMES`), the verdict line and the tolerances used (its ``to_dict()`` is the ``--json``
output and ``confirm.json``, schema :data:`SCHEMA`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..experiments.slope import SlopeEstimate
from .curves import DISTANCE_FLOOR, EXACT_TOL, PLATEAU_FACTOR, T_MIN
from .paths import NULL_TOL
from .render import confirm_markdown
from .splits import RESIDUAL_TOL

__all__ = [
    "Sequence",
    "RateRow",
    "SymbolicSummary",
    "ConfirmResult",
    "RateSeparation",
    "OUTCOMES",
    "SCHEMA",
    "SLOPE_TO_ZERO",
    "PLATEAU_FACTOR",
    "SNR_REQUIRED",
]

#: The JSON's schema (docs/changelog.md). 1 was the unversioned JSON with ``consistent``; 2 had no
#: ``interval`` on a rate row (every interval a bootstrap, zero-width with one repetition); 3 had no
#: ``expert``, ``part``, ``model_check`` and ``model_comparison`` (null for a φ condition).
SCHEMA = "numeric.confirm/5"

#: ``ConfirmResult.outcome``: value → what it means (the verdict line starts with the value).
OUTCOMES = {
    "consistent": "identcheck's verdict holds in the model: not identifiable and a witness path's ratio goes to 0, or "
    "identifiable and every path's ratio is bounded away from 0 with its plateau in the data; and, when the rate "
    "grid ran, its intervals separate",
    "identifiable-beyond-condition": "identcheck says not identifiable (the sufficient condition fails), "
    "but the model stays "
    "identifiable along every tested path: no witness construction reaches ratio 0 (none of them "
    "is exact by derivation) and every path shows a positive plateau (exp(z), docs/confirm.md)",
    "inconsistent": "a contradiction: identcheck says identifiable and some path's ratio goes to 0, "
    "or a construction that is "
    "exact by derivation (Euler scale, weights) moves the function",
    "rates-not-separated": "the paths agree with identcheck (consistent or identifiable-beyond-condition, kept in "
    "paths_outcome), but the rate grid's intervals do not separate within the time budget: an interval "
    "that should lie below 0 contains 0, or the witness is not slower than the generic truth",
    "not-resolved": "a path the decision needs was not resolved: "
    "its ratio never came within 2x of its positive t -> 0 limit "
    "down to the smallest t float64 allows, or it neither falls nor has a positive limit, or no witness path "
    "could be built",
    "nothing-to-confirm": "identcheck's verdict is inconclusive",
}

#: A path's ratio goes to 0 with its limit at 0 when it falls at least at this log-log slope over
#: the standard window of t (three decades: a fall by 5.6× or more).
SLOPE_TO_ZERO = 0.25
#: Var g*/ν² a rate's truth must reach (docs/method.md §10).
SNR_REQUIRED = 10.0


@dataclass(frozen=True, slots=True)
class Sequence:
    """ρ(t) along one path."""

    kind: str
    name: str
    construction: str
    note: str
    t: tuple
    ratio: tuple
    ratio_se: tuple
    loss: tuple = field(repr=False)
    slope: float | None
    exact_invariance: bool
    max_relative_change: float
    limit: float | None = None
    sensitivity: float | None = None
    window: int | None = (
        None  # the first ``window`` ts are the standard window the slope is fitted on; the rest extend it
    )

    @property
    def plateau(self) -> bool | None:
        """Whether the smallest-t ratio lies within PLATEAU_FACTOR of a positive limit (None without one)."""
        if self.exact_invariance or self.limit is None or self.limit <= 0.0:
            return None
        last = self.ratio[-1]
        return last > 0 and 1.0 / PLATEAU_FACTOR <= last / self.limit <= PLATEAU_FACTOR

    @property
    def status(self) -> str:
        """ "to zero", "bounded", "not resolved" or "undecided" (module docstring)."""
        if self.to_zero:
            return "to zero"
        if self.bounded:
            return "bounded"
        if self.limit is not None and self.limit > 0.0:
            return "not resolved"
        return "undecided"

    @property
    def to_zero(self) -> bool:
        """ρ → 0: the function does not move; or the t → 0 limit is 0 and the measured slope falls
        (≥ SLOPE_TO_ZERO); without a computed limit, the slope alone."""
        if self.exact_invariance:
            return True
        falling = self.slope is not None and self.slope >= SLOPE_TO_ZERO
        if self.limit is not None:
            return self.limit == 0.0 and falling
        return falling

    @property
    def bounded(self) -> bool:
        """ρ bounded away from 0: a positive t → 0 limit that the data reach (its plateau); without a
        limit (no first-order length), a slope < SLOPE_TO_ZERO *and* a flat tail in the data: the
        last two ratios within PLATEAU_FACTOR of each other (a bounded path shows its plateau: docs/confirm.md)."""
        if self.exact_invariance:
            return False
        if self.limit is not None:
            return self.limit > 0.0 and bool(self.plateau)
        tail_flat = (
            len(self.ratio) >= 2
            and self.ratio[-1] > 0
            and 1.0 / PLATEAU_FACTOR <= self.ratio[-1] / self.ratio[-2] <= PLATEAU_FACTOR
        )
        return self.slope is not None and self.slope < SLOPE_TO_ZERO and tail_flat

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "name": self.name,
            "construction": self.construction,
            "note": self.note,
            "t": list(self.t),
            "ratio": list(self.ratio),
            "ratio_se": list(self.ratio_se),
            "loss": list(self.loss),
            "slope": self.slope,
            "exact_invariance": self.exact_invariance,
            "max_relative_change": self.max_relative_change,
            "limit": self.limit,
            "sensitivity": self.sensitivity,
            "window": self.window,
            "plateau": self.plateau,
            "status": self.status,
        }


@dataclass(frozen=True, slots=True)
class RateRow:
    """One rate of the grid: ``truth`` is ``"witness"`` (the witness configuration of a φ identcheck says
    is not identifiable), ``"hardest probe"`` (an identifiable φ: its least independent probe's
    configuration) or ``"generic"``; ``estimate`` the slope with what the points can carry
    (:class:`~numeric.experiments.slope.SlopeEstimate`), ``measure_estimate`` the same fits under the
    measure-level loss."""

    truth: str
    K: int
    K_star: int
    estimate: SlopeEstimate
    signal_to_noise: float
    sizes: tuple
    mean_loss: tuple
    repetitions: int
    measure_estimate: SlopeEstimate | None = None  # the same fits under the measure-level loss (numeric.losses.measure)

    @property
    def slope(self) -> float | None:
        return self.estimate.slope

    @property
    def ci(self) -> tuple | None:
        return self.estimate.ci

    @property
    def measure_slope(self) -> float | None:
        return None if self.measure_estimate is None else self.measure_estimate.slope

    @property
    def measure_ci(self) -> tuple | None:
        return None if self.measure_estimate is None else self.measure_estimate.ci

    def to_dict(self) -> dict:
        return {
            "truth": self.truth,
            "K": self.K,
            "K_star": self.K_star,
            "specified": "exact" if self.K == self.K_star else "over",
            "slope": self.slope,
            "ci": None if self.ci is None else list(self.ci),
            "interval": self.estimate.interval,
            "interval_reason": self.estimate.reason,
            "se": self.estimate.se,
            "signal_to_noise": self.signal_to_noise,
            "sizes": list(self.sizes),
            "mean_loss": list(self.mean_loss),
            "repetitions": self.repetitions,
            "measure_slope": self.measure_slope,
            "measure_ci": None if self.measure_ci is None else list(self.measure_ci),
            "measure_interval": None if self.measure_estimate is None else self.measure_estimate.interval,
        }


@dataclass(frozen=True, slots=True)
class RateSeparation:
    """Whether the rate grid's intervals separate (:func:`numeric.confirm.rates.separation`).

    ``expected``: ``"rates at both truths"`` (every interval below 0) or ``"witness slower"``
    (the generic truth's intervals below 0 and, for every K, the witness slope above the generic
    one by more than 1.96 standard errors of the difference); ``rounds``: grids run (the first
    plus each growth), with the sizes and repetitions of the last; ``budget_seconds``: the
    command's time budget the growth stayed within.
    """

    expected: str
    separated: bool
    reason: str
    rounds: int
    sizes: tuple
    repetitions: int
    budget_seconds: float

    def to_dict(self) -> dict:
        return {
            "expected": self.expected,
            "separated": self.separated,
            "reason": self.reason,
            "rounds": self.rounds,
            "sizes": list(self.sizes),
            "repetitions": self.repetitions,
            "budget_seconds": self.budget_seconds,
        }


@dataclass(frozen=True, slots=True)
class SymbolicSummary:
    """identcheck's side of a confirmation: its verdict and witness, and which relation was lifted
    to the witness path (``witness_path_*``: it may be another probe's, :mod:`numeric.confirm`)."""

    verdict: str
    evidence: str
    witness_probe: str | None
    relation: str | None
    family: str | None
    witness_path_probe: str | None
    witness_path_relation: str | None
    summary: str

    @classmethod
    def of(cls, check, used_probe: str | None, used_relation) -> "SymbolicSummary":
        """identcheck's result ``check`` and the relation ``used_relation`` lifted on probe ``used_probe``."""
        witness_probe = next((p for p in check.probes if p.name == check.witness), None)
        relation = witness_probe.relation if witness_probe is not None else None
        return cls(
            verdict=check.verdict,
            evidence=check.evidence,
            witness_probe=check.witness,
            relation=None if relation is None else str(relation),
            family=None if relation is None else relation.family,
            witness_path_probe=used_probe,
            witness_path_relation=None if used_relation is None else str(used_relation),
            summary=check.summary,
        )

    def to_dict(self) -> dict:
        return {
            "verdict": self.verdict,
            "evidence": self.evidence,
            "witness_probe": self.witness_probe,
            "relation": self.relation,
            "family": self.family,
            "witness_path_probe": self.witness_path_probe,
            "witness_path_relation": self.witness_path_relation,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class ConfirmResult:
    """``verdict`` is the line ``"<outcome>: <why>"``; ``outcome`` one of :data:`OUTCOMES`;
    ``paths_outcome`` the outcome of the paths alone (before the rates are read)."""

    phi: str
    condition: str
    model: str
    symbolic: SymbolicSummary
    sequences: tuple
    rates: tuple
    outcome: str
    verdict: str
    seconds: float
    sequence_seconds: float
    mc_points: int
    check_seconds: float = 0.0
    rates_seconds: float = 0.0
    skipped: tuple = field(repr=False, default=())
    figure: str | None = None
    out: str | None = None
    K: int = 3  # channels per head of the over-specified fits and the recombination constructions
    #: numeric.confirm.recombination.Alternative, one per construction
    recombination: tuple = field(repr=False, default=())
    recombination_line: str = ""
    paths_outcome: str = ""
    separation: RateSeparation | None = None
    environment: dict | None = field(default=None, compare=False, repr=False)  # versions and BLAS

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`numeric.confirm.render.confirm_markdown`)."""
        return confirm_markdown(self)

    @property
    def outcome_meaning(self) -> str:
        """What :attr:`outcome` means (:data:`OUTCOMES`)."""
        return OUTCOMES.get(self.outcome, "")

    @property
    def why(self) -> str:
        """The verdict line without its outcome."""
        return self.verdict.removeprefix(self.outcome + ":").strip()

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "phi": self.phi,
            "expert": None,
            "part": None,
            "model_check": None,
            "model_comparison": None,
            "condition": self.condition,
            "model": self.model,
            "symbolic": self.symbolic.to_dict(),
            "sequences": [s.to_dict() for s in self.sequences],
            "rates": [r.to_dict() for r in self.rates],
            "outcome": self.outcome,
            "paths_outcome": self.paths_outcome,
            "rates_separation": None if self.separation is None else self.separation.to_dict(),
            "verdict": self.verdict,
            "seconds": self.seconds,
            "sequence_seconds": self.sequence_seconds,
            "check_seconds": self.check_seconds,
            "rates_seconds": self.rates_seconds,
            "mc_points": self.mc_points,
            "skipped_probes": [list(s) for s in self.skipped],
            "K": self.K,
            "recombination": {
                "line": self.recombination_line,
                "constructions": [a.to_dict() for a in self.recombination],
            },
            "tolerances": {
                "slope_to_zero": SLOPE_TO_ZERO,
                "plateau": f"smallest-t ratio within {PLATEAU_FACTOR:g}x of a positive limit; "
                "t extended by half decades "
                f"down to {T_MIN:g} or until ||g_t - g*|| < {DISTANCE_FLOOR:g} * ||g*||",
                "exact_invariance": f"max_t ||g_t - g*|| <= {EXACT_TOL:g} * ||g*|| (L2(mu), Monte Carlo)",
                "null_space": f"sensitivity ||J_s d_s|| / (s_max ||d_s||) <= {NULL_TOL:g} "
                "(column-scaled model Jacobian): limit 0",
                "split_residual": f"||Q + J w|| <= {RESIDUAL_TOL:g} * ||Q||: limit 0",
                "signal_to_noise_required": SNR_REQUIRED,
            },
            "figure": self.figure,
            "out": self.out,
            "environment": self.environment,
        }
