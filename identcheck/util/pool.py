"""Worker processes that an interrupt ends: the one pool of every multi-process command (docs/architecture.md).

``identcheck scan``, ``identcheck catalog``, ``python3 -m identcheck.catalog.type1_full``, ``numeric
reproduce`` and ``numeric confirm`` (through :func:`numeric.experiments.sweep.run_grid`) hand their tasks to
``jobs`` forked workers through :class:`WorkerPool`. Its contract:

* **Ctrl-C is the main process's to answer.** A terminal's Ctrl-C and ``timeout -s INT`` signal
  the whole process group; a worker ignores SIGINT, so it is never broken half-way through a task
  or a write to its pipe, and the main process decides. SIGTERM ends a worker at once (the
  default action): a SIGTERM to the group ends the workers and the main process together, and
  multiprocessing's own clean-up at exit (SIGTERM, then a wait) can always end a worker this
  module lost track of. A worker also dies with the main process: ``PR_SET_PDEATHSIG`` (Linux)
  has the kernel kill the workers of a main process that is itself killed (kill -9).
* **No lock shared between processes.** Each worker has its own duplex pipe; the main process
  hands each worker at most ``depth`` tasks at a time (1: the free worker takes the next task,
  best for long tasks; 2: the next one waits in the pipe, for many short ones) and waits on every
  pipe and every worker's exit at once (``multiprocessing.connection.wait``, which a signal
  interrupts). A worker that dies is noticed — :class:`Interrupted` (SIGTERM) if SIGTERM killed
  it, else :class:`WorkerError` — and cannot block another process.
* **Anything that leaves the pool unfinished kills it at once**: an exception out of the ``with``
  block or out of a :meth:`WorkerPool.imap` / :meth:`WorkerPool.imap_unordered` loop — Ctrl-C's
  KeyboardInterrupt, :class:`Interrupted`, a task's error, the caller's own — SIGKILLs every
  worker and reaps it, waiting at most :data:`JOIN_SECONDS`; an interrupt that arrives during
  this clean-up is raised after it, not instead of it. A worker holds nothing worth saving:
  results live in the main process once received (numeric's store commits each fit as it
  arrives), and the tasks in flight are lost.

The CLIs run inside :func:`~identcheck.util.interrupts.interrupts`, which turns SIGINT and SIGTERM into
:class:`~identcheck.util.interrupts.Interrupted` in the main thread (:mod:`identcheck.util.interrupts`);
Python discards an exception raised inside a ``__del__`` or a weakref callback, and a signal
handler can run there: so the pool also polls, every :data:`POLL_SECONDS` while it waits,
whether a signal came whose exception never arrived, and raises it then.

Alternatives weighed. ``concurrent.futures.ProcessPoolExecutor``, used before: its workers share
the call and result queues and their locks; a worker that receives the group's SIGINT while
holding one leaves it held, the other workers block on it for ever, and ``shutdown`` waits for
them — hangs seen in 4 of 11 interrupted scans — and even without a stuck lock its exit waits for
the tasks in flight (the catalog took ~11 s to end). ``multiprocessing.Pool.terminate`` kills
its workers but keeps the same shared queues and three handler threads. Workers in a process
group of their own would not see a terminal's Ctrl-C, but they would not stop with Ctrl-Z either;
ignoring SIGINT keeps job control. Ignoring SIGTERM too was tried and dropped: a worker the pool
lost track of (an interrupt as ``start()`` returned) then made multiprocessing's exit wait for it
for ever (seen: 4 hangs in 40 interrupted pool start-ups). Limits: the fork start method
(scan's workers inherit the family built before the fork, the catalog's the φ-free type-2 work;
Linux and macOS);
without ``PR_SET_PDEATHSIG`` (not Linux) a kill -9 of the main process leaves its workers until
their current task ends; a SIGTERM sent to one worker alone ends the command (exit 143).

>>> with WorkerPool(2) as pool:
...     list(pool.imap(abs, [-3, 1, -2]))
[3, 1, 2]
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import pickle
import signal
import time
import traceback
from collections import deque
from multiprocessing.connection import wait
from typing import Callable, Generator, Iterable, Iterator, TypeVar

from .interrupts import SIGNALS, Interrupted, raise_received

__all__ = ["JOIN_SECONDS", "POLL_SECONDS", "WorkerError", "WorkerPool"]

T = TypeVar("T")  # what a task returns

JOIN_SECONDS = 1.0  # the longest wait for the workers to end, after they were told or killed
POLL_SECONDS = 0.25  # while waiting on the workers: how often to look for a discarded interrupt


class WorkerError(RuntimeError):
    """A worker process ended without answering (killed from outside, out of memory, ...)."""


def _die_with_parent(parent: int) -> None:
    """In a worker: the kernel kills this process when its parent dies (Linux); a parent that
    died before the request was armed is caught by comparing the parent's pid."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: a worker ends when its pipe closes
        return
    if os.getppid() != parent:
        os._exit(1)


