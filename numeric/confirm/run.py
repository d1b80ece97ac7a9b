"""``numeric confirm``: identcheck's symbolic verdict and its statistical consequence, in one run.

1. identcheck checks φ for the condition (type1 → Setting I, model ``gated1``; type2 → Setting II,
   model ``gated2``).
2. Not identifiable: the witness probe is lifted into the model and a witness path G_t → G* is
   built from its first relation (:mod:`numeric.confirm.witness`); the ratio
   ρ(t) = ‖g_{G_t} − g_{G*}‖_{L²(μ)} / L2(G_t, G*) is measured for t = 10⁻¹ … 10⁻⁴.
3. Every probe that counts (and lifts) gets a path along its model's least sensitive direction,
   and the generic truth three random lines and a random split. Beside them, channel
   recombination at the generic truth with K channels per head (:mod:`numeric.confirm.recombination`):
   the local ε-recombination as a path of kind ``recombination`` when K ≥ K* + 2, the global
   exact alternative (K ≥ K* + 1) and the swap (equal weights) as fixed points. Exact for every φ
   in Setting I, measured (not exact) in Setting II; it is a fact about the channel-level loss,
   so it does not enter the verdict.
4. Rates: a Figure-1-style grid at the witness configuration and at the generic truth (the
   shipped default truth with this φ), each scaled in ω so that Var g*(X)/ν² ≥ 10, fitted with
   K = K* and K = K* + 1 channels (:mod:`numeric.confirm.rates`).
5. Outcome (:data:`numeric.confirm.result.OUTCOMES`): first from the paths (``paths_outcome``) —
   *consistent* when (not identifiable and the witness ratio → 0) or (identifiable and every
   ratio is bounded away from 0 with its plateau in the data); *identifiable-beyond-condition*
   when identcheck says not identifiable but no witness construction reaches 0 (none of them
   exact by derivation) and every path shows a positive plateau; *inconsistent* for a real
   contradiction; *not-resolved* when a path the decision needs shows neither; then, when the
   rate grid runs, *rates-not-separated* if its intervals do not separate within ``budget``
   (:mod:`numeric.confirm.rates`). "→ 0" means ``exact_invariance`` (‖Δg‖ ≤ EXACT_TOL·‖g*‖), or
   a t → 0 limit ρ₀ = 0 (computed from first-order quantities, :mod:`numeric.confirm.curves`) with a
   log-log slope ≥ ``SLOPE_TO_ZERO`` = 0.25 over t = 10⁻¹ … 10⁻⁴; "bounded" means ρ₀ > 0 and the
   ratio at the smallest t within 2× of it (t extended below 10⁻⁴ as far as float64 allows).
   The rule that reads one sequence is :class:`numeric.confirm.result.Sequence`; the figure is
   :mod:`numeric.confirm.plot`.
"""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import numpy as np

import identcheck
from identcheck.util.environment import environment

from ..model.attention import exact_constants
from ..model.attention_declared import attention_model
from ..model.attention_params import NumericError
from ..model.attention_truth import load_truth
from ..shipped import SHIPPED
from .curves import ratio_curve
from .outcome import paths_outcome as read_paths
from .plot import ratio_figure
from .rates import SNR_TARGET, check_K, check_range, fit_cost, grow, rate_rows, separation, with_signal
from .recombination import alternatives as recombination_alternatives
from .recombination import recombination_path
from .result import OUTCOMES, SLOPE_TO_ZERO, ConfirmResult, RateRow, RateSeparation, Sequence, SymbolicSummary
from .witness import CONSTRUCTIONS, lift_probe, probe_path, random_paths, relation_construction, witness_path

__all__ = ["ConfirmResult", "RateRow", "Sequence", "confirm", "OUTCOMES", "SLOPE_TO_ZERO", "SNR_TARGET"]
__all__ += ["QUICK_SIZES", "FULL_SIZES", "QUICK_BUDGET", "FULL_BUDGET"]

