"""Replay a certificate from a check's JSON (``identcheck check --certify --json``): the entry point
that finds the condition by name, above the conditions (:mod:`identcheck.certificates` is below
them and knows none).

>>> from identcheck.replay import replay
>>> replay(result, "random pair")                  # doctest: +SKIP
{'proved': True, 'residual_bound': 5.2e-29, 'sigma_min_lower_bound': ...}

The condition is rebuilt from the JSON (``Condition.from_json``: φ or the expert, d, the seed, its
options), the probe through the condition (``Condition.probe_from_json``: its component type reads
the parameters exactly), then the recorded interval test is repeated
(:func:`~identcheck.certificates.replay_interval`). A condition registered at run time
(``CONDITIONS["toy"] = Toy``) replays the same way.

``identcheck replay CHECK.json PROBE`` (or ``--all``) is :func:`replay_file`: the saved output of
``check --certify --json`` (a JSON array, one result per (φ, condition), or one result object);
PROBE is replayed in every result that has it with an interval certificate, ``--all`` replays every
probe that has one. Bad input — a file that cannot be read, not JSON, not a check result, a probe in
no result (with its close match), a probe without an interval certificate — is a one-line
IdentcheckError (exit 2 from the command).
"""

from __future__ import annotations

import difflib
import json
import math

from .certificates import interval_record, replay_interval
from .conditions import CONDITIONS
from .errors import IdentcheckError

__all__ = ["load_results", "replay", "replay_file", "replay_text"]

#: The schema a check's JSON carries (``identcheck.check/3``), without its version.
SCHEMA = "identcheck.check/"


def replay(result: dict, probe_name: str) -> dict:
    """Re-run the interval test of one probe from a check's JSON: ``{"proved", "residual_bound",
    "sigma_min_lower_bound"}``. A result whose condition is not registered, a probe not in it or
    without an interval certificate, a malformed record: a one-line IdentcheckError."""
    probe, detail = interval_record(result, probe_name)
    name = result.get("condition")
    if not isinstance(name, str) or name not in CONDITIONS:
        raise IdentcheckError(
            param="condition", value=name, reason=f"not a registered condition ({', '.join(CONDITIONS)})"
        )
    try:
        condition = CONDITIONS[name].from_json(result)
    except IdentcheckError:
        raise
    except (KeyError, TypeError, ValueError) as exc:
        raise IdentcheckError(
            param="condition", value=name, reason=f"this result does not set it up ({type(exc).__name__}: {exc})"
        ) from None
    return replay_interval(condition, probe, detail)


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


def replay_file(path: str, probe: str | None = None) -> list[dict]:
    """Replay ``probe`` (None: every probe with an interval certificate) of the results in ``path``:
    one record per replay — the result's expression and condition, the probe, ``proved``, the new
    bounds and the recorded one."""
    results = load_results(path)
    if probe is None:
        chosen = [(r, p) for r in results for p in r["probes"] if _kind(p) == "interval"]
        if not chosen:
            raise IdentcheckError(
                f"CHECK.json {path!r}: no probe has an interval certificate (run check with --certify; only an "
                "independent probe has one, a dependence is proved exactly)"
            )
    else:
        having = [(r, p) for r in results for p in r["probes"] if p["name"] == probe]
        if not having:
            names = list(dict.fromkeys(p["name"] for r in results for p in r["probes"]))
            close = difflib.get_close_matches(probe, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise IdentcheckError(
                param="probe", value=probe, reason=f"not in {path!r}{hint}; its probes: {', '.join(names) or 'none'}"
            )
        chosen = [(r, p) for r, p in having if _kind(p) == "interval"]
        if not chosen:
            why = {
                None: "it was not certified: run check with --certify",
                "proof": "it is dependent: its certificate is an exact proof by sympy, not an interval test",
            }
            kinds = dict.fromkeys(_kind(p) for _, p in having)
            reason = "; ".join(why.get(k, f"its certificate is {k!r}") for k in kinds)
            raise IdentcheckError(
                param="probe", value=probe, reason=f"has no interval certificate in {path!r} ({reason})"
            )
    return [_replay(result, p) for result, p in chosen]


def _replay(result: dict, probe: dict) -> dict:
    again = replay(result, probe["name"])
    detail = probe["certificate"]["detail"]  # read by replay: digits and bound are numbers
    return {
        "phi": result.get("phi") or result.get("expression"),  # as the user wrote it
        "condition": result.get("condition"),
        "probe": probe["name"],
        "proved": bool(again["proved"]),
        "residual_bound": _finite(again["residual_bound"]),  # None: not finite (the minor's entries were not)
        "sigma_min_lower_bound": _finite(again["sigma_min_lower_bound"]),
        "digits": int(detail["digits"]),
        "recorded_residual_bound": float(detail["residual_bound"]),
    }


def _finite(value: float):
    return float(value) if math.isfinite(value) else None


def replay_text(replays: list[dict]) -> str:
    """One line per replay: whether the record still proves its minor nonsingular, and the bounds."""
    lines = []
    for r in replays:
        bound = "∞" if r["residual_bound"] is None else f"{r['residual_bound']:.3g}"
        head = f"{r['phi']} [{r['condition']}] probe {r['probe']!r}"
        recorded = f"(recorded {r['recorded_residual_bound']:.3g})"
        if r["proved"]:
            lines.append(
                f"{head}: replays — ‖I − R·S‖_F ≤ {bound} < 1 {recorded}, σ_min ≥ "
                f"{r['sigma_min_lower_bound']:.3g} at {r['digits']} digits: the minor is nonsingular"
            )
        else:
            lines.append(
                f"{head}: does NOT replay — ‖I − R·S‖_F ≤ {bound}, not < 1 {recorded} at {r['digits']} digits: "
                "the record does not prove its minor nonsingular"
            )
    proved = sum(r["proved"] for r in replays)
    lines.append(f"{proved} of {len(replays)} replayed")
    return "\n".join(lines)
