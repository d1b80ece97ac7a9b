r"""The rates of an expert confirmation: a small grid of maximum-likelihood fits of the declared
model (:mod:`numeric.confirm.expert_model`) at the witness truth and at the generic truth.

Each truth's declaration is fitted by :func:`numeric.experiments.declared.sweep.run_declared` (EM,
the declaration's fitted counts: one atom more in the expert's part than its truth) into its own
store ``OUT/rates/<truth>`` (each fit committed when it ends: an interrupted run keeps its fits and
the same command continues), and the slope b of log mean D = c + b·log n of the declared loss with
the interval its points carry (:func:`numeric.experiments.declared.rates.declared_rates`:
a bootstrap from 5 repetitions, the regression's standard error with 2–4).

The grid is small and fixed (QUICK_GRID, FULL_GRID); it does not grow and it does not enter the
outcome: a slope of −½ is the parametric rate, a shallower one at the witness a sign of the slow
directions the paths measure, but 3 sizes × 3 repetitions carry intervals of ±0.5 or so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..experiments.declared.rates import declared_rates
from ..experiments.declared.store import read_declared
from ..experiments.declared.sweep import DeclaredGrid, run_declared
from ..experiments.slope import SlopeEstimate

__all__ = ["FULL_GRID", "QUICK_GRID", "ExpertRate", "expert_rates"]

#: (sizes, repetitions) with --quick (about 10 s per truth on one core) and without (about 2 minutes).
QUICK_GRID = ((2000, 8000, 32000), 3)
FULL_GRID = ((2000, 4000, 8000, 16000, 32000, 64000), 6)


@dataclass(frozen=True, slots=True)
class ExpertRate:
    """The declared loss's slope in n at one truth, with how its fits went."""

    truth: str
    estimate: SlopeEstimate
    sizes: tuple
    means: tuple
    repetitions: int
    fits: int
    converged: int
    worse_than_truth: int
    store: str

    @property
    def mean_loss(self) -> tuple:
        """The mean loss per size (the name the confirm figure's rate panel reads)."""
        return self.means

    def to_dict(self) -> dict:
        return {
            "truth": self.truth,
            "slope": self.estimate.slope,
            "ci": None if self.estimate.ci is None else list(self.estimate.ci),
            "interval": self.estimate.to_dict().get("interval"),
            "sizes": list(self.sizes),
            "mean_loss": list(self.means),
            "repetitions": self.repetitions,
            "fits": self.fits,
            "converged": self.converged,
            "worse_than_truth": self.worse_than_truth,
            "store": self.store,
        }


def _slug(label: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in label).strip("-")[:60] or "truth"


def expert_rates(truths, out: Path, quick: bool, jobs: int = 1, seed: int = 0, progress=False) -> tuple:
    """One :class:`ExpertRate` per (label, setting) of ``truths``."""
    sizes, reps = QUICK_GRID if quick else FULL_GRID
    rows = []
    for label, setting in truths:
        folder = out / "rates" / _slug(label)
        run_declared(setting.declaration, DeclaredGrid(sizes, reps=reps, seed=seed), folder, jobs, progress)
        store, records = read_declared(folder)
        mine = [r for r in records if r.n in sizes]
        (rate,) = declared_rates(store, mine, quantities=["loss"])
        rows.append(
            ExpertRate(
                label,
                rate.in_n,
                tuple(rate.sizes),
                tuple(rate.means),
                rate.n_reps,
                rate.fits,
                rate.converged,
                rate.worse_than_truth,
                str(folder),
            )
        )
    return tuple(rows)