#: The model whose theorem each condition certifies φ for (:mod:`numeric.shipped`).
MODEL_FOR = {spec.condition: name for name, spec in SHIPPED.items() if spec.condition is not None}
#: The standard window of t along a path: 0.1 … 1e-4, seven log-spaced values.
T_VALUES = tuple(float(t) for t in np.logspace(-1, -4, 7))
#: The first rate grid with ``quick=True``: sample sizes, and repetitions per size.
QUICK_SIZES, QUICK_REPS = (1000, 2000, 4000, 8000), 3
#: The first rate grid without ``quick``: sample sizes, and repetitions per size.
FULL_SIZES, FULL_REPS = (2000, 4000, 8000, 16000, 32000), 6
MAX_TRIED = 12  # witness paths evaluated at most (relations sorted by construction, exact first)
#: The whole command's time budget in seconds (the rate grid grows only within it): --quick, default.
QUICK_BUDGET, FULL_BUDGET = 150.0, 900.0
#: A grid round never goes past this many sizes (the largest n: 2**(MAX_SIZES - 4) times the first grid's).
MAX_SIZES = 7
#: A round runs only if 1.5 times its predicted time fits in what is left of the budget (the load of a shared
#: machine varies).
GROWTH_SAFETY = 1.5


def _sequence(model, path, X) -> Sequence:
    curve = ratio_curve(model, path, T_VALUES, X, extend=True)  # down to the plateau where the limit is positive
    ratio_se = tuple(se / loss if loss > 0 else 0.0 for se, loss in zip(curve.distance_se, curve.loss))
    if curve.exact_invariance:
        ratio_se = tuple(0.0 for _ in ratio_se)
    return Sequence(
        path.kind,
        path.name,
        path.construction,
        path.note,
        curve.t,
        curve.ratio,
        ratio_se,
        curve.loss,
        curve.slope,
        curve.exact_invariance,
        curve.max_relative_change,
        curve.limit,
        curve.sensitivity,
        curve.window,
    )


def _witness_sequence(model, candidates, condition, X):
    """The witness path. ``candidates`` = [(probe, lift)], identcheck's witness probe first, then the
    other dependent probes in order. All their relations are ordered by construction, exact ones
    first (:data:`numeric.confirm.witness.CONSTRUCTIONS`; within one
    construction, probe order then relation order), and lifted (:func:`numeric.confirm.witness.witness_path`)
    until one's ratio → 0, at most MAX_TRIED; else the one with the smallest t → 0 limit is
    reported. Returns (sequence, probe name, relation used)."""
    pairs = [
        (probe, lift, index, relation) for probe, lift in candidates for index, relation in enumerate(probe.relations)
    ]
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


def _recombination(model, truth, K: int, X):
    """(sequence or None, alternatives, line): channel recombination at the generic truth with K
    channels per head (:mod:`numeric.confirm.recombination`). The local ε-recombination is a path
    (kind ``recombination``) when K ≥ K* + 2; the global alternative (K ≥ K* + 1) and the swap (equal
    weights) are fixed points, reported beside it. φ plays no part in the constructions; whether g
    moves is measured."""
    found = recombination_alternatives(model, truth, K, X)
    sequence = _sequence(model, recombination_path(model, truth, K, X), X) if found[0].applies else None
    parts = []
    for a in found:
        if not a.applies:
            parts.append(f"{a.construction}: not built ({a.reason})")
            continue
        moved = "g unchanged (exact)" if a.exact else f"g moves, ||dg||/||g*|| = {a.relative_change:.1e}"
        at = f" at eps = {a.epsilon:g}" if a.epsilon is not None else ""
        parts.append(
            f"{a.construction}{at}: {moved}, channel-level L2 = {a.channel_loss:.3g}, "
            f"measure-level loss = {a.measure_loss:.1e}"
        )
    why = model.spec.recombination_short
    return sequence, found, f"channel recombination at K = {K} (K* = {truth.K}; {why}): " + "; ".join(parts)


#: One phrase per model: whether re-pairing channels is an invariance (numeric.confirm.recombination).
MODEL_NOTE_SHORT = {name: spec.recombination_short for name, spec in SHIPPED.items() if spec.recombination_short}


@dataclasses.dataclass(frozen=True)
class _RateGrid:
    """What every rates grid of one confirm shares; :meth:`rows` fits one grid (``sizes`` × ``reps``)."""

    model_kind: str
    phi: str
    truths: list  # [(label, params, snr, ν)]
    out: Path
    jobs: int
    seed: int
    progress: object
    phi_params: dict
    spare: int  # channels beyond K* (rate_rows' spare)

    def rows(self, sizes, reps):
        """:func:`~numeric.confirm.rates.rate_rows` on this grid at ``sizes`` × ``reps``."""
        return rate_rows(
            self.model_kind,
            self.phi,
            self.truths,
            self.out,
            sizes,
            reps,
            self.jobs,
            self.seed,
            self.progress,
            self.phi_params,
            spare=self.spare,
        )


