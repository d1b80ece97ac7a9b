r"""``numeric confirm --condition deepseek-routed|deepseek-shared|deepseek-weak --expert EXPR``:
identcheck's expert condition, the model-level check, and their consequence in the declared model.

1. identcheck checks the expert for the condition (d = the declaration's input dimension, 1).
2. The expert is put into the DeepSeekMoE declaration (:mod:`numeric.confirm.expert_model`): at the
   witness probe's atoms, and at a generic truth.
3. Witness paths from the relations of every dependent probe (:mod:`numeric.confirm.expert_paths`),
   first order before splits, identcheck's witness probe first, at most MAX_TRIED; the first whose
   ratio ρ(t) = ‖f_t − f*‖/D → 0 is the witness, else the one with the smallest t → 0 limit. Every
   counting probe's truth gets a path along its least sensitive direction, the generic truth
   three random lines and two random splits.
4. The outcome of the paths (:func:`numeric.confirm.outcome.paths_outcome`, the φ rules).
5. The model-level check (:func:`identcheck.model.check_declaration`) of the declaration at the
   truth that decides the paths' outcome (that of the first path whose ratio goes to 0, the
   witness first; else the witness path's; else the generic truth): its prediction for the expert
   is the per-cell verdict of the expert part's atoms there, compared with the paths at that truth. The
   result says whether the prediction differs from the literal condition's verdict, and whether
   the measured paths agree with the prediction.
6. With ``rates`` and ``out``: a small fixed grid of fits at the compared truth and the generic
   truth (:mod:`numeric.confirm.expert_rates`); it does not enter the outcome (:data:`RATES_NOTE`).
7. With ``out`` (and ``figure``): ``confirm.png``, the paths' ratios and the rate grid
   (:func:`numeric.confirm.plot.ratio_figure`), beside ``confirm.json``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import identcheck
from identcheck.model import check_declaration
from identcheck.parse.expert import parse_expert
from identcheck.util.environment import environment

from ..errors import NumericError
from .curves import DISTANCE_FLOOR, EXACT_TOL, PLATEAU_FACTOR, T_MIN
from .expert_model import BASE, PART_FOR, expert_setting, generic_atoms
from .expert_paths import (
    EXPERT_CONSTRUCTIONS,
    expert_construction,
    expert_sequence,
    random_expert_paths,
    relation_path,
    smallest_direction,
)
from .expert_rates import expert_rates
from .outcome import paths_outcome
from .paths import NULL_TOL
from .plot import ratio_figure
from .result import OUTCOMES, SCHEMA, SymbolicSummary
from .run import T_VALUES
from .splits import RESIDUAL_TOL

__all__ = ["EXPERT_CONDITIONS", "ExpertConfirmResult", "ModelPrediction", "confirm_expert", "MAX_TRIED"]

EXPERT_CONDITIONS = tuple(PART_FOR)
MAX_TRIED = 12
#: What the expert confirmation says of its rate grid.
RATES_NOTE = (
    "rates: a small fixed grid of EM fits (numeric.confirm.expert_rates), slope of the mean declared loss in n; "
    "it does not grow and does not enter the outcome, which is the paths'"
)
#: The figure's axis labels: the ratio along a path, the declared loss of the rate grid
FIGURE_LABELS = ("‖f_t − f*‖ / D (L² over x and y)", "mean declared Voronoi loss D")
#: Seconds of the model-level check (shared among the model's atoms): quick, default.
QUICK_MODEL_SECONDS, MODEL_SECONDS = 60.0, 180.0


@dataclass(frozen=True, slots=True)
class ModelPrediction:
    """The model-level check at the truth the paths are compared at: the model's verdict, the expert
    part's atoms' verdicts, and the prediction for the expert, per cell: ``not identifiable`` when
    an atom of its part is, ``identifiable`` when every one is, else ``inconclusive``. The whole
    model's ``verdict`` may be inconclusive where the per-cell one is not (cells coupled through a
    softmax denominator, which the per-cell systems do not express): the comparison line says so."""

    truth: str
    verdict: str
    evidence: str
    summary: str
    atoms: tuple  # ((atom name, verdict, summary), …) of the expert's part
    prediction: str
    seconds: float

    def to_dict(self) -> dict:
        return {
            "truth": self.truth,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "summary": self.summary,
            "atoms": [{"atom": a, "verdict": v, "summary": s} for a, v, s in self.atoms],
            "prediction": self.prediction,
            "seconds": self.seconds,
        }


@dataclass(frozen=True, slots=True)
class ExpertConfirmResult:
    """``verdict`` is ``"<outcome>: <why>"`` (:data:`numeric.confirm.OUTCOMES`); ``comparison`` the line
    that sets the measured outcome beside the model-level prediction and the literal condition."""

    expert: str
    condition: str
    model: str
    part: str
    symbolic: SymbolicSummary
    model_check: ModelPrediction | None
    sequences: tuple
    rates: tuple
    outcome: str
    paths_outcome: str
    verdict: str
    comparison: str
    differs_from_condition: bool | None
    agrees_with_model: bool | None
    seconds: float
    sequence_seconds: float
    check_seconds: float
    rates_seconds: float = 0.0
    separation: Any = None
    skipped: tuple = field(repr=False, default=())
    out: str | None = None
    figure: str | None = None
    environment: dict | None = field(default=None, compare=False, repr=False)

    @property
    def outcome_meaning(self) -> str:
        return OUTCOMES.get(self.outcome, "")

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA,
            "phi": None,
            "expert": self.expert,
            "condition": self.condition,
            "model": self.model,
            "part": self.part,
            "symbolic": self.symbolic.to_dict(),
            "model_check": None if self.model_check is None else self.model_check.to_dict(),
            "model_comparison": {
                "line": self.comparison,
                "per_cell_differs_from_condition": self.differs_from_condition,
                "measured_agrees_per_cell": self.agrees_with_model,
            },
            "sequences": [s.to_dict() for s in self.sequences],
            "rates": [r.to_dict() for r in self.rates],
            "rates_note": RATES_NOTE,
            "outcome": self.outcome,
            "paths_outcome": self.paths_outcome,
            "rates_separation": None if self.separation is None else self.separation.to_dict(),
            "verdict": self.verdict,
            "seconds": self.seconds,
            "sequence_seconds": self.sequence_seconds,
            "check_seconds": self.check_seconds,
            "rates_seconds": self.rates_seconds,
            "mc_points": None,
            "skipped_probes": [list(s) for s in self.skipped],
            "tolerances": {
                "plateau": f"smallest-t ratio within {PLATEAU_FACTOR:g}x of a positive limit; t extended by half "
                f"decades down to {T_MIN:g} or until ||f_t - f*|| < {DISTANCE_FLOOR:g} * ||f*||",
                "exact_invariance": f"max_t ||f_t - f*|| <= {EXACT_TOL:g} * ||f*|| (L2(mu x dy), quadrature)",
                "null_space": f"sensitivity ||J_s d_s|| / (s_max ||d_s||) <= {NULL_TOL:g}: limit 0",
                "split_residual": f"||Q + J w|| <= {RESIDUAL_TOL:g} * ||Q||: limit 0",
            },
            "out": self.out,
            "figure": self.figure,
            "environment": self.environment,
        }


def _model_prediction(setting, label: str, seconds: float) -> ModelPrediction:
    started = time.perf_counter()
    result = check_declaration(setting.declaration, max_order=4, max_cell=2, seconds=seconds)
    atoms = tuple((v.atom.name, str(v.verdict), v.summary) for p, v in result.results if p == setting.part)
    verdicts = {v for _, v, _ in atoms}
    if "not identifiable" in verdicts:
        prediction = "not identifiable"
    elif verdicts == {"identifiable"}:
        prediction = "identifiable"
    else:
        prediction = "inconclusive"
    return ModelPrediction(
        label,
        str(result.verdict),
        str(result.evidence),
        result.summary,
        atoms,
        prediction,
        round(time.perf_counter() - started, 2),
    )


def _truth_of(sequence, used_probe) -> str:
    """The truth a path lives on: the witness probe's, a probe's own, or ``generic``."""
    if sequence.kind == "witness":
        return used_probe
    return sequence.name if sequence.kind == "probe" else "generic"


def _deciding_truth(sequences, used_probe) -> str:
    """The truth the model-level check is compared at: that of the first path whose ratio goes to 0
    (the witness first), else the witness path's, else the generic truth."""
    ordered = [q for q in sequences if q.kind == "witness"] + [q for q in sequences if q.kind != "witness"]
    deciding = next((q for q in ordered if q.to_zero), None)
    if deciding is not None:
        return _truth_of(deciding, used_probe)
    return used_probe if used_probe is not None else "generic"


