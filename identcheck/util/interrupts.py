"""SIGINT and SIGTERM in the main process: one exception, one exit code, one line (docs/architecture.md).

The CLIs run inside :func:`interrupts`: SIGINT and SIGTERM raise :class:`Interrupted` in the main
thread — a KeyboardInterrupt, so every cleanup written for Ctrl-C also runs for SIGTERM; the exit
code is 128 + the signal's number (:func:`exit_code`: 130, 143). Once a CLI has caught the
interrupt it answers with :func:`answer_interrupt`: further signals ignored (a second Ctrl-C
cannot turn its one-line message into a traceback), the line printed, the exit code returned.
Python discards an exception raised inside a ``__del__`` or a weakref callback, and a signal
handler can run there: the handler also notes the signal (``received``), and
:class:`~identcheck.util.pool.WorkerPool` polls :func:`raise_received` while it waits.
"""

from __future__ import annotations

import gc
import signal
import sys
import threading
from contextlib import contextmanager

__all__ = [
    "SIGNALS",
    "Interrupted",
    "answer_interrupt",
    "exit_code",
    "ignore_interrupts",
    "interrupts",
    "raise_received",
    "signal_of",
]

SIGNALS = (signal.SIGINT, signal.SIGTERM)
received: list = []  # the signals interrupts()'s handler received (it also raised them)


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM received by the main process (:func:`interrupts`).

    ``signum`` is the signal; ``kept`` says, for the user, what the interrupted command saved
    (a CLI fills it in: the store and how to continue, or that nothing was written)."""

    def __init__(self, signum: int, kept: str = ""):
        super().__init__(signal.Signals(signum).name)
        self.signum = signal.Signals(signum)
        self.kept = kept


def signal_of(exc: KeyboardInterrupt) -> signal.Signals:
    """The signal behind an interrupt: :class:`Interrupted`'s, else SIGINT (Python's own Ctrl-C)."""
    return exc.signum if isinstance(exc, Interrupted) else signal.SIGINT


def exit_code(exc: KeyboardInterrupt) -> int:
    """The shell's code for a process ended by the signal: 128 + its number (SIGINT 130, SIGTERM 143)."""
    return 128 + int(signal_of(exc))


@contextmanager
def interrupts():
    """While the block runs, SIGINT and SIGTERM raise :class:`Interrupted` in the main thread (and
    are noted for :class:`~identcheck.util.pool.WorkerPool`'s poll). On exit the previous handlers are restored, unless
    :func:`ignore_interrupts` was called (the process is ending). Outside the main thread nothing
    is installed (Python allows handlers only there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        received.append(signum)
        raise Interrupted(signum)

    received.clear()
    previous = {number: signal.signal(number, handler) for number in SIGNALS}
    try:
        yield
    finally:
        received.clear()
        if signal.getsignal(signal.SIGINT) is handler:
            for number, old in previous.items():
                signal.signal(number, old)


def ignore_interrupts() -> None:
    """SIGINT and SIGTERM ignored from now on: for a CLI that has caught an interrupt and is ending
    (SIG_IGN itself, not a handler that ignores: Python's exit resets those to the default)."""
    for number in SIGNALS:
        signal.signal(number, signal.SIG_IGN)


def answer_interrupt(exc: KeyboardInterrupt, prog: str) -> int:
    """A CLI's answer to an interrupt it caught, as it ends: further SIGINT and SIGTERM ignored (a
    second Ctrl-C cannot turn the message into a traceback), one line on stderr — the signal and
    what was kept (:attr:`Interrupted.kept`) —, the collector frozen (the interpreter's last
    collection over everything loaded took 1.3 s of the 2 s at load 8, measured on ``numeric
    confirm``); returns the exit code (:func:`exit_code`)."""
    ignore_interrupts()
    kept = exc.kept if isinstance(exc, Interrupted) else ""
    print(f"{prog}: interrupted ({signal_of(exc).name})" + (f": {kept}" if kept else ""), file=sys.stderr)
    gc.freeze()
    return exit_code(exc)


def raise_received() -> None:
    """Raise the interrupt whose exception Python discarded (the handler ran inside a ``__del__``)."""
    if received:
        raise Interrupted(received[0])