def _rates(grid: _RateGrid, sizes, reps, expected, started, budget):
    """The rate rows and their :class:`RateSeparation`: the first grid, then grown (:func:`numeric.confirm.rates.grow`)
    while the intervals do not separate and the predicted time of the next round's new fits fits in ``budget``."""
    round_index, stop = 1, ""
    while True:
        rows = grid.rows(sizes, reps)
        separated, reason = separation(rows, expected)
        if separated:
            break
        next_sizes, next_reps = grow(sizes, reps, round_index)
        if len(next_sizes) > MAX_SIZES:
            stop = f"; the grid reached its largest size (n = {max(sizes)})"
            break
        per_n = fit_cost(grid.out)
        fits_per_point = len(grid.truths) * (2 if grid.spare else 1)
        new_units = fits_per_point * (sum(next_sizes) * next_reps - sum(sizes) * reps)
        predicted = (per_n or 0.0) * new_units / grid.jobs
        elapsed = time.perf_counter() - started
        if elapsed + GROWTH_SAFETY * predicted > budget:
            stop = (
                f"; the time budget ends ({elapsed:.0f} s spent, the next round's fits need ~{predicted:.0f} s "
                f"(x {GROWTH_SAFETY:g} for safety), budget {budget:.0f} s)"
            )
            break
        sizes, reps, round_index = next_sizes, next_reps, round_index + 1
    return rows, RateSeparation(expected, separated, reason + stop, round_index, tuple(sizes), reps, budget)


