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
"""

from __future__ import annotations

from .certificates import interval_record, replay_interval
from .conditions import CONDITIONS
from .errors import IdentcheckError

__all__ = ["replay"]


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
