"""``identcheck scan``: identifiability maps of one φ(z; p) — or one expert h(x; θ, p) — over a grid of p.

One module per concept:

- :mod:`~identcheck.scan.run` — :func:`scan`, the grid, the bisection of verdict changes, the exact
  checks at simple numbers and the "for all p" reading (docs/scan.md);
- :mod:`~identcheck.scan.family` — the one code path for any registered condition: the condition at
  each grid value, evaluated, bisected, checked exactly;
- :mod:`~identcheck.scan.phi` — a condition on φ made fast (built once), and φ's "for all p";
- :mod:`~identcheck.scan.expert` — an expert's "for all p": the witness relation proved with p symbolic;
- :mod:`~identcheck.scan.params` — the parameters as given (``NAME=LO:HI:COUNT``), validated into axes;
- :mod:`~identcheck.scan.report` — :class:`ScanResult` and its parts, their JSON, text and markdown;
- :mod:`~identcheck.scan.summary` — the one-paragraph summary;
- :mod:`~identcheck.scan.plot` — the figure (matplotlib), written atomically.

Names are imported on first use (:mod:`identcheck.util.lazy`), so ``import identcheck.scan.report``
does not load the scan's driver.
"""

from typing import TYPE_CHECKING

from ..util.lazy import lazy_package

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    from .params import parse_scan_param
    from .plot import check_plot_path, plot_scan
    from .report import MAX_COUNT, MAX_VALUES, ScanResult
    from .run import MAX_BRACKETS, scan

_API = {
    **dict.fromkeys(("check_plot_path", "plot_scan"), ".plot"),
    **dict.fromkeys(("MAX_COUNT", "MAX_VALUES", "ScanResult"), ".report"),
    "parse_scan_param": ".params",
    **dict.fromkeys(("MAX_BRACKETS", "scan"), ".run"),
}
lazy_package(__name__, _API)

__all__ = [
    "MAX_BRACKETS",
    "MAX_COUNT",
    "MAX_VALUES",
    "ScanResult",
    "check_plot_path",
    "parse_scan_param",
    "plot_scan",
    "scan",
]
