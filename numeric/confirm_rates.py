"""The rates of ``numeric confirm`` (step 4): Figure-1-style grids at the witness configuration
and at the generic truth.

Each truth is scaled in ω (never down) so that Var g*(X)/ν² ≥ SNR_TARGET = 12 (SNR_REQUIRED = 10
with a margin for the Monte Carlo estimate of the variance), written as a truth file, and fitted
with K = K* and K = K* + 1 channels inside the box of factor BOX_FACTOR
(:func:`numeric.sweep.run_grid`); slopes and bootstrap CIs come from
:func:`numeric.rates.rates_from_records`. Before anything is written, φ and φ' are checked finite
wherever a fit can take aᵀx: |aᵀx| ≤ BOX_FACTOR·max|a*|·d for x ∈ [−1, 1]^d.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

from .confirm_result import RateRow
from .models import Model
from .params import HMoEParams, NumericError
from .rates import rates_from_records
from .store import read_records, read_settings
from .sweep import Grid, run_grid

__all__ = ["check_range", "with_signal", "rate_rows", "SNR_TARGET", "BOX_FACTOR"]

SNR_TARGET = 12.0  # Var g*/ν² aimed at (≥ 10 required, with a margin for the Monte Carlo estimate)
BOX_FACTOR = 2.0


def check_range(model: Model, params_list):
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


def with_signal(model: Model, params: HMoEParams, noise: float, X: np.ndarray):
    """ω scaled so that Var g*(X)/ν² ≥ SNR_TARGET (never scaled down); returns (params, snr)."""
    variance = float(model.value(params, X).var())
    if variance <= 0:
        raise NumericError("the truth's regression function is constant (Var g* = 0): no signal to fit, no rate")
    factor = max(1.0, float(np.sqrt(SNR_TARGET * noise**2 / variance)))
    scaled = HMoEParams(params.omega * factor, params.M, params.a)
    return scaled, float(model.value(scaled, X).var() / noise**2)


def rate_rows(model_kind, phi, truths, out: Path, sizes, reps: int, jobs: int, seed: int, progress, phi_params=None, spare: int = 1):
    """One :class:`RateRow` per (truth, K) for ``truths`` = [(label, params, snr, ν)], fitted into
    stores under ``out/rates`` with K = K* and K* + ``spare`` (K* alone when ``spare`` is 0)."""
    rows = []
    phi_params = dict(phi_params or {})
    for label, params, snr, noise in truths:
        record = {"name": f"confirm-{label}", "description": f"numeric confirm: {label} truth for phi={phi}, omega scaled to Var g*/nu^2 = {snr:.1f}",
                  "phi": phi, "phi_params": phi_params, "noise_std": noise, **params.to_dict()}
        digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode()).hexdigest()[:10]
        folder = out / "rates" / f"{label}-{digest}"
        folder.mkdir(parents=True, exist_ok=True)
        truth_path = folder / "truth.json"
        truth_path.write_text(json.dumps(record, indent=1), encoding="utf-8")
        K_star = params.K
        grid = Grid(models=(model_kind,), Ks=(K_star, K_star + spare) if spare else (K_star,), sizes=sizes, reps=reps, box=BOX_FACTOR, seed=seed)
        run_grid(grid, folder, jobs=jobs, truth_path=truth_path, progress=progress)
        rates = rates_from_records(read_records(folder), read_settings(folder), ("voronoi", "voronoi_measure"))
        measure = {r.K: r for r in rates if r.quantity == "voronoi_measure"}  # the measure-level loss (numeric.measure_loss)
        for rate in (r for r in rates if r.quantity == "voronoi"):
            m = measure.get(rate.K)
            rows.append(RateRow(label, rate.K, K_star, rate.slope, (rate.ci_low, rate.ci_high), snr, rate.sizes, rate.means, rate.n_reps,
                                None if m is None else m.slope, None if m is None else (m.ci_low, m.ci_high)))
    return tuple(rows)
