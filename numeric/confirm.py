"""``numeric confirm``: identcheck's symbolic verdict and its statistical consequence, in one run.

1. identcheck checks φ for the condition (type1 → Setting I, model ``gated1``; type2 → Setting II,
   model ``gated2``).
2. Not identifiable: the witness probe is lifted into the model and a witness path G_t → G* is
   built from its first relation (:mod:`numeric.witness`); the ratio
   ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*) is measured for t = 10⁻¹ … 10⁻⁴.
3. Every probe that counts (and lifts) gets a path along its model's least sensitive direction,
   and the generic truth three random lines and a random split.
4. Rates: a Figure-1-style grid at the witness configuration and at the generic truth (the
   shipped default truth with this φ), each scaled in ω so that Var g*(X)/ν² ≥ 10, fitted with
   K = K* and K = K* + 1 channels (:func:`numeric.sweep.run_grid`, slopes and bootstrap CIs
   from :func:`numeric.rates.rates_from_records`).
5. Verdict: *consistent* when (not identifiable and the witness ratio → 0) or (identifiable and
   every ratio is bounded away from 0). "→ 0" means ``exact_invariance`` (the function did not
   move, ‖Δg‖ ≤ EXACT_TOL·‖g*‖), or a t → 0 limit ρ₀ = 0 (computed from first-order quantities,
   :mod:`numeric.witness`) together with a log-log slope ≥ ``SLOPE_TO_ZERO`` = 0.25 over the
   measured window (three decades of t: a fall by ≥ 5.6×); "bounded" means ρ₀ > 0. An
   inconclusive symbolic verdict has nothing to confirm (``consistent: null``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .models import Model, exact_constants
from .params import HMoEParams, NumericError
from .render import confirm_markdown
from .witness import CONSTRUCTIONS, EXACT_TOL, NULL_TOL, RESIDUAL_TOL, lift_probe, relation_construction, probe_path, random_paths, ratio_curve, witness_path

__all__ = ["ConfirmResult", "RateRow", "Sequence", "confirm", "SLOPE_TO_ZERO", "SNR_TARGET", "QUICK_SIZES", "FULL_SIZES"]

SLOPE_TO_ZERO = 0.25
SNR_TARGET = 12.0  # Var g*/ν² aimed at (≥ 10 required, with a margin for the Monte Carlo estimate)
SNR_REQUIRED = 10.0
MODEL_FOR = {"type1": "gated1", "type2": "gated2"}
T_VALUES = tuple(float(t) for t in np.logspace(-1, -4, 7))
QUICK_SIZES, QUICK_REPS = (1000, 2000, 4000, 8000), 3
FULL_SIZES, FULL_REPS = (2000, 4000, 8000, 16000, 32000), 6
BOX_FACTOR = 2.0
MAX_TRIED = 12  # witness paths evaluated at most (relations sorted by construction, exact first)


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
        }


@dataclass(frozen=True, slots=True)
class ConfirmResult:
    phi: str
    condition: str
    model: str
    symbolic: dict
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

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`numeric.render.confirm_markdown`)."""
        return confirm_markdown(self)

    def to_dict(self) -> dict:
        return {
            "phi": self.phi,
            "condition": self.condition,
            "model": self.model,
            "symbolic": dict(self.symbolic),
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


def _sequence(model, path, X) -> Sequence:
    curve = ratio_curve(model, path, T_VALUES, X)
    ratio_se = tuple(se / loss if loss > 0 else 0.0 for se, loss in zip(curve.distance_se, curve.loss))
    if curve.exact_invariance:
        ratio_se = tuple(0.0 for _ in ratio_se)
    return Sequence(path.kind, path.name, path.construction, path.note, curve.t, curve.ratio, ratio_se, curve.loss,
                    curve.slope, curve.exact_invariance, curve.max_relative_change, curve.limit, curve.sensitivity)


def _witness_sequence(model, candidates, condition, X):
    """The witness path. ``candidates`` = [(probe, lift)], identcheck's witness probe first, then the
    other dependent probes in order. All their relations are ordered by construction, exact ones
    first (:data:`numeric.witness.CONSTRUCTIONS`; within one
    construction, probe order then relation order), and lifted (:func:`numeric.witness.witness_path`)
    until one's ratio → 0, at most MAX_TRIED; else the one with the smallest t → 0 limit is
    reported. Returns (sequence, probe name, relation used)."""
    pairs = [(probe, lift, index, relation) for probe, lift in candidates
             for index, relation in enumerate(probe.relations)]
    pairs.sort(key=lambda p: CONSTRUCTIONS.index(relation_construction(p[3], condition)))
    best = None
    for probe, lift, index, relation in pairs[:MAX_TRIED]:
        path = witness_path(model, lift, (relation,), condition, X)
        note = f"probe '{probe.name}', relation {index + 1} of {len(probe.relations)} ({relation}); {path.note}"
        path = dataclasses.replace(path, name=f"{path.name} [{probe.name}]", note=note)
        sequence = _sequence(model, path, X)
        if sequence.to_zero:
            return sequence, probe.name, relation
        key = sequence.limit if sequence.limit is not None else float("inf")
        if best is None or key < best[0]:
            best = (key, sequence, probe.name, relation)
    return best[1], best[2], best[3]


def _check_range(model: Model, params_list):
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


def _with_signal(model: Model, params: HMoEParams, noise: float, X: np.ndarray):
    """ω scaled so that Var g*(X)/ν² ≥ SNR_TARGET (never scaled down); returns (params, snr)."""
    variance = float(model.value(params, X).var())
    if variance <= 0:
        raise NumericError("the truth's regression function is constant (Var g* = 0): no signal to fit, no rate")
    factor = max(1.0, float(np.sqrt(SNR_TARGET * noise**2 / variance)))
    scaled = HMoEParams(params.omega * factor, params.M, params.a)
    return scaled, float(model.value(scaled, X).var() / noise**2)


def _rates(model_kind, phi, truths, out: Path, quick: bool, jobs: int, seed: int, progress, phi_params=None):
    from .rates import rates_from_records
    from .store import read_records, read_settings
    from .sweep import Grid, run_grid

    sizes, reps = (QUICK_SIZES, QUICK_REPS) if quick else (FULL_SIZES, FULL_REPS)
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
        grid = Grid(models=(model_kind,), Ks=(K_star, K_star + 1), sizes=sizes, reps=reps, box=BOX_FACTOR, seed=seed)
        run_grid(grid, folder, jobs=jobs, truth_path=truth_path, progress=progress)
        for rate in rates_from_records(read_records(folder), read_settings(folder)):
            rows.append(RateRow(label, rate.K, K_star, rate.slope, (rate.ci_low, rate.ci_high), snr, rate.sizes, rate.means, rate.n_reps))
    return tuple(rows)


def describe(s: Sequence) -> str:
    """One phrase with the numbers of a sequence."""
    if s.exact_invariance:
        return f"'{s.name}': the function does not move at all (ratio 0; max ||dg||/||g*|| = {s.max_relative_change:.1e})"
    text = f"'{s.name}': slope {s.slope:.2f}, ratio {s.ratio[0]:.2e} at t = {s.t[0]:g} -> {s.ratio[-1]:.2e} at t = {s.t[-1]:g}"
    if s.limit is not None:
        text += f", t->0 limit {s.limit:.2e}"
    if s.sensitivity is not None:
        text += f" ({'residual' if s.construction == 'split' else 'sensitivity'} {s.sensitivity:.1e})"
    return text


def _verdict_line(check, sequences) -> tuple:
    witness = [s for s in sequences if s.kind == "witness"]
    others = [s for s in sequences if s.kind != "witness"]
    if check.verdict == "not identifiable":
        if not witness:
            return False, "inconsistent: identcheck says not identifiable but no witness path could be built in the model"
        s = witness[0]
        if s.to_zero:
            return True, f"consistent: identcheck says not identifiable (witness probe '{check.witness}'), and along the witness {describe(s)}"
        return False, (f"inconsistent: identcheck says not identifiable (witness probe '{check.witness}'), but the ratio along the "
                       f"witness stays bounded: {describe(s)}")
    if check.verdict == "identifiable":
        unbounded = [s for s in others if not s.bounded]
        if unbounded:
            return False, "inconsistent: identcheck says identifiable, but the ratio is not bounded away from 0 along " + "; ".join(
                describe(s) for s in unbounded)
        low = min(others, key=lambda s: s.limit if s.limit is not None else min(s.ratio))
        return True, (f"consistent: identcheck says identifiable, and the ratio is bounded away from 0 along all {len(others)} paths "
                      f"(smallest: {describe(low)})")
    return None, f"nothing to confirm: identcheck's verdict is {check.verdict!r} ({check.summary})"


def _figure(sequences, path: Path, title: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.8))
    positive = [r for s in sequences if not s.exact_invariance for r in (*s.ratio, s.limit or 0) if r > 0]
    floor = min(positive) / 10 if positive else 1e-6
    for s in sequences:
        color = "red" if s.kind == "witness" else ("0.35" if s.kind == "probe" else "tab:blue")
        width = 2.2 if s.kind == "witness" else 1.0
        z = 3 if s.kind == "witness" else 2
        if s.exact_invariance:
            ax.plot(s.t, [floor] * len(s.t), color=color, lw=width, ls="--", marker="v", zorder=z, label=f"{s.name} (ratio ≡ 0, drawn at floor)")
            continue
        ax.plot(s.t, s.ratio, color=color, lw=width, marker="o", ms=3, zorder=z, label=f"{s.name} (slope {s.slope:.2f})")
        if s.limit:  # the t -> 0 limit, dotted, left of the measured range
            ax.plot([s.t[-1] / 1000, s.t[-1]], [s.limit, s.limit], color=color, lw=width, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("‖g_t − g*‖ / L2(G_t, G*)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), title="dotted: t → 0 limit", title_fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return str(path)


def confirm(phi: str, condition: str = "type1", quick: bool = False, jobs: int = 1, out=None, seed: int = 0,
            mc: int | None = None, rates: bool = True, figure: bool = True, progress=False,
            params: dict | None = None) -> ConfirmResult:
    """Run the confirmation (module docstring). Raises IdentcheckError / NumericError on bad input.

    Nothing is written before φ has been checked on the data's range; ``out`` (a folder) receives
    the rate stores, the truth files, ``confirm.png`` and ``confirm.json``.
    """
    import identcheck

    from .truth import load_truth

    started = time.perf_counter()
    if condition not in MODEL_FOR:
        raise NumericError(f"--condition {condition!r}: choose type1 or type2")
    if not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise NumericError(f"--jobs {jobs!r}: must be from 1 to 64")
    mc = mc if mc is not None else (20_000 if quick else 100_000)
    if not 1000 <= mc <= 2_000_000:
        raise NumericError(f"--mc {mc}: must be from 1,000 to 2,000,000")
    phi_params = {k: str(v) for k, v in (params or {}).items()}  # φ's named constants, e.g. {"b": "1"}
    exact = exact_constants(phi_params)
    check = identcheck.check(phi, condition=condition, dim=2, seed=seed, params=exact)
    check_seconds = time.perf_counter() - started
    model_kind = MODEL_FOR[condition]
    model = Model(model_kind, phi, phi_params)
    X = np.random.default_rng([seed, 0xC0F]).uniform(-1.0, 1.0, size=(mc, 2))

    lifts, skipped = {}, []
    for probe in check.probes:
        if not probe.counts_for_verdict:
            continue
        try:
            lifts[probe.name] = (probe, lift_probe(probe, condition))
        except NumericError as exc:
            skipped.append((probe.name, str(exc)))
    generic = load_truth()
    _check_range(model, [lift.params for _, lift in lifts.values()] + [generic.params])
    with np.errstate(over="raise", invalid="raise"):
        try:
            generic_params, generic_snr = _with_signal(model, generic.params, generic.noise_std, X)
        except FloatingPointError:
            raise NumericError(f"phi={phi!r} overflows on the data's range (evaluating the generic truth)") from None

    sequence_started = time.perf_counter()
    sequences = []
    witness_lift = None
    used_relation = used_probe = None
    candidates = [lifts[p.name] for p in check.probes if p.dependent and p.name in lifts]
    candidates.sort(key=lambda c: c[0].name != check.witness)
    if check.verdict == "not identifiable" and candidates:
        witness, used_probe, used_relation = _witness_sequence(model, candidates, condition, X)
        witness_lift = lifts[used_probe][1]
        sequences.append(witness)
    for name, (probe, lift) in lifts.items():
        sequences.append(_sequence(model, probe_path(model, name, lift.params, X), X))
    for path in random_paths(model, generic_params, X, seed=seed):
        sequences.append(_sequence(model, path, X))
    sequence_seconds = time.perf_counter() - sequence_started
    consistent, line = _verdict_line(check, sequences)

    witness_probe = next((p for p in check.probes if p.name == check.witness), None)
    relation = witness_probe.relation if witness_probe is not None else None
    symbolic = {
        "verdict": check.verdict,
        "evidence": check.evidence,
        "witness_probe": check.witness,
        "relation": None if relation is None else str(relation),
        "family": None if relation is None else relation.family,
        "witness_path_probe": used_probe,
        "witness_path_relation": None if used_relation is None else str(used_relation),
        "summary": check.summary,
    }

    out_path = Path(out) if out is not None else None
    rate_rows, figure_path, rates_seconds = (), None, 0.0
    if out_path is not None:
        try:
            out_path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise NumericError(f"--out {str(out_path)!r}: cannot create ({exc.strerror})") from None
        if rates:
            if witness_lift is None and lifts:  # identifiable: the least independent probe stands in
                hardest = min((p for p, _ in lifts.values()), key=lambda p: p.smallest_singular_value)
                witness_lift = lifts[hardest.name][1]
            truths = []
            if witness_lift is not None:
                try:
                    params, snr = _with_signal(model, witness_lift.params, generic.noise_std, X)
                    truths.append(("witness", params, snr, generic.noise_std))
                except NumericError as exc:
                    skipped.append(("witness rates", str(exc)))
            truths.append(("generic", generic_params, generic_snr, generic.noise_std))
            rates_started = time.perf_counter()
            rate_rows = _rates(model_kind, phi, truths, out_path, quick, jobs, seed, progress, phi_params)
            rates_seconds = time.perf_counter() - rates_started
        if figure:
            figure_path = _figure(sequences, out_path / "confirm.png", f"{phi} ({condition}, model {model_kind}): {line.split(':')[0]}")
    result = ConfirmResult(
        phi=phi + (" [" + ", ".join(f"{k}={v}" for k, v in sorted(phi_params.items())) + "]" if phi_params else ""),
        condition=condition,
        model=model_kind,
        symbolic=symbolic,
        sequences=tuple(sequences),
        rates=rate_rows,
        consistent=consistent,
        verdict=line,
        seconds=round(time.perf_counter() - started, 2),
        sequence_seconds=round(sequence_seconds, 2),
        mc_points=mc,
        check_seconds=round(check_seconds, 2),
        rates_seconds=round(rates_seconds, 2),
        skipped=tuple(skipped),
        figure=figure_path,
        out=None if out_path is None else str(out_path),
    )
    if out_path is not None:
        (out_path / "confirm.json").write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    return result
