"""What ``numeric confirm`` returns, and the rule that reads a ratio sequence.

A :class:`Sequence` is ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*) along one path
(:mod:`numeric.curves`). It goes to 0 (``to_zero``) when the function did not move at all
(``exact_invariance``: ‖Δg‖ ≤ EXACT_TOL·‖g*‖), or when its t → 0 limit ρ₀ (computed from
first-order quantities) is 0 and the log-log slope over the measured window is ≥ SLOPE_TO_ZERO
= 0.25 (three decades of t: a fall by ≥ 5.6×); without a computed limit, the slope alone. It is
bounded away from 0 (``bounded``) when ρ₀ > 0; without a limit, when the slope is < SLOPE_TO_ZERO.
A :class:`RateRow` is one Figure-1-style rate (:mod:`numeric.confirm_rates`); a
:class:`ConfirmResult` holds the symbolic verdict, the sequences, the rates, the verdict line
and the tolerances used (its ``to_dict()`` is the ``--json`` output and ``confirm.json``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .curves import EXACT_TOL
from .paths import NULL_TOL
from .render import confirm_markdown
from .splits import RESIDUAL_TOL

__all__ = ["Sequence", "RateRow", "SymbolicSummary", "ConfirmResult", "OUTCOMES", "SLOPE_TO_ZERO", "SNR_REQUIRED"]

#: ``ConfirmResult.consistent`` → how its verdict line starts.
OUTCOMES = {True: "consistent", False: "inconsistent", None: "nothing to confirm"}

SLOPE_TO_ZERO = 0.25
#: Var g*/ν² a rate's truth must reach (SPEC §4).
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
        """ρ bounded away from 0: a positive t → 0 limit; without one, a slope < SLOPE_TO_ZERO."""
        if self.exact_invariance:
            return False
        if self.limit is not None:
            return self.limit > 0.0
        return self.slope is not None and self.slope < SLOPE_TO_ZERO

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
        }


@dataclass(frozen=True, slots=True)
class RateRow:
    truth: str
    K: int
    K_star: int
    slope: float
    ci: tuple
    signal_to_noise: float
    sizes: tuple
    mean_loss: tuple
    repetitions: int
    measure_slope: float | None = None  # the same fits under the measure-level loss (numeric.measure_loss)
    measure_ci: tuple | None = None

    def to_dict(self) -> dict:
        return {
            "truth": self.truth,
            "K": self.K,
            "K_star": self.K_star,
            "specified": "exact" if self.K == self.K_star else "over",
            "slope": self.slope,
            "ci": list(self.ci),
            "signal_to_noise": self.signal_to_noise,
            "sizes": list(self.sizes),
            "mean_loss": list(self.mean_loss),
            "repetitions": self.repetitions,
            "measure_slope": self.measure_slope,
            "measure_ci": None if self.measure_ci is None else list(self.measure_ci),
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
    """``verdict`` is the line ``"<outcome>: <why>"``, ``outcome`` = :data:`OUTCOMES` [``consistent``]."""

    phi: str
    condition: str
    model: str
    symbolic: SymbolicSummary
    sequences: tuple
    rates: tuple
    consistent: bool | None
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
    recombination: tuple = field(repr=False, default=())  # numeric.recombination.Alternative, one per construction
    recombination_line: str = ""

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`numeric.render.confirm_markdown`)."""
        return confirm_markdown(self)

    @property
    def outcome(self) -> str:
        return OUTCOMES[self.consistent]

    @property
    def why(self) -> str:
        """The verdict line without its outcome."""
        return self.verdict.removeprefix(self.outcome + ":").strip()

    def to_dict(self) -> dict:
        return {
            "phi": self.phi,
            "condition": self.condition,
            "model": self.model,
            "symbolic": self.symbolic.to_dict(),
            "sequences": [s.to_dict() for s in self.sequences],
            "rates": [r.to_dict() for r in self.rates],
            "consistent": self.consistent,
            "verdict": self.verdict,
            "seconds": self.seconds,
            "sequence_seconds": self.sequence_seconds,
            "check_seconds": self.check_seconds,
            "rates_seconds": self.rates_seconds,
            "mc_points": self.mc_points,
            "skipped_probes": [list(s) for s in self.skipped],
            "K": self.K,
            "recombination": {"line": self.recombination_line, "constructions": [a.to_dict() for a in self.recombination]},
            "tolerances": {
                "slope_to_zero": SLOPE_TO_ZERO,
                "exact_invariance": f"max_t ||g_t - g*|| <= {EXACT_TOL:g} * ||g*|| (L2(mu), Monte Carlo)",
                "null_space": f"sensitivity ||J_s d_s|| / (s_max ||d_s||) <= {NULL_TOL:g} (column-scaled model Jacobian): limit 0",
                "split_residual": f"||Q + J w|| <= {RESIDUAL_TOL:g} * ||Q||: limit 0",
                "signal_to_noise_required": SNR_REQUIRED,
            },
            "figure": self.figure,
            "out": self.out,
        }
