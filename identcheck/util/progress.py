"""One status line on stderr, rewritten in place while a long run goes on.

Silent unless the stream is a terminal, so logs and pipes get no control characters — unless
asked (``--progress`` on the long commands: ``StatusLine.for_command``): on a stream that is not a
terminal the status is then written as plain lines, at most one every ``PIPE_INTERVAL`` seconds.
The CLIs keep it off with ``--json`` unless ``--progress`` asks for it.

>>> with StatusLine(enabled=False) as status:
...     status.show("probe 1/9")
"""

from __future__ import annotations

import sys
import time

__all__ = ["StatusLine"]

CLEAR = "\r\033[K"  # carriage return, erase to the end of the line
PIPE_INTERVAL = 1.0  # seconds between two status lines on a stream that is not a terminal


class StatusLine:
    def __init__(self, stream=None, enabled: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = self.terminal if enabled is None else enabled
        self._last = -PIPE_INTERVAL

    @classmethod
    def for_command(cls, asked: bool = False, json: bool = False, stream=None) -> "StatusLine":
        """The status line of a long command: on a terminal unless ``json``; anywhere when ``asked``."""
        line = cls(stream)
        line.enabled = bool(asked) or (line.terminal and not json)
        return line

    def show(self, text: str) -> None:
        if not self.enabled:
            return
        if self.terminal:
            print(CLEAR + text, end="", file=self.stream, flush=True)
        elif time.monotonic() - self._last >= PIPE_INTERVAL:
            self._last = time.monotonic()
            print(text, file=self.stream, flush=True)

    def clear(self) -> None:
        if self.enabled and self.terminal:
            print(CLEAR, end="", file=self.stream, flush=True)

    def __enter__(self) -> "StatusLine":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()
