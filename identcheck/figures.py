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

__all__ = ["new_figure", "png_bytes"]


def new_figure(figsize: tuple[float, float], dpi: float):
    """A pyplot-free :class:`~matplotlib.figure.Figure` of ``figsize`` inches that Jupyter shows
    as a PNG at ``dpi`` (the dpi its file is written at)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    figure._repr_png_ = functools.partial(png_bytes, figure, dpi)  # IPython looks it up on the object
    return figure


def png_bytes(figure, dpi: float) -> bytes:
    """``figure`` rendered as PNG bytes at ``dpi``."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()