def _portable(exc: BaseException) -> BaseException:
    """``exc`` with the worker's traceback as a note, or a WorkerError naming it if it does not pickle."""
    exc.add_note("in a worker process:\n" + "".join(traceback.format_exception(exc)).rstrip())
    try:
        pickle.dumps(exc)
        return exc
    except Exception:
        return WorkerError(f"{type(exc).__name__}: {exc}")


def _work(connection, others, parent: int, initializer, initargs) -> None:
    """A worker's life: ignore Ctrl-C, die of SIGTERM and with the parent, answer tasks until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the main process's handler, inherited through the fork
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)  # blocked across the fork (WorkerPool.__init__)
    for other in others:  # the main process's ends of the earlier workers' pipes: not ours to hold
        other.close()
    _die_with_parent(parent)
    if initializer is not None:
        initializer(*initargs)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        index, function, item = task
        try:
            answer = (index, True, function(item))
        except BaseException as exc:
            answer = (index, False, _portable(exc))
        try:
            connection.send(answer)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:  # the result does not pickle
            connection.send((index, False, WorkerError(f"task {index}: its result cannot be sent back: {exc}")))


class _Worker:
    def __init__(self, process, connection):
        self.process, self.connection = process, connection
        self.in_flight: deque = deque()


class WorkerPool:
    """``jobs`` forked worker processes; use it as a context manager.

    Parameters
    ----------
    jobs : int
        Worker processes, at least 1 (the callers run ``jobs = 1`` in their own process).
    initializer : callable, optional
        Called as ``initializer(*initargs)`` in each worker before its first task.
    initargs : tuple
    depth : int
        Tasks handed to a worker at a time: 1 (default) lets whichever worker is free take the
        next task, which balances long tasks; 2 keeps the next task waiting in the worker's pipe,
        which hides the round trip between many short ones.
    """

    def __init__(self, jobs: int, initializer: Callable | None = None, initargs: tuple = (), depth: int = 1):
        if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
            raise ValueError(f"jobs={jobs!r}: must be an integer >= 1")
        if depth not in (1, 2):
            raise ValueError(f"depth={depth!r}: must be 1 or 2")
        self.depth = depth
        raise_received()  # no new workers once an interrupt came
        context = multiprocessing.get_context("fork")
        self._workers: list[_Worker] = []
        self._busy = False
        parent = os.getpid()
        try:
            for _ in range(jobs):
                mine, theirs = context.Pipe(duplex=True)
                others = [w.connection for w in self._workers]
                process = context.Process(
                    target=_work, args=(theirs, others, parent, initializer, initargs), daemon=True
                )
                # listed before it starts: an interrupt as start() returns must not leave a worker kill() does not know
                self._workers.append(_Worker(process, mine))
                blocked = signal.pthread_sigmask(
                    signal.SIG_BLOCK, SIGNALS
                )  # the child sets its handling before it unblocks
                try:
                    process.start()
                finally:
                    signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
                theirs.close()
        except BaseException:
            self.kill()
            raise

    @property
    def pids(self) -> list[int]:
        """The workers' process ids (empty once the pool has ended)."""
        return [w.process.pid for w in self._workers if w.process.pid is not None]

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, kind, value, tb) -> None:
        if kind is None:
            self.close()
        else:
            self.kill()

    def imap_unordered(self, function: Callable[..., T], items: Iterable) -> Generator[tuple[int, T], None, None]:
        """``(i, function(items[i]))`` in the order the workers finish them.

        A task's exception is raised here (with the worker's traceback as a note); leaving the
        loop before the end, for whatever reason, kills the pool (:meth:`kill`)."""
        if self._busy or not self._workers:
            raise RuntimeError("this pool is running another map or has ended")
        tasks = deque(enumerate(items))
        self._busy, finished = True, False
        try:
            for worker in self._workers:
                self._feed(worker, function, tasks)
            while True:
                busy = [w for w in self._workers if w.in_flight]
                if not busy:
                    break
                ready = wait([w.connection for w in busy] + [w.process.sentinel for w in busy], POLL_SECONDS)
                raise_received()
                for worker in busy:
                    if worker.connection in ready:
                        try:
                            index, ok, value = worker.connection.recv()
                        except (EOFError, OSError):  # it died before answering (EOF, or the pipe reset)
                            raise self._died(worker) from None
                        worker.in_flight.remove(index)
                        if not ok:
                            raise value
                        self._feed(worker, function, tasks)
                        yield index, value
                    elif worker.process.sentinel in ready:
                        raise self._died(worker)
            finished = True
        finally:
            self._busy = False
            if not finished:
                self.kill()

    def imap(self, function: Callable[..., T], items: Iterable) -> Iterator[T]:
        """``function(item)`` for each item, in the items' order (each as soon as it and those before it are done)."""
        results = self.imap_unordered(function, items)
        waiting: dict[int, T] = {}
        next_index = 0
        try:
            for index, value in results:
                waiting[index] = value
                while next_index in waiting:
                    yield waiting.pop(next_index)
                    next_index += 1
        finally:
            results.close()  # an early exit from this loop ends the pool at once, not when collected

    def _feed(self, worker: _Worker, function: Callable, tasks: deque) -> None:
        while tasks and len(worker.in_flight) < self.depth:
            index, item = tasks.popleft()
            worker.in_flight.append(index)
            try:
                worker.connection.send((index, function, item))
            except OSError:  # its end of the pipe is closed: it died
                raise self._died(worker) from None

    def _died(self, worker: _Worker) -> BaseException:
        worker.process.join(JOIN_SECONDS)
        if worker.process.exitcode == -signal.SIGTERM:  # a SIGTERM to the group (or to the worker): the command ends
            return Interrupted(signal.SIGTERM)
        return WorkerError(
            f"worker process {worker.process.pid} ended (exit code {worker.process.exitcode}) "
            f"before answering task {worker.in_flight[0]}"
        )

    def close(self) -> None:
        """The normal end: each worker is told to stop and reaped; one still running after
        :data:`JOIN_SECONDS` is killed."""
        try:
            for worker in self._workers:
                try:
                    worker.connection.send(None)
                except OSError:  # it is gone already
                    pass
            deadline = time.monotonic() + JOIN_SECONDS
            for worker in self._workers:
                if worker.process.pid is not None:
                    worker.process.join(max(0.0, deadline - time.monotonic()))
        finally:  # also when an interrupt arrives meanwhile
            self.kill()

    def kill(self) -> None:
        """The end after an interrupt or an error: SIGKILL every worker still alive, reap each
        (at most :data:`JOIN_SECONDS` in all), close the pipes. Safe to call more than once. An
        interrupt arriving meanwhile is raised once the workers are gone."""
        workers, self._workers = self._workers, []
        raised = None
        for _ in range(3):  # a signal can cut a pass short; the next pass finishes it (each step is idempotent)
            try:
                _end(workers)
                break
            except BaseException as exc:
                raised = raised or exc
        if raised is not None:
            raise raised


def _end(workers: list) -> None:
    """SIGKILL the live ``workers``, reap them (a deadline for all), close their pipes."""
    # a worker interrupted inside start() before it had a pid dies with this process (PR_SET_PDEATHSIG)
    started = [w for w in workers if w.process.pid is not None]
    for worker in started:  # first every kill, then the waits: a slow reap delays no kill
        if worker.process.exitcode is None:
            try:
                worker.process.kill()
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + JOIN_SECONDS
    for worker in started:
        worker.process.join(max(0.0, deadline - time.monotonic()))
    for worker in workers:
        worker.connection.close()
