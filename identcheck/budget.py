"""Time budgets for sympy computations on the check path (issue 10: a check never hangs).

sympy has no cancellation hook, so a proof is stopped from outside. Two ways were weighed:

* a forked worker process with a timeout: isolates everything, but every proof would pickle
  sympy expressions and closures (the provers are closures over term sets), pay a process
  start per proof (hundreds per check), lose the in-process caches (sympy's and
  :func:`~identcheck.families.phi_properties`), and fork a process that holds BLAS/flint
  threads;
* ``signal.setitimer(ITIMER_REAL)`` + SIGALRM in the main thread (chosen): no start cost, no
  pickling, caches kept. The handler raises :class:`BudgetExceeded`, which derives from
  ``BaseException`` so sympy's many ``except Exception`` blocks cannot swallow it.

Limits of the chosen way, stated plainly:

* it works only in the main thread of the main interpreter. Elsewhere (a worker thread, e.g.
  a caller running checks in a thread pool) :func:`run` runs the computation **without a
  budget** and says so by returning ``timed_out=False`` after however long it took;
* the alarm is delivered between Python bytecodes: a single long call into C (one flint or
  gmpy operation) finishes first. sympy's ``cancel``/``simplify`` are Python-level loops, so
  in practice they stop within milliseconds of the deadline;
* an interrupted computation leaves no partial result; sympy's caches only hold completed
  calls, so they stay consistent.

Budgets nest: an inner budget never outlives the outer one (its deadline is the earlier of the
two), and when the outer deadline is what fired, the inner :func:`run` re-raises so the outer
one reports the timeout.

A **pool** (:func:`pool`) caps the total: inside ``with pool(seconds)`` every :func:`run` ends by
the pool's deadline at the latest, and one that the pool cut reports ``timed_out`` like any
other (it is not re-raised: the pool is not a computation). A check runs its symbolic work
inside one pool, so that however many probes need proofs, the whole check is bounded. An ``ITIMER_REAL`` timer set by someone else is not supported (it
would be overridden while a budget runs).
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["BudgetExceeded", "Outcome", "run", "pool", "pool_remaining", "current_pool", "budget_available", "PROOF_SECONDS", "PROPERTIES_SECONDS", "POOL_SECONDS", "CERTIFY_POOL_SECONDS", "SIMPLIFY_SECONDS"]

PROOF_SECONDS = 8.0  # one exact proof of one relation (expand, cancel, simplify)
SIMPLIFY_SECONDS = 5.0  # one sympy simplify in family recognition
PROPERTIES_SECONDS = 12.0  # all of φ's family hypotheses together (families.phi_properties)
POOL_SECONDS = 20.0  # all symbolic work of one check (domain, hypotheses, proofs): the pool of check.run
CERTIFY_POOL_SECONDS = 45.0  # the same with --certify (every probe's relations proved)

_deadlines: list[float] = []  # monotonic deadlines of the active budgets, innermost last
_pools: list[float] = []  # monotonic deadlines of the active pools, innermost last


class BudgetExceeded(BaseException):
    """Raised inside a budgeted computation when its deadline passes (never escapes :func:`run`
    unless an outer budget's deadline is the one that passed)."""


@dataclass(frozen=True, slots=True, eq=False)
class Outcome:
    """A proof attempt: ``proved`` (truthy exactly when proved) and whether its budget ran out.

    Behaves as the bool ``proved`` in tests and comparisons (``outcome == True``), so callers
    that only ask "proved?" need not change.
    """

    proved: bool
    timed_out: bool = False

    def __bool__(self) -> bool:
        return self.proved

    def __eq__(self, other) -> bool:
        if isinstance(other, Outcome):
            return (self.proved, self.timed_out) == (other.proved, other.timed_out)
        return self.proved == other

    def __hash__(self) -> int:
        return hash(self.proved)


@contextmanager
def pool(seconds: float):
    """Within the block, every :func:`run` finishes by ``seconds`` from now (see the module docstring)."""
    _pools.append(time.monotonic() + seconds)
    try:
        yield
    finally:
        _pools.pop()


def current_pool() -> float | None:
    """An identifier of the innermost active pool (its deadline), None outside any pool."""
    return _pools[-1] if _pools else None


def pool_remaining() -> float:
    """Seconds left in the innermost active pool (inf outside any pool)."""
    return min(_pools) - time.monotonic() if _pools else float("inf")


def budget_available() -> bool:
    """Whether :func:`run` can enforce a deadline here (main thread, SIGALRM available)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum, frame):
    if _deadlines and time.monotonic() >= min(_deadlines) - 1e-3:
        raise BudgetExceeded()
    _arm(time.monotonic())  # early or stale alarm: re-arm for the real deadline


def _arm(now: float) -> None:
    if _deadlines and min(_deadlines) != float("inf"):
        signal.setitimer(signal.ITIMER_REAL, max(min(_deadlines) - now, 1e-4))
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run(fn: Callable[..., Any], *args, seconds: float, default: Any = None, **kwargs) -> tuple[Any, bool]:
    """``(fn(*args, **kwargs), False)``, or ``(default, True)`` when ``seconds`` ran out first.

    Without a usable timer (see :func:`budget_available`) ``fn`` runs unbudgeted.
    """
    if not budget_available():
        return fn(*args, **kwargs), False
    start = time.monotonic()
    outer = min(_deadlines) if _deadlines else float("inf")
    spent_by = min(_pools) if _pools else float("inf")
    if spent_by <= start:  # the pool is spent: nothing is started
        return default, True
    deadline = min(start + seconds, outer, spent_by)
    outermost = not _deadlines
    previous = signal.signal(signal.SIGALRM, _on_alarm) if outermost else None
    _deadlines.append(deadline)
    try:
        _arm(start)
        return fn(*args, **kwargs), False
    except BudgetExceeded:
        if outer <= deadline:
            raise  # the outer budget's deadline passed: the outer run reports it
        return default, True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _deadlines.pop()
        if outermost:
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        else:
            _arm(time.monotonic())