def _compare(condition_verdict: str, sequences, prediction: ModelPrediction | None):
    """(line, differs from the condition, measured agrees with the model) for the paths at the
    model-level check's truth."""
    if any(s.to_zero for s in sequences):
        measured = "not identifiable"
    elif sequences and all(s.bounded for s in sequences):
        measured = "identifiable"
    else:
        measured = None
    if prediction is None:
        return f"the model-level check did not run; the paths say {measured or 'nothing decided'}", None, None
    said = prediction.prediction
    differs = None if said == "inconclusive" else said != condition_verdict
    agrees = None if said == "inconclusive" or measured is None else measured == said
    parts = [f"model-level check ({prediction.truth} truth): {said} for this expert"]
    if differs:
        parts.append(f"which differs from the literal condition's verdict ({condition_verdict})")
    elif differs is False:
        parts.append(f"as the literal condition says ({condition_verdict})")
    parts.append(
        f"the {len(sequences)} measured path(s) at that truth say "
        + (measured or "nothing decided")
        + ("" if agrees is None else (" — they agree with it" if agrees else " — they DISAGREE with it"))
    )
    if prediction.verdict != said:
        parts.append(f"(per cell; the whole model: {prediction.verdict}: {prediction.summary})")
    return "; ".join(parts), differs, agrees


