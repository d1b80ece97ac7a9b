"""Replay a certificate from a check's JSON (``identcheck check --certify --json``): the entry point
that finds the condition by name, above the conditions (:mod:`identcheck.rank.certificates` is below
them and knows none).

>>> from identcheck.replay import replay
>>> replay(result, "random pair")                  # doctest: +SKIP
{'proved': True, 'residual_bound': 5.2e-29, 'sigma_min_lower_bound': ..., 'reason': None}

The condition is rebuilt from the JSON (``Condition.from_json``: φ — its ``expression`` — or the
expert, d, the seed, its options), the probe through the condition (``Condition.probe_from_json``:
its component type reads the parameters exactly). Before any arithmetic the record is checked
against what the probe *claims*, rebuilt from the condition and never read from the record
(:func:`~identcheck.rank.certificates.claim_mismatch`): the condition must have a probe of that name
with exactly the recorded components; an independent probe (``dependent: false``, nullity 0)
needs a minor on exactly all the columns its rank decision judged (``condition.matrix``), a
dependent one of nullity k its k recorded relations — each proved identically zero again by the
condition's exact prover, each with a pivot (its first column) no other relation uses — and a
minor on exactly the other columns (the ``rest_certificate``); the minor's rows must be distinct
sample points of the probe, the recorded points exactly those. Only then is the interval test
repeated (:func:`~identcheck.rank.certificates.replay_interval`). A record that fits no claim is not
replayed (``proved`` False, ``reason`` why; exit 1 from the command); one that cannot be read
against its probe is malformed (an IdentcheckError, exit 2). A condition registered at run time
(``CONDITIONS["toy"] = Toy``) replays the same way.

**What a replay that passes proves**, for the recorded condition, φ (``expression``), d, seed and
options: for an independent probe, that the functions of all its judged columns, at the probe's
exact parameters, are linearly independent on [−1, 1]^d (a nonsingular square minor at sample
points); for a dependent probe, that its nullity is exactly k (k independent relations proved,
the other columns independent). **What it does not prove:** anything at parameter values not
probed; that the probes were judged on the right columns (a condition's φ-free reduction, e.g.
type-2's "2 removed by relations that hold for every φ", is the condition's, rebuilt, not
re-proved); that ``phi`` — how the user wrote φ — is the expression replayed (the text shows the
expression when ``phi`` does not read as it, read by the result's condition); the verdict, except
with ``--all`` (below); for a dependent probe whose relations were not all proved (no rest
certificate), nothing by itself — only as the witness of a ``not identifiable`` verdict are its
recorded exact relations proved again (its dependence, not its nullity); nor the other fields of the
result (summary, tolerances, timings).

``identcheck replay CHECK.json PROBE`` (or ``--all``) is :func:`replay_file`: the saved output of
``check --certify --json`` (a JSON array, one result per (φ, condition), or one result object);
PROBE is replayed in every result that has it with a certificate to replay, ``--all`` replays every probe
that has one and checks each verdict with evidence ``proof``: ``identifiable`` needs every probe the check
counts in the result, certified (a missing one is a failed record, kind ``verdict``) and replayed; ``not
identifiable`` its witness a counted probe proved dependent again, else a failed ``verdict`` record;
``verdict_replayed`` (True, False, None) and ``verdict_note`` say it. Records carry ``"schema":
"identcheck.replay/1"``. Schema 2 (no ``keys``): relations are read by label (:func:`_proved_pivots` in
certificates). Bad input — a file that cannot be read, not JSON, not a check result, a probe in no result
(with its close match), a probe without a certificate to replay, a record asking more than
:data:`MAX_REPLAY_DIGITS` digits — is a one-line IdentcheckError (exit 2).
"""

from __future__ import annotations

import difflib
import json
import math
from functools import lru_cache

from .conditions import CONDITIONS
from .errors import IdentcheckError
from .evidence import CertificateKind
from .rank.certificates import dependence_mismatch, replay_interval
from .rank.replay_records import MAX_REPLAY_DIGITS as MAX_REPLAY_DIGITS  # re-exported: the docstring names it
from .rank.replay_records import _relation_shape, interval_record

__all__ = ["REPLAY_SCHEMA", "condition_of", "interval_record", "load_results", "replay", "replay_file", "replay_text"]

#: The schema a check's JSON carries (``identcheck.check/3``), without its version.
SCHEMA = "identcheck.check/"
#: The schema of each record :func:`replay_file` returns (``identcheck replay --json``).
REPLAY_SCHEMA = "identcheck.replay/1"


