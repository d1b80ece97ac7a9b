"""One status line on stderr, rewritten in place while a long run goes on.

Silent unless the stream is a terminal, so logs and pipes get no control characters.

>>> with StatusLine(enabled=False) as status:
...     status.show("probe 1/9")
"""

from __future__ import annotations

import sys

__all__ = ["StatusLine"]

CLEAR = "\r\033[K"  # carriage return, erase to the end of the line


class StatusLine:
    def __init__(self, stream=None, enabled: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.enabled = self.stream.isatty() if enabled is None else enabled

    def show(self, text: str) -> None:
        if self.enabled:
            print(CLEAR + text, end="", file=self.stream, flush=True)

    def clear(self) -> None:
        if self.enabled:
            print(CLEAR, end="", file=self.stream, flush=True)

    def __enter__(self) -> "StatusLine":
        return self

    def __exit__(self, *exc) -> None:
        self.clear()