def confirm_expert(
    expert: str,
    condition: str = "deepseek-routed",
    quick: bool = False,
    seed: int = 0,
    out=None,
    model_check: bool = True,
    model_seconds: float | None = None,
    rates: bool = False,
    jobs: int = 1,
    progress=False,
    figure: bool = True,
) -> ExpertConfirmResult:
    """Run the expert confirmation (module docstring). Bad input raises IdentcheckError / NumericError
    before anything is written."""
    started = time.perf_counter()
    if condition not in EXPERT_CONDITIONS:
        raise NumericError(
            param="condition",
            value=condition,
            reason=f"no declaration holds this condition's expert (choose {', '.join(EXPERT_CONDITIONS)})",
        )
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise NumericError(param="seed", value=seed, reason="must be >= 0")
    model_seconds = (QUICK_MODEL_SECONDS if quick else MODEL_SECONDS) if model_seconds is None else model_seconds
    if not 0 < model_seconds <= 3600:
        raise NumericError(param="model_seconds", value=model_seconds, reason="must be from 0 (excluded) to 3600")
    dim = 1  # the DeepSeekMoE declarations' input dimension
    parsed = parse_expert(expert, dim)  # the condition's own refusal comes first, from identcheck.check
    check = identcheck.check(expert, condition=condition, dim=dim, seed=seed)
    generic = expert_setting(condition, expert, generic_atoms(parsed, seed), seed)
    check_seconds = time.perf_counter() - started

    sequence_started = time.perf_counter()
    settings, skipped = {}, []
    for probe in check.probes:
        if not probe.counts_for_verdict:
            continue
        try:
            atoms = [a.values for a in probe.components]
            settings[probe.name] = (probe, expert_setting(condition, expert, atoms, seed))
        except NumericError as exc:
            skipped.append((probe.name, str(exc)))
    jacobians = {name: s.jacobian() for name, (_, s) in settings.items()}
    sequences = []
    used_probe = used_relation = None
    dependent = [name for name, (p, _) in settings.items() if p.dependent]
    dependent.sort(key=lambda name: name != check.witness)
    if str(check.verdict) == "not identifiable" and dependent:
        pairs = [(name, index, rel) for name in dependent for index, rel in enumerate(settings[name][0].relations)]
        pairs.sort(key=lambda p: EXPERT_CONSTRUCTIONS.index(expert_construction(p[2])))
        best = None
        for name, index, relation in pairs[:MAX_TRIED]:
            setting = settings[name][1]
            path = relation_path(setting, jacobians[name], relation)
            total = len(settings[name][0].relations)
            note = f"probe '{name}', relation {index + 1} of {total} ({relation}); {path.note}"
            sequence = expert_sequence(path, jacobians[name], T_VALUES)
            sequence = dataclasses.replace(sequence, name=f"{path.name} [{name}]", note=note)
            if sequence.to_zero:
                best = (0.0, sequence, name, relation)
                break
            key = sequence.limit if sequence.limit is not None else float("inf")
            if best is None or key < best[0]:
                best = (key, sequence, name, relation)
        if best is not None:
            sequences.append(best[1])
            used_probe, used_relation = best[2], best[3]
    for name, (_, setting) in settings.items():
        path = smallest_direction(setting, jacobians[name], "probe", name)
        sequences.append(expert_sequence(path, jacobians[name], T_VALUES))
    generic_J = generic.jacobian()
    for path in random_expert_paths(generic, generic_J, seed=seed):
        sequences.append(expert_sequence(path, generic_J, T_VALUES))
    sequence_seconds = time.perf_counter() - sequence_started
    outcome, line = paths_outcome(check, sequences)

    truth_name = _deciding_truth(sequences, used_probe)
    at_truth = [q for q in sequences if _truth_of(q, used_probe) == truth_name]
    prediction = None
    if model_check:
        at = generic if truth_name == "generic" else settings[truth_name][1]
        label = "generic" if truth_name == "generic" else f"probe '{truth_name}'"
        prediction = _model_prediction(at, label, model_seconds)
    comparison, differs, agrees = _compare(str(check.verdict), at_truth, prediction)

    symbolic = SymbolicSummary.of(check, used_probe, used_relation)
    out_path = Path(out) if out is not None else None
    rows, rates_seconds, figure_path = (), 0.0, None
    if out_path is not None:
        try:
            out_path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise NumericError(param="out", value=str(out_path), reason=f"cannot create ({exc.strerror})") from None
        if rates:
            rates_started = time.perf_counter()
            truths = [] if truth_name == "generic" else [(f"probe {truth_name}", settings[truth_name][1])]
            rows = expert_rates(truths + [("generic", generic)], out_path, quick, jobs, seed, progress)
            rates_seconds = time.perf_counter() - rates_started
        if figure:
            title = f"{expert} [{condition}, part '{generic.part}' of {BASE}]: {outcome}{' (quick)' if quick else ''}"
            figure_path = ratio_figure(sequences, out_path / "confirm.png", title, rows, labels=FIGURE_LABELS)
    result = ExpertConfirmResult(
        expert=expert,
        condition=condition,
        model=BASE,
        part=generic.part,
        symbolic=symbolic,
        model_check=prediction,
        sequences=tuple(sequences),
        rates=rows,
        rates_seconds=round(rates_seconds, 2),
        outcome=outcome,
        paths_outcome=outcome,
        verdict=line,
        comparison=comparison,
        differs_from_condition=differs,
        agrees_with_model=agrees,
        seconds=round(time.perf_counter() - started, 2),
        sequence_seconds=round(sequence_seconds, 2),
        check_seconds=round(check_seconds, 2),
        skipped=tuple(skipped),
        out=None if out_path is None else str(out_path),
        figure=figure_path,
        environment=environment(),
    )
    if out_path is not None:
        (out_path / "confirm.json").write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    return result