def replay(result: dict, probe_name: str) -> dict:
    """Re-run the interval test of one probe from a check's JSON, after checking that its record is
    the one the probe's claim needs (module docstring).

    Parameters
    ----------
    result : dict
        One result of ``identcheck check --certify --json`` (``CheckResult.to_dict()``).
    probe_name : str
        The probe to replay.

    Returns
    -------
    dict
        ``{"proved", "residual_bound", "sigma_min_lower_bound", "reason"}`` (``reason`` None when
        proved).

    Raises
    ------
    IdentcheckError
        One line: a result whose condition is not registered, a probe not in it or without an
        interval certificate, a malformed record."""
    probe, detail, relations = interval_record(result, probe_name)
    return replay_interval(condition_of(result), probe, detail, relations)


def condition_of(result: dict):
    """The condition a check's JSON was computed with (``Condition.from_json``), by its registered name."""
    name = result.get("condition")
    if not isinstance(name, str) or name not in CONDITIONS:
        raise IdentcheckError(
            param="condition", value=name, reason=f"not a registered condition ({', '.join(CONDITIONS)})"
        )
    try:
        return CONDITIONS[name].from_json(result)
    except IdentcheckError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise IdentcheckError(
            param="condition", value=name, reason=f"this result does not set it up ({type(exc).__name__}: {exc})"
        ) from None


