"""Figures that leave the user's matplotlib alone (shared by identcheck's and numeric's plots).

A library call must not change the caller's matplotlib: no ``matplotlib.use``, no pyplot. Every
figure is a :class:`matplotlib.figure.Figure` made directly — it chooses no backend, is not in
pyplot's list of figures (``plt.get_fignums()``), and is freed like any object — and its
``savefig`` renders with Agg for a PNG without touching the backend. For Jupyter the figure gets a
``_repr_png_`` (the same PNG as the file, at the file's dpi), so a returned figure shows inline
whether or not pyplot was ever imported; where the inline backend is active, its own display of
figures takes precedence.

matplotlib is imported only inside these functions: it is optional for everything but the
figures and slow to import.
"""

from __future__ import annotations

import functools
import io
import math

__all__ = ["label_log_ticks", "new_figure", "png_bytes", "tick_text"]

#: A log axis with fewer powers of ten than this inside its range gets labelled ticks between them.
LABELLED_POWERS = 3


def new_figure(figsize: tuple[float, float], dpi: float):
    """A pyplot-free :class:`~matplotlib.figure.Figure` of ``figsize`` inches that Jupyter shows
    as a PNG at ``dpi`` (the dpi its file is written at)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    # IPython looks _repr_png_ up on the object; Figure declares no such attribute, hence the ignore
    figure._repr_png_ = functools.partial(png_bytes, figure, dpi)  # type: ignore[attr-defined]
    return figure


def png_bytes(figure, dpi: float) -> bytes:
    """``figure`` rendered as PNG bytes at ``dpi``."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def label_log_ticks(ax) -> None:
    """Label a short log axis between its powers of ten: every digit on a range below 5×, 1-2-5 below
    30×, 1-3 beyond.

    matplotlib labels a log axis at its powers of ten; on a range holding fewer than three of them
    that leaves two labelled ticks or fewer, and minor labels like ``6×10⁰``. Call after the data
    are drawn (it reads the limits); axes that are not log, or hold three powers of ten, are left alone.
    """
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for axis, (lo, hi) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        if axis.get_scale() != "log" or not 0 < lo < hi:
            continue
        if math.floor(math.log10(hi)) - math.ceil(math.log10(lo)) + 1 >= LABELLED_POWERS:
            continue
        ratio = hi / lo
        subs = tuple(float(k) for k in range(1, 10)) if ratio < 5 else ((1.0, 2.0, 5.0) if ratio < 30 else (1.0, 3.0))
        axis.set_major_locator(LogLocator(base=10, subs=subs))
        axis.set_major_formatter(FuncFormatter(tick_text))
        axis.set_minor_locator(LogLocator(base=10, subs=tuple(float(k) for k in range(1, 10))))
        axis.set_minor_formatter(NullFormatter())


def tick_text(value: float, _position=None) -> str:
    """A tick label: ``0.5``, ``20``, ``3000`` as decimals; ``2×10⁴`` beyond (mathtext)."""
    if value <= 0:
        return ""
    exponent = math.floor(math.log10(value) + 1e-9)
    if -2 <= exponent <= 3:
        return f"{value:g}"
    mantissa = round(value / 10**exponent, 6)
    return f"$10^{{{exponent}}}$" if mantissa == 1 else f"${mantissa:g}\\times10^{{{exponent}}}$"
