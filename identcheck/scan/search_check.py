"""``check --search N``: a check, then the adversarial search of its strata (:mod:`identcheck.scan.search`).

The strata searched are those of the counted probes the check found independent (one search per
stratum); a one-component stratum is left out where the one-component lemma (docs/method.md §4)
already proves K = 1 for every (M, a ≠ 0) at this d on all of ℝ. The probes the check found dependent
give the known sets their strata stand for. The outcome is ``details["search"]``
(:class:`~identcheck.scan.search.SearchResult`). Only a *new* witness — a dependence found by the
search, admissible, with every a ≠ 0, its relation proved exactly, in no known set — makes the verdict
*not identifiable* (proof), the probe checked exactly at its point the witness
(:mod:`identcheck.scan.override`); a search that finds nothing changes nothing.
"""

from __future__ import annotations

import time
from dataclasses import replace

from threadpoolctl import threadpool_limits

from ..check import make_condition, run
from ..conditions import CONDITIONS
from ..conditions.type1 import Type1
from ..errors import IdentcheckError
from ..evidence import Verdict
from .override import found_dependence
from .ratio import check_every_ratio
from .search import SEARCH_SECONDS, search_strata

__all__ = ["MAX_STARTS", "check_searching", "parse_search", "refuse_bad_search"]

MAX_STARTS = 10_000


def parse_search(value) -> int:
    """The number of starts per stratum: a positive integer (at most :data:`MAX_STARTS`), else an
    IdentcheckError naming ``search``."""
    try:
        starts = int(str(value).strip()) if not isinstance(value, bool) else 0
    except ValueError:
        starts = 0
    if isinstance(value, float) or not 1 <= starts <= MAX_STARTS:
        raise IdentcheckError(
            param="search", value=value, reason=f"must be a positive integer (starts per stratum), at most {MAX_STARTS}"
        )
    return starts


def searchable(condition: str) -> bool:
    """Whether the condition's probes are type-1 components with strata (type1, mha)."""
    cls = CONDITIONS[condition]
    return isinstance(cls, type) and issubclass(cls, Type1) and cls.full_matrix is Type1.full_matrix


def refuse_bad_search(search, conditions) -> None:
    """Refuse, before any job runs, a count :func:`parse_search` refuses, or a condition without strata."""
    parse_search(search)
    other = next((c for c in conditions if not searchable(c)), None)
    if other is not None:
        raise IdentcheckError(param="search", value=search, reason=f"applies to type1 and mha only, not {other}")


def _one_component_covers(result, dim: int) -> bool:
    one = result.details.get("one_component")
    dims = getattr(one, "dims", None)
    covers = dims == "every d" or (dims, dim) == ("d = 1", 1)
    return one is not None and getattr(one, "domain", None) is None and covers


def _targets(setup, result) -> tuple[list, list]:
    """(strata to search: (index, probe, why_not), known dependent strata: (name, stratum))."""
    targets, dependent, seen = [], [], set()
    for index, (probe, outcome) in enumerate(zip(setup.probes(), result.probes)):
        if probe.stratum is None or not outcome.counts_for_verdict:
            continue
        if outcome.dependent:
            dependent.append((f"probe '{probe.name}'", probe.stratum))
        elif outcome.dependent is False and probe.stratum not in seen:
            seen.add(probe.stratum)
            why = None
            if probe.stratum.components == 1 and _one_component_covers(result, setup.dim):
                why = "K = 1 proved for every (M, a ≠ 0) by the one-component lemma"
            targets.append((index, probe, why))
    return targets, dependent


def check_searching(
    phi,
    search,
    *,
    certify: bool = False,
    progress=None,
    include_inadmissible: bool = False,
    seconds: float = SEARCH_SECONDS,
    leave_out=(),
    ratios=None,
    **arguments,
):
    """:func:`identcheck.check` (with ``ratios``: :func:`~identcheck.scan.ratio.check_every_ratio`) of φ on
    type1 or mha, then the search from ``search`` starts per stratum within ``seconds`` (wall clock);
    ``leave_out`` names known sets not used to normalise (``"coinciding components"``, ``"a = 0"``,
    ``"probe '…'"``). ``details["search"]`` holds the outcome (module docstring)."""
    started = time.perf_counter()
    starts = parse_search(search)
    condition = arguments.pop("condition", "type1")
    if not searchable(condition):
        raise IdentcheckError(param="search", value=search, reason=f"applies to type1 and mha only, not {condition}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds <= 86400:
        raise IdentcheckError(param="seconds", value=seconds, reason="must be a number of seconds in (0, 86400]")
    if isinstance(leave_out, str) or not all(isinstance(n, str) for n in leave_out):
        raise IdentcheckError(param="leave_out", value=leave_out, reason="must be a list of known sets' names")
    setup = make_condition(phi, condition, **arguments)
    if not isinstance(include_inadmissible, bool):
        raise IdentcheckError(param="include_inadmissible", value=include_inadmissible, reason="must be True or False")
    options = {"certify": certify, "progress": progress, "include_inadmissible": include_inadmissible}
    if ratios is not None:
        result = check_every_ratio(phi, ratios, condition=condition, **options, **arguments)
    else:
        result = run(setup, started=started, **options)
    targets, dependent = _targets(setup, result)
    with threadpool_limits(limits=1):
        found = search_strata(setup, targets, starts, dependent=dependent, leave_out=tuple(leave_out), seconds=seconds)
    seconds_taken = round(time.perf_counter() - started, 3)
    result = replace(result, details={**result.details, "search": found}, seconds=seconds_taken)
    new = found.witness
    w = None if new is None else new.witness
    if new is None or w is None or result.verdict == Verdict.NOT_IDENTIFIABLE:
        return result
    summary = (
        f"dependent on the stratum of '{new.probe}' ({new.stratum}) at a point found by search, "
        f"proved exactly: {w.relation}"
    )
    return found_dependence(result, w.outcome, setup.scope, summary, "search")
