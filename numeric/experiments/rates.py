"""Convergence rates: the slope of log(mean quantity) against log(n), with an interval where the data allow one.

For one experiment (settings, model, K) and one quantity (:data:`numeric.losses.attention_cells.QUANTITIES`: the
Voronoi loss — channel-level (L1,r / L2) and measure-level (gated models, :mod:`numeric.losses.measure`) —,
the regression error, the per-cell errors, MHA's identified quantities): at each
sample size n the repetitions' values L_{n,r} are averaged, and the rate is the least-squares
slope of log(mean_r L_{n,r}) on log n. What the points can carry with it — nothing below two
sizes, the point alone below three sizes or two repetitions, an interval from the regression's
standard error below five repetitions, a stratified percentile bootstrap from five — is decided
by :func:`numeric.experiments.slope.estimate_slope`, the one rule every printer and plot follows.

Beside each slope: the exponent the theory gives (Proposition 1, Theorems 2–3; ``None`` where it
gives no power law) and, since the theorems' rates carry a log factor, the slope that
(log n / n)^α itself has over the measured sizes; the paper's Figure-1 slope where there is one;
and the fits' health — the shares that converged, ended below their start's MSE and at or below
the truth's MSE, and ended with a parameter on the box.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..losses.attention_cells import QUANTITIES, cell_errors, function_assignment, mha_identified_error
from ..losses.attention_voronoi import voronoi_loss
from ..losses.measure import measure_loss
from ..model.attention_params import NumericError
from ..model.attention_truth import truth_from_dict
from ..shipped import SHIPPED, shipped_model
from .slope import SlopeEstimate, estimate_slope

__all__ = ["PAPER_SLOPES", "SCHEMA", "THEORY_EXPONENTS", "Rate", "rates_from_records"]

#: The schema of a rate row in ``numeric rates --json`` (docs/changelog.md); 1 was the unversioned row.
SCHEMA = "numeric.rates/2"

#: The paper's reported slopes (Figure 1), by (model, K) (:mod:`numeric.shipped`).
PAPER_SLOPES = {(name, K): slope for name, spec in SHIPPED.items() for K, slope in spec.paper_slopes.items()}

#: The exponent α of (log n / n)^α the theory gives, by (quantity, model); None: no power law
#: (Theorem 1: MHA slower than any polynomial). A quantity absent for a model is not measured for
#: it (:meth:`numeric.shipped.ShippedModel.applies`). "mha_identified" is our expectation for a
#: regular parametric model, not a theorem of the paper.
THEORY_EXPONENTS = {(q, name): alpha for name, spec in SHIPPED.items() for q, alpha in spec.exponents.items()}


@dataclass(frozen=True, slots=True)
class Rate:
    """The slope of one quantity for one experiment (its :class:`~numeric.experiments.slope.SlopeEstimate`: an
    interval only where the points allow one), with what it should be and how the fits went."""

    settings_id: str
    settings: str
    model: str
    K: int
    quantity: str
    estimate: SlopeEstimate
    sizes: tuple
    means: tuple
    n_reps: int
    theory_exponent: float | None
    theory_slope: float | None
    paper: float | None
    share_converged: float
    share_below_start: float
    share_at_or_below_truth: float
    share_box_active: float
    dropped: int = 0

    @property
    def slope(self) -> float | None:
        return self.estimate.slope

    @property
    def ci_low(self) -> float | None:
        return self.estimate.low

    @property
    def ci_high(self) -> float | None:
        return self.estimate.high

    @property
    def intercept(self) -> float | None:
        return self.estimate.intercept

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "settings_id": self.settings_id,
            "settings": self.settings,
            "model": self.model,
            "K": self.K,
            "quantity": self.quantity,
            **self.estimate.to_dict(),
            "intercept": self.intercept,
            "sizes": list(self.sizes),
            "mean": list(self.means),
            "repetitions": self.n_reps,
            "theory_exponent": self.theory_exponent,
            "theory_slope": self.theory_slope,
            "paper_slope": self.paper,
            "share_converged": self.share_converged,
            "share_below_start": self.share_below_start,
            "share_at_or_below_truth": self.share_at_or_below_truth,
            "share_box_active": self.share_box_active,
            "dropped_values": self.dropped,
        }


def _slope(log_n, log_mean):
    A = np.column_stack([log_n, np.ones_like(log_n)])
    (slope, intercept), *_ = np.linalg.lstsq(A, log_mean, rcond=None)
    return slope, intercept


def theory_slope(exponent: float | None, sizes) -> float | None:
    """The log-log slope of (log n / n)^α over ``sizes`` (−α plus the log factor's share)."""
    if exponent is None or len(sizes) < 2:
        return None
    log_n = np.log(np.asarray(sizes, dtype=float))
    return float(_slope(log_n, exponent * (np.log(log_n) - log_n))[0])


def _quantity_values(records, quantity: str, truths: dict, cells: dict) -> list:
    """The value of ``quantity`` for each record (NaN where it does not exist), from the stored
    fitted parameters and the truth in the store's settings. ``cells`` caches each record's
    :class:`~numeric.losses.attention_cells.CellErrors` across the four per-cell quantities."""
    out = []
    for r in records:
        if quantity == "voronoi":
            out.append(r.voronoi_loss)
        elif quantity == "regression":
            out.append(r.regression_l2)
        elif quantity == "voronoi_function_cells":
            truth = truths[r.settings_id]
            assignment = function_assignment(truth.model(r.model), r.fitted(), truth.params)
            out.append(voronoi_loss(r.fitted(), truth.params, r.loss_kind, assignment=assignment))
        elif quantity == "voronoi_measure":
            applies = shipped_model(r.model).applies(quantity)
            out.append(measure_loss(r.fitted(), truths[r.settings_id].params) if applies else np.nan)
        elif quantity == "mha_identified":
            applies = shipped_model(r.model).applies(quantity)
            out.append(mha_identified_error(r.fitted(), truths[r.settings_id].params) if applies else np.nan)
        else:
            if r.key not in cells:
                cells[r.key] = cell_errors(r.fitted(), truths[r.settings_id].params)
            out.append(getattr(cells[r.key], quantity))
    return out


def _paper_slope(settings, model: str, K: int, quantity: str) -> float | None:
    """The paper's Figure-1 slope, shown only beside the Figure-1 experiment (the shipped default truth)."""
    if quantity != "voronoi" or (settings is not None and settings.truth.get("name") != "default"):
        return None
    return PAPER_SLOPES.get((model, K))


def rates_from_records(
    records, settings: dict | None = None, quantities=("voronoi",), n_boot: int = 2000
) -> list[Rate]:
    """One Rate per (settings, model, K, quantity) in the records (complete sizes only).

    ``settings`` maps settings ids to :class:`numeric.experiments.store.Settings` (needed for every quantity
    but "voronoi" and "regression", which are stored; the others are recomputed from the stored
    fitted parameters). Records of different settings are never pooled.
    """
    for q in quantities:
        if q not in QUANTITIES:
            raise NumericError(param="quantity", value=q, reason=f"unknown; choose from {', '.join(QUANTITIES)}")
    settings = settings or {}
    truths = {sid: truth_from_dict(s.truth, f"store settings {sid}") for sid, s in settings.items()}
    groups: dict = {}
    cells: dict = {}
    for r in records:
        groups.setdefault((r.settings_id, r.model, r.K), []).append(r)
    out = []
    for (sid, model, K), members in sorted(groups.items()):
        spec = shipped_model(model)
        health = (
            float(np.mean([r.converged for r in members])),
            float(np.mean([r.mse < r.start_mse for r in members])),
            float(np.mean([r.mse <= r.truth_mse for r in members])),
            float(np.mean([r.active_bounds > 0 for r in members])),
        )
        for quantity in quantities:
            if not spec.applies(quantity):
                continue
            if quantity not in ("voronoi", "regression") and sid not in truths:
                raise NumericError(f"quantity {quantity!r} needs the store's settings (the truth) for {sid}")
            values = _quantity_values(members, quantity, truths, cells)
            by_n: dict = {}
            dropped = 0
            for r, v in zip(members, values):
                if np.isfinite(v) and v > 0:
                    by_n.setdefault(r.n, []).append(v)
                else:
                    dropped += 1
            sizes = sorted(by_n)
            if not sizes:
                continue
            reps = min(len(by_n[n]) for n in sizes)
            losses = np.array([by_n[n][:reps] for n in sizes])
            estimate = estimate_slope(sizes, losses, n_boot=n_boot)
            exponent = spec.exponents[quantity]
            out.append(
                Rate(
                    sid,
                    settings[sid].describe() if sid in settings else sid,
                    model,
                    K,
                    quantity,
                    estimate,
                    tuple(sizes),
                    tuple(losses.mean(axis=1)),
                    reps,
                    exponent,
                    theory_slope(exponent, sizes),
                    _paper_slope(settings.get(sid), model, K, quantity),
                    *health,
                    dropped,
                )
            )
    return out
