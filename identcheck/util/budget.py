"""Time budgets for sympy computations on the check path: a check never hangs.

The budgets and what they cost are measured in docs/performance.md (Hard activations and time budgets).

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

**CPU time, with a wall-clock backstop.** A budget of s seconds counts the CPU time of the thread
that runs it (:func:`clock`, ``time.thread_time``; budgets run in the main thread only), so the
same computation is cut at the same point of its work whatever else the machine runs: on a
loaded machine a proof gets its s CPU seconds however long they take, so whether it is proved
or timed out — hence the catalog's evidence column — no longer follows the load (the CPU time
of the same work still varies somewhat with contention for caches, far less than wall time's
2–10× on a shared machine). Other threads and other processes do not consume it. A computation
that does not run (blocked, or waiting on something) is still cut by the **backstop**: s seconds
of CPU time come with ``WALL_FACTOR``·s + ``WALL_SLACK`` seconds of wall time (6s + 5), whichever
ends first, so every budget still bounds wall time. The timer is the same ``ITIMER_REAL`` alarm, set for the
CPU time left (CPU time cannot pass faster than wall time); when it fires early, the handler
re-arms it for what is left.

Budgets nest: an inner budget never outlives the outer one (its deadline is the earlier of the
two), and when the outer deadline is what fired, the inner :func:`run` re-raises so the outer
one reports the timeout.

A **pool** (:func:`pool`) caps the total: inside ``with pool(seconds)`` every :func:`run` ends by
the pool's deadline (``seconds`` of CPU time from the pool's start, with its backstop) at the
latest, and one that the pool cut reports ``timed_out`` like any other (it is not re-raised: the
pool is not a computation). A check runs its symbolic work inside one pool, so that however many
probes need proofs, the whole check is bounded. An ``ITIMER_REAL`` timer set by someone else is
not supported (it would be overridden while a budget runs).
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable

__all__ = [
    "BudgetExceeded",
    "Outcome",
    "run",
    "pool",
    "pool_remaining",
    "current_pool",
    "budget_available",
    "clock",
    "backstop",
    "PROOF_SECONDS",
    "PROPERTIES_SECONDS",
    "POOL_SECONDS",
    "CERTIFY_POOL_SECONDS",
    "SIMPLIFY_SECONDS",
    "WALL_FACTOR",
    "WALL_SLACK",
]

PROOF_SECONDS = 8.0  # one exact proof of one relation (expand, cancel, simplify)
SIMPLIFY_SECONDS = 5.0  # one sympy simplify in family recognition
PROPERTIES_SECONDS = 12.0  # all of φ's family hypotheses together (families.phi_properties)
POOL_SECONDS = 20.0  # all symbolic work of one check (domain, hypotheses, proofs): the pool of check.run
CERTIFY_POOL_SECONDS = 45.0  # the same with --certify (every probe's relations proved)
WALL_FACTOR = 6.0  # wall-clock backstop of a budget of s CPU seconds: WALL_FACTOR·s + WALL_SLACK
WALL_SLACK = 5.0
EARLY = 1e-3  # a deadline this close counts as passed

_deadlines: list[tuple[float, float]] = []  # (CPU, wall) deadlines of the active budgets, innermost last
_pools: list[tuple[float, float]] = []  # (CPU, wall) deadlines of the active pools, innermost last


def clock() -> float:
    """The budgets' clock: CPU seconds of the calling thread (``time.thread_time``). Budgets run
    in the main thread, where the alarm handler reads it too."""
    return time.thread_time()


def backstop(seconds: float) -> float:
    """The wall-clock limit that goes with a budget of ``seconds`` CPU seconds."""
    return WALL_FACTOR * seconds + WALL_SLACK


class BudgetExceeded(BaseException):
    """Raised inside a budgeted computation when its deadline passes (never escapes :func:`run`
    unless an outer budget's deadline is the one that passed)."""


@dataclass(frozen=True, slots=True, eq=False)
class Outcome:
    """A proof attempt: ``proved`` (truthy exactly when proved) and whether its budget ran out;
    ``family`` and ``hypothesis``: the relation family whose rewrite proved it, and the property of
    φ that rewrite used, when the proof went through one (a raw relation so proved is that family's).

    Behaves as the bool ``proved`` in tests and comparisons (``outcome == True``), so callers
    that only ask "proved?" need not change.
    """

    proved: bool
    timed_out: bool = False
    family: str | None = None
    hypothesis: str | None = None

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
    """Within the block, every :func:`run` finishes by ``seconds`` of CPU time from now (and by
    its wall-clock backstop; see the module docstring)."""
    _pools.append((clock() + seconds, time.monotonic() + backstop(seconds)))
    try:
        yield
    finally:
        _pools.pop()


def current_pool() -> tuple | None:
    """An identifier of the innermost active pool (its deadlines), None outside any pool."""
    return _pools[-1] if _pools else None


def _left(deadlines) -> float:
    """Seconds before the first of ``deadlines`` ((CPU, wall) pairs) passes, in CPU time — the
    wall-clock backstop counts only once it is the nearer one (CPU time never runs faster than wall time)."""
    if not deadlines:
        return float("inf")
    now_cpu, now_wall = clock(), time.monotonic()
    return min(min(c - now_cpu, w - now_wall) for c, w in deadlines) - EARLY


def pool_remaining() -> float:
    """Seconds left in the active pools (inf outside any pool)."""
    return _left(_pools)


def budget_available() -> bool:
    """Whether :func:`run` can enforce a deadline here (main thread, SIGALRM available)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _expired(deadline: tuple[float, float]) -> bool:
    """Whether a (CPU, wall) deadline has passed (to within ``EARLY``: the alarm is re-armed for
    what is left, and a last sliver is not worth another alarm); :func:`_left` counts the same way."""
    return clock() >= deadline[0] - EARLY or time.monotonic() >= deadline[1] - EARLY


#: after a deadline passed, the alarm repeats this often until :func:`run` ends: an exception raised
#: inside a ``__del__`` or a weakref finalizer is discarded by Python (seen: sympy's caches, under
#: load), so one alarm alone could let the computation run on to its end
RETRY_SECONDS = 0.05


def _on_alarm(signum, frame):
    if any(_expired(d) for d in _deadlines):
        signal.setitimer(signal.ITIMER_REAL, RETRY_SECONDS, RETRY_SECONDS)  # run()'s finally stops it
        raise BudgetExceeded()
    _arm()  # early (CPU time lags wall time) or stale alarm: re-arm for what is left


def _arm() -> None:
    """The real-time alarm, at the earliest moment a deadline could pass: what is left of the CPU
    budget, or of the wall backstop if less (the handler then checks which one actually passed)."""
    left = _left(_deadlines)
    if left != float("inf"):
        signal.setitimer(signal.ITIMER_REAL, max(left, 1e-4))
    else:
        signal.setitimer(signal.ITIMER_REAL, 0)


def run(fn: Callable[..., Any], *args, seconds: float, default: Any = None, **kwargs) -> tuple[Any, bool]:
    """``(fn(*args, **kwargs), False)``, or ``(default, True)`` when ``seconds`` of CPU time (or
    the wall-clock backstop) ran out first.

    Without a usable timer (see :func:`budget_available`) ``fn`` runs unbudgeted.
    """
    if not budget_available():
        return fn(*args, **kwargs), False
    if any(_expired(p) for p in _pools):  # the pool is spent (as the alarm handler judges it): nothing is started
        return default, True
    now_cpu, now_wall = clock(), time.monotonic()
    bounds = _deadlines[-1:] + _pools  # an inner budget never outlives the outer one, nor a pool
    deadline = (
        min([now_cpu + seconds] + [c for c, _ in bounds]),
        min([now_wall + backstop(seconds)] + [w for _, w in bounds]),
    )
    outer = _deadlines[-1] if _deadlines else None
    outermost = outer is None
    previous = signal.signal(signal.SIGALRM, _on_alarm) if outermost else None
    _deadlines.append(deadline)
    try:
        _arm()
        return fn(*args, **kwargs), False
    except BudgetExceeded:
        if outer is not None and _expired(outer):
            raise  # the outer budget's deadline passed: the outer run reports it
        return default, True
    finally:
        _deadlines.pop()  # first: an alarm arriving now is judged on the outer budgets only
        signal.setitimer(signal.ITIMER_REAL, 0)
        if outermost:
            signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
        else:
            _arm()