def confirm(
    phi: str,
    condition: str = "type1",
    quick: bool = False,
    jobs: int = 1,
    out=None,
    seed: int = 0,
    mc: int | None = None,
    rates: bool = True,
    figure: bool = True,
    progress=False,
    params: dict | None = None,
    K: int | None = None,
    budget: float | None = None,
) -> ConfirmResult:
    """Run the confirmation (module docstring). Raises IdentcheckError / NumericError on bad input.

    ``K``: channels per head of the over-specified fits of the rate grid (K* + (K − 2) at each
    truth: K − 2 spare channels, 2 being the generic truth's K*) and of the recombination
    constructions at the generic truth; default K* + 1 = 3.

    ``budget``: the whole command's time budget in seconds (default QUICK_BUDGET = 150 with
    ``quick``, FULL_BUDGET = 900 without); the rate grid grows within it until its intervals
    separate (:mod:`numeric.confirm.rates`).

    Nothing is written before φ has been checked on the data's range; ``out`` (a folder) receives
    the rate stores, the truth files, ``confirm.png`` and ``confirm.json``.
    """
    started = time.perf_counter()
    if condition not in MODEL_FOR:
        raise NumericError(param="condition", value=condition, reason="choose type1 or type2")
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= 64:
        raise NumericError(param="jobs", value=jobs, reason="must be from 1 to 64")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise NumericError(param="seed", value=seed, reason="must be >= 0")
    mc = mc if mc is not None else (20_000 if quick else 100_000)
    if not 1000 <= mc <= 2_000_000:
        raise NumericError(param="mc", value=mc, reason="must be from 1,000 to 2,000,000")
    budget = (QUICK_BUDGET if quick else FULL_BUDGET) if budget is None else budget
    if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0 < budget <= 86_400:
        raise NumericError(
            param="budget", value=budget, reason="must be a number of seconds from 0 (excluded) to 86400"
        )
    generic = load_truth()
    sizes, reps = (QUICK_SIZES, QUICK_REPS) if quick else (FULL_SIZES, FULL_REPS)
    K = generic.params.K + 1 if K is None else K
    check_K(K, generic.params.K, sizes)
    phi_params = {k: str(v) for k, v in (params or {}).items()}  # φ's named constants, e.g. {"b": "1"}
    exact = exact_constants(phi_params)
    check = identcheck.check(phi, condition=condition, dim=2, seed=seed, params=exact)
    check_seconds = time.perf_counter() - started
    model_kind = MODEL_FOR[condition]
    model = attention_model(model_kind, phi, phi_params)  # the declaration; hand-written for named constants
    X = np.random.default_rng([seed, 0xC0F]).uniform(-1.0, 1.0, size=(mc, 2))

    lifts, skipped = {}, []
    for probe in check.probes:
        if not probe.counts_for_verdict:
            continue
        try:
            lifts[probe.name] = (probe, lift_probe(probe, condition))
        except NumericError as exc:
            skipped.append((probe.name, str(exc)))
    check_range(model, [lift.params for _, lift in lifts.values()] + [generic.params])
    with np.errstate(over="raise", invalid="raise"):
        try:
            generic_params, generic_snr = with_signal(model, generic.params, generic.noise_std, X)
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
    recombined, recombination, recombination_line = _recombination(model, generic_params, K, X)
    if recombined is not None:
        sequences.append(recombined)
    sequence_seconds = time.perf_counter() - sequence_started
    paths_outcome, line = read_paths(check, sequences)
    outcome, separation_result = paths_outcome, None

    symbolic = SymbolicSummary.of(check, used_probe, used_relation)

    out_path = Path(out) if out is not None else None
    rows, figure_path, rates_seconds = (), None, 0.0
    if out_path is not None:
        try:
            out_path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise NumericError(param="out", value=str(out_path), reason=f"cannot create ({exc.strerror})") from None
        if rates:
            if witness_lift is None and lifts:  # identifiable: the least independent probe stands in
                hardest = min((p for p, _ in lifts.values()), key=lambda p: p.smallest_singular_value)
                witness_lift = lifts[hardest.name][1]
            truths = []
            if witness_lift is not None:  # an identifiable phi's least independent probe is no witness: named so
                label = "witness" if check.verdict == "not identifiable" else "hardest probe"
                try:
                    params, snr = with_signal(model, witness_lift.params, generic.noise_std, X)
                    truths.append((label, params, snr, generic.noise_std))
                except NumericError as exc:
                    skipped.append(("witness rates", str(exc)))
            truths.append(("generic", generic_params, generic_snr, generic.noise_std))
            rates_started = time.perf_counter()
            grid = _RateGrid(model_kind, phi, truths, out_path, jobs, seed, progress, phi_params, K - generic.params.K)
            if paths_outcome in ("consistent", "identifiable-beyond-condition"):  # the rates can confirm or contradict
                expected = (
                    "witness slower"
                    if check.verdict == "not identifiable" and paths_outcome == "consistent"
                    else "rates at both truths"
                )
                rows, separation_result = _rates(grid, sizes, reps, expected, started, budget)
                if not separation_result.separated:
                    outcome = "rates-not-separated"
                    line = (
                        f"rates-not-separated: the paths say {line}; "
                        f"but the rates ({separation_result.expected} expected) "
                        f"do not separate after {separation_result.rounds} grid round(s): {separation_result.reason}"
                    )
            else:  # inconsistent or not resolved: the first grid is reported, it cannot change the outcome
                rows = grid.rows(sizes, reps)
            rates_seconds = time.perf_counter() - rates_started
        if figure:
            figure_path = ratio_figure(
                sequences,
                out_path / "confirm.png",
                f"{phi} ({condition}, model {model_kind}): {outcome}"
                f" — {'quick, ' if quick else ''}{mc} Monte Carlo points per ratio",
                rows,
                separation_result,
                used_probe,
            )
    result = ConfirmResult(
        phi=phi + (" [" + ", ".join(f"{k}={v}" for k, v in sorted(phi_params.items())) + "]" if phi_params else ""),
        condition=condition,
        model=model_kind,
        symbolic=symbolic,
        sequences=tuple(sequences),
        rates=rows,
        outcome=outcome,
        verdict=line,
        seconds=round(time.perf_counter() - started, 2),
        sequence_seconds=round(sequence_seconds, 2),
        mc_points=mc,
        check_seconds=round(check_seconds, 2),
        rates_seconds=round(rates_seconds, 2),
        skipped=tuple(skipped),
        figure=figure_path,
        out=None if out_path is None else str(out_path),
        K=K,
        recombination=recombination,
        recombination_line=recombination_line,
        paths_outcome=paths_outcome,
        separation=separation_result,
        environment=environment(),
    )
    if out_path is not None:
        (out_path / "confirm.json").write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    return result