def load_results(path: str) -> list[dict]:
    """The check results saved in ``path`` (a JSON array of them, or one)."""
    where = f"CHECK.json {path!r}"
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError as exc:
        raise IdentcheckError(f"{where}: cannot read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise IdentcheckError(f"{where}: not JSON (not UTF-8 text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IdentcheckError(f"{where}: not JSON ({exc.msg}: line {exc.lineno} column {exc.colno})") from None
    results = data if isinstance(data, list) else [data]
    if not results or not all(_is_check(r) for r in results):
        raise IdentcheckError(f"{where}: not a check result (`identcheck check --certify --json` writes one)")
    return results


def _is_check(result) -> bool:
    return (
        isinstance(result, dict)
        and str(result.get("schema", "")).startswith(SCHEMA)
        and isinstance(result.get("probes"), list)
        and all(isinstance(p, dict) and isinstance(p.get("name"), str) for p in result["probes"])
    )


def _kind(probe: dict):
    certificate = probe.get("certificate")
    return certificate.get("kind") if isinstance(certificate, dict) else None


def _replayable(probe: dict) -> bool:
    """An interval certificate, or a proof of the whole null space with its rest certified."""
    detail = (probe.get("certificate") or {}).get("detail") or {}
    return _kind(probe) == "interval" or (_kind(probe) == "proof" and isinstance(detail.get("rest_certificate"), dict))


def replay_file(path: str, probe: str | None = None) -> list[dict]:
    """Replay ``probe`` (None: every probe with an interval certificate) of the results in ``path``:
    one record per replay — the result's φ (as written and as replayed) and condition, the probe,
    ``proved``, ``reason`` (None when proved), the new bounds and the recorded one. With ``probe``
    None a result whose verdict is ``identifiable`` with ``proof`` also gets one failed record per
    counted probe of its condition that has no interval certificate (the verdict needs them all)."""
    results = load_results(path)
    if probe is None:
        chosen = [(r, p) for r in results for p in r["probes"] if _replayable(p)]
        if not chosen:
            raise IdentcheckError(
                f"CHECK.json {path!r}: no probe has an interval certificate (run check with --certify; an "
                "independent probe has one, a dependent one when every relation of its null space was proved)"
            )
        replays = []
        for result in results:
            mine = [_replay(result, p) for r, p in chosen if r is result]
            checked = _verdict_gaps(result) + _witness_gap(result, mine)
            counted = {p["name"] for p in result["probes"] if p.get("counts_for_verdict")}
            replayed, note = _verdict_note(result, checked + [r for r in mine if r["probe"] in counted])
            replays += [r | {"verdict_replayed": replayed, "verdict_note": note} for r in mine + checked]
        return replays
    having = [(r, p) for r in results for p in r["probes"] if p["name"] == probe]
    if not having:
        names = list(dict.fromkeys(p["name"] for r in results for p in r["probes"]))
        close = difflib.get_close_matches(probe, names, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise IdentcheckError(
            param="probe", value=probe, reason=f"not in {path!r}{hint}; its probes: {', '.join(names) or 'none'}"
        )
    chosen = [(r, p) for r, p in having if _replayable(p)]
    if not chosen:
        why = {
            None: "it was not certified: run check with --certify",
            "proof": "it is dependent and not every relation of its null space was proved: its certificate is "
            "an exact proof, not an interval test",
        }
        kinds = dict.fromkeys(_kind(p) for _, p in having)
        reason = "; ".join(why.get(k, f"its certificate is {k!r}") for k in kinds)
        raise IdentcheckError(param="probe", value=probe, reason=f"has no interval certificate in {path!r} ({reason})")
    return [_replay(result, p) | {"verdict_replayed": None, "verdict_note": None} for result, p in chosen]


def _head(result: dict, probe: str) -> dict:
    return {
        "schema": REPLAY_SCHEMA,
        "phi": result.get("phi") or result.get("expression"),  # as the user wrote it
        "expression": result.get("expression"),  # what was replayed
        "phi_is_expression": _same_phi(result),
        "condition": result.get("condition"),
        "probe": probe,
    }


def _replay(result: dict, probe: dict) -> dict:
    again = replay(result, probe["name"])
    detail = probe["certificate"]["detail"]
    kind = "interval" if _kind(probe) == "interval" else "nullity"
    record = detail if kind == "interval" else detail["rest_certificate"]  # read by replay: numbers
    return _head(result, probe["name"]) | {
        "kind": kind,  # nullity: the relations proved again and the other columns independent
        "nullity": 0 if kind == "interval" else int(probe["nullity"]),
        "proved": bool(again["proved"]),
        "reason": again["reason"],
        "residual_bound": _finite(again["residual_bound"]),  # None: not finite (not replayed, or entries not finite)
        "sigma_min_lower_bound": _finite(again["sigma_min_lower_bound"]),
        "digits": int(record["digits"]),
        "recorded_residual_bound": float(record["residual_bound"]),
    }


def _same_phi(result: dict) -> bool:
    """Whether the φ shown (``sigmoid(z*b) [b=1/1000]``, an expert, mha's ``z (linear expert, no gate)``)
    reads as the expression replayed, read by the result's own condition (``activation_for``; an expert's,
    which needs d, through the condition set up); the same text is a short cut. False when either does
    not read: then the text names the expression too."""
    phi, expression, name = result.get("phi"), result.get("expression"), result.get("condition")
    if not isinstance(phi, str) or not isinstance(expression, str) or name not in CONDITIONS:
        return False
    if phi == expression:
        return True
    setup = {k: result.get(k) for k in ("dim", "seed", "points_per_term", "options")}
    return _reads_as(name, phi, expression, json.dumps(setup, sort_keys=True))


@lru_cache(maxsize=32)
def _reads_as(name: str, phi: str, expression: str, setup: str) -> bool:
    cls, values = CONDITIONS[name], {k: v for k, v in json.loads(setup).items() if v is not None}
    text, _, bracket = phi.partition(" [")
    try:
        params = dict(item.split("=", 1) for item in bracket.removesuffix("]").split(", ")) if bracket else None
        shown, replayed = cls.activation_for(text, params), cls.activation_for(expression)
        if not (hasattr(shown, "expr") and hasattr(replayed, "expr")):  # an expert: parsed by the condition
            options, dim, seed = cls.options_from_json(values), int(values["dim"]), int(values["seed"])
            per = cls.points_per_term_from_json(values)
            shown, replayed = (cls(a, dim, seed, per, **options).activation for a in (shown, replayed))
        return shown.expr == replayed.expr
    except (IdentcheckError, ValueError, TypeError, KeyError):
        return False


_FAILED = {"kind": "verdict", "nullity": None, "proved": False} | dict.fromkeys(
    ("reason", "residual_bound", "sigma_min_lower_bound", "digits", "recorded_residual_bound")
)


def _verdict_gaps(result: dict) -> list[dict]:
    """Failed records for the counted probes an ``identifiable``/``proof`` verdict needs certified
    but that have no interval certificate (or are missing): the condition's own probes, counted as
    the check counts them (``counts``, admissible unless ``include_inadmissible``)."""
    if result.get("verdict") != "identifiable" or result.get("evidence") != "proof":
        return []
    condition, inadmissible = condition_of(result), result.get("include_inadmissible") is True
    recorded = {p["name"]: p for p in result["probes"]}
    gaps = []
    for p in condition.probes():
        if p.counts and (p.admissible or inadmissible) and _kind(recorded.get(p.name, {})) != "interval":
            what = "is missing" if p.name not in recorded else "has no interval certificate"
            reason = f"the verdict 'identifiable' (proof) needs this counted probe certified independent; it {what}"
            gaps.append(_head(result, p.name) | _FAILED | {"reason": reason})
    return gaps


def _witness_gap(result: dict, replays: list[dict]) -> list[dict]:
    """A failed record (kind ``verdict``) when a ``not identifiable``/``proof`` verdict's witness is missing,
    not a counted probe of the condition, recorded independent, or not proved dependent again: through
    its replay (``replays``, those of ``result``) when it has a rest certificate, else by its recorded
    exact relations proved again (:func:`~identcheck.rank.certificates.dependence_mismatch`)."""
    if result.get("verdict") != "not identifiable" or result.get("evidence") != "proof":
        return []
    condition, witness = condition_of(result), result.get("witness")
    inadmissible = result.get("include_inadmissible") is True
    counted = [p.name for p in condition.probes() if p.counts and (p.admissible or inadmissible)]
    probe = next((p for p in result["probes"] if p["name"] == witness), None)
    again = next((r for r in replays if r["probe"] == witness), None)
    why: str | None
    if probe is None or witness not in counted:
        why = "is missing" if probe is None else "is not a counted probe of the condition"
    elif probe.get("dependent") is not True or _kind(probe) != CertificateKind.PROOF:
        why = "is recorded independent, or without a proof of its dependence"
    elif again is not None:
        why = None if again["proved"] else "does not replay"
    else:
        relations = probe["certificate"]["detail"].get("relations")
        if not isinstance(relations, list) or not all(_relation_shape(r) for r in relations):
            raise IdentcheckError(param="probe", value=witness, reason="malformed relations in its proof")
        why = dependence_mismatch(condition, probe, relations)
        why = why and f"is not proved dependent again: {why}"
    if why is None:
        return []
    reason = f"the verdict 'not identifiable' (proof) needs its witness {witness!r} proved dependent; it {why}"
    return [_head(result, str(witness)) | _FAILED | {"reason": reason}]


def _verdict_note(result: dict, checked: list[dict]) -> tuple[bool | None, str]:
    """(whether ``--all`` replayed the result's verdict, one line saying so)."""
    verdict = f"{result.get('verdict')!r} ({result.get('evidence')})"
    if result.get("evidence") != "proof" or result.get("verdict") not in ("identifiable", "not identifiable"):
        return None, f"verdict {verdict} not replayed: only a verdict with evidence proof is"
    if any(not r["proved"] for r in checked):
        return False, f"verdict {verdict} does NOT replay (above)"
    how = "every counted probe" if result["verdict"] == "identifiable" else f"its witness {result.get('witness')!r}"
    return True, f"verdict {verdict} replayed: {how} proved again"


def _finite(value: float):
    return float(value) if math.isfinite(value) else None


def replay_text(replays: list[dict]) -> str:
    """One line per replay: whether the record still proves its claim, and the bounds or why not."""
    lines: list[str] = []
    notes: list[tuple[str, str | None]] = []  # a result's verdict note: one per run of its (consecutive) records
    for r in replays:
        shown = r["phi"] if r["phi_is_expression"] else f"{r['phi']} (replayed as {r['expression']})"
        head = f"{shown} [{r['condition']}] probe {r['probe']!r}"
        note = (f"{shown} [{r['condition']}]", r.get("verdict_note"))
        if note[1] and (not notes or notes[-1] != note):
            notes.append(note)
        if not r["proved"]:
            lines.append(f"{head}: does NOT replay — {r['reason']}")
            continue
        bound = "∞" if r["residual_bound"] is None else f"{r['residual_bound']:.3g}"
        recorded = f"(recorded {r['recorded_residual_bound']:.3g})"
        claim = (
            "the minor is nonsingular"
            if r["kind"] == "interval"
            else f"its {r['nullity']} relations proved again, the other columns independent: nullity exactly "
            f"{r['nullity']}"
        )
        lines.append(
            f"{head}: replays — ‖I − R·S‖_F ≤ {bound} < 1 {recorded}, σ_min ≥ "
            f"{r['sigma_min_lower_bound']:.3g} at {r['digits']} digits: {claim}"
        )
    lines += [f"{head}: {note}" for head, note in notes]
    proved = sum(r["proved"] for r in replays)
    lines.append(f"{proved} of {len(replays)} replayed")
    return "\n".join(lines)
