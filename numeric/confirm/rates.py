"""The rates of ``numeric confirm`` (step 4): Figure-1-style grids at the witness configuration
and at the generic truth.

Each truth is scaled in ω (never down) so that Var g*(X)/ν² ≥ SNR_TARGET = 12 (SNR_REQUIRED = 10
with a margin for the Monte Carlo estimate of the variance), written as a truth file, and fitted
with K = K* and K = K* + 1 channels inside the box of factor BOX_FACTOR
(:func:`numeric.experiments.sweep.run_grid`); slopes and their intervals come from
:func:`numeric.experiments.rates.rates_from_records` (:func:`numeric.experiments.slope.estimate_slope` decides what the
points carry: a bootstrap from 5 repetitions, the regression's standard error below).
Before anything is written, φ and φ' are checked finite
wherever a fit can take aᵀx: |aᵀx| ≤ BOX_FACTOR·max|a*|·d for x ∈ [−1, 1]^d.

**Do the rates separate?** (:func:`separation`; docs/confirm.md, Rates.) What the paths say fixes what the
rates must show:

- ``"rates at both truths"`` (identcheck says identifiable, or the model stays identifiable
  along every path): every row's 95 % interval lies below 0;
- ``"witness slower"`` (not identifiable, a witness path → 0): the generic truth's intervals lie
  below 0 and, for every K, the witness slope exceeds the generic one by more than 1.96 standard
  errors of the difference, se = √(se_w² + se_g²), each se the regression's or read off its
  percentile interval as (high − low)/(2·1.96) (the two truths are fitted independently).

A row without an interval (fewer than 3 sizes or 2 repetitions) separates nothing.

When they do not, the grid grows (:func:`grow`: the next round adds a sample size 2·max n, the
one after doubles the repetitions, alternately) as long as 1.5 times the predicted time of the new
fits — their Σ n times the stored seconds per unit of n of the fits so far, divided by the jobs —
fits in what is left of the command's budget. Fits already in the store are never redone.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from ..experiments.rates import rates_from_records
from ..experiments.store import read_records, read_settings
from ..experiments.sweep import Grid, run_grid
from ..fitting.memory import estimate_bytes, memory_budget
from ..model.attention_declared import AttentionCode
from ..model.attention_params import HMoEParams, NumericError
from .result import RateRow

__all__ = [
    "MAX_K",
    "check_K",
    "check_range",
    "with_signal",
    "rate_rows",
    "separation",
    "grow",
    "fit_cost",
    "SNR_TARGET",
    "BOX_FACTOR",
    "Z95",
]

#: The normal quantile of a two-sided 95 % interval.
Z95 = 1.96

SNR_TARGET = 12.0  # Var g*/ν² aimed at (≥ 10 required, with a margin for the Monte Carlo estimate)
BOX_FACTOR = 2.0


def check_range(model: AttentionCode, params_list):
    """φ and φ' finite wherever a fit can take aᵀx: |aᵀx| ≤ BOX_FACTOR·max|a*|·d (x ∈ [−1, 1]^d).

    Evaluated with identcheck's compiled φ (``Activation.numpy_derivative``), the same the models use.
    """
    activation = model.activation()
    phi = model.phi
    bound = max(BOX_FACTOR * float(np.abs(p.a).max()) * p.dim for p in params_list)
    z = np.linspace(-bound, bound, 4001)
    with np.errstate(all="ignore"):
        finite = np.isfinite(np.broadcast_to(activation.numpy_derivative(0)(z), z.shape)) & np.isfinite(
            np.broadcast_to(activation.numpy_derivative(1)(z), z.shape)
        )
    if not np.all(finite):
        bad = float(np.abs(z[~finite]).min())
        raise NumericError(
            f"phi={phi!r} overflows on the data's range: phi or phi' is not finite at |z| = {bad:.3g}, "
            f"inside |a^T x| <= {bound:.3g} (x in [-1, 1]^2, a in the fit box)"
        )


def with_signal(model: AttentionCode, params: HMoEParams, noise: float, X: np.ndarray):
    """ω scaled so that Var g*(X)/ν² ≥ SNR_TARGET (never scaled down); returns (params, snr)."""
    variance = float(model.value(params, X).var())
    if variance <= 0:
        raise NumericError("the truth's regression function is constant (Var g* = 0): no signal to fit, no rate")
    factor = max(1.0, float(np.sqrt(SNR_TARGET * noise**2 / variance)))
    scaled = HMoEParams(params.omega * factor, params.M, params.a)
    return scaled, float(model.value(scaled, X).var() / noise**2)


def _se(row) -> float:
    """The slope's standard error: the regression's, or read off a bootstrap interval as (high − low)/(2·1.96)."""
    return float(row.estimate.se)


def separation(rows, expected: str) -> tuple:
    """(separated, reason) for the rate ``rows`` under ``expected`` (module docstring)."""
    if expected not in ("rates at both truths", "witness slower"):
        raise ValueError(f"expected={expected!r}")
    problems = []
    if not rows:
        return False, "no rate rows: nothing to separate"
    if expected == "witness slower":  # each K needs both truths, else "slower at every K" would be vacuous
        truths_at: dict[int, set[str]] = {}
        for r in rows:
            truths_at.setdefault(r.K, set()).add(r.truth)
        for K, truths in sorted(truths_at.items()):
            if truths != {"generic", "witness"}:
                problems.append(f"K = {K}: only the {', '.join(sorted(truths))} truth was fitted (both are needed)")
    for r in rows:
        if r.ci is None:
            problems.append(f"{r.truth} K = {r.K}: slope {r.estimate.text(signed=True)}: nothing to separate")
        elif (expected == "rates at both truths" or r.truth == "generic") and r.ci[1] >= 0:
            problems.append(
                f"{r.truth} K = {r.K}: interval [{r.ci[0]:+.2f}, {r.ci[1]:+.2f}] contains 0 or lies above it"
            )
    if expected == "witness slower":
        by = {(r.truth, r.K): r for r in rows}
        for (truth, K), w in sorted(by.items()):
            g = by.get(("generic", K))
            if truth != "witness" or g is None or w.ci is None or g.ci is None:
                continue
            margin = Z95 * float(np.hypot(_se(w), _se(g)))
            if w.slope - g.slope <= margin:
                problems.append(
                    f"K = {K}: witness slope {w.slope:+.2f} is not slower than the generic {g.slope:+.2f} by more "
                    f"than {margin:.2f} (1.96 se of the difference)"
                )
    if problems:
        return False, "; ".join(problems)
    return True, (
        "every interval lies below 0"
        if expected == "rates at both truths"
        else "the generic truth's intervals lie below 0 and the witness is slower at every K"
    )


def grow(sizes, reps: int, round_index: int) -> tuple:
    """The grid of the next round: a size 2·max n added after odd rounds, the repetitions doubled after even ones."""
    if round_index % 2 == 1:
        return tuple(sizes) + (2 * max(sizes),), reps
    return tuple(sizes), 2 * reps


def fit_cost(out: Path) -> float | None:
    """Stored seconds per unit of n over every fit under ``out/rates`` (None before any fit)."""
    seconds = units = 0.0
    folders = [f for f in (out / "rates").iterdir() if f.is_dir()] if (out / "rates").is_dir() else []
    for folder in folders:
        try:
            records = read_records(folder)
        except NumericError:  # a folder without a store
            continue
        for record in records:
            seconds += record.seconds
            units += record.n
    return seconds / units if units else None


def rate_rows(
    model_kind,
    phi,
    truths,
    out: Path,
    sizes,
    reps: int,
    jobs: int,
    seed: int,
    progress,
    phi_params=None,
    spare: int = 1,
):
    """One :class:`RateRow` per (truth, K) for ``truths`` = [(label, params, snr, ν)], fitted into
    stores under ``out/rates`` with K = K* and K* + ``spare`` (K* alone when ``spare`` is 0).
    Only the fits of this grid (sizes, repetitions < ``reps``) enter the rates, whatever else the
    store holds."""
    rows = []
    phi_params = dict(phi_params or {})
    for label, params, snr, noise in truths:
        record = {
            "name": f"confirm-{label.replace(' ', '-')}",
            "description": f"numeric confirm: {label} truth for phi={phi}, omega scaled to Var g*/nu^2 = {snr:.1f}",
            "phi": phi,
            "phi_params": phi_params,
            "noise_std": noise,
            **params.to_dict(),
        }
        digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:10]
        folder = out / "rates" / f"{label.replace(' ', '-')}-{digest}"
        folder.mkdir(parents=True, exist_ok=True)
        truth_path = folder / "truth.json"
        truth_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
        K_star = params.K
        grid = Grid(
            models=(model_kind,),
            Ks=(K_star, K_star + spare) if spare else (K_star,),
            sizes=sizes,
            reps=reps,
            box=BOX_FACTOR,
            seed=seed,
        )
        run_grid(grid, folder, jobs=jobs, truth_path=truth_path, progress=progress)
        records = [r for r in read_records(folder) if r.n in sizes and r.rep < reps]
        rates = rates_from_records(records, read_settings(folder), ("voronoi", "voronoi_measure"))
        measure = {
            r.K: r for r in rates if r.quantity == "voronoi_measure"
        }  # the measure-level loss (numeric.losses.measure)
        for rate in (r for r in rates if r.quantity == "voronoi"):
            m = measure.get(rate.K)
            rows.append(
                RateRow(
                    label,
                    rate.K,
                    K_star,
                    rate.estimate,
                    snr,
                    rate.sizes,
                    rate.means,
                    rate.n_reps,
                    None if m is None else m.estimate,
                )
            )
    return tuple(rows)


MAX_K = 16  # channels per head a rate grid takes (numeric.experiments.sweep.Grid)


def check_K(K, K_star: int, sizes) -> None:
    """``K`` (channels per head of the fitted model): from K* to MAX_K, and a fit at the largest size within the
    memory budget."""
    if isinstance(K, bool) or not isinstance(K, int) or not K_star <= K <= MAX_K:
        raise NumericError(
            param="K", value=K, reason=f"must be from K* = {K_star} (the generic truth's channels per head) to {MAX_K}"
        )
    need, budget = estimate_bytes("lm", max(sizes), 2, 2, K, 2), memory_budget()
    if need > budget:
        raise NumericError(
            param="K",
            value=K,
            reason=f"a fit at n = {max(sizes)} needs ~{need / 2**20:.0f} MB, "
            f"above the budget of {budget / 2**20:.0f} MB",
        )
