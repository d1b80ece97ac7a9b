"""Figure-1-style panels: rows K, columns models; log-log mean of a quantity against n, one colour per
experiment (settings) in the store.

Per experiment: the means (points), the fitted slope (dashed: log mean loss = c + slope·log n,
numeric.experiments.rates; drawn faint, its legend saying so, where the points allow no interval:
numeric.experiments.slope) and, where the theory gives a rate, a reference line of the theory slope (dotted,
same colour) through the middle of the fitted line — so the eye compares slopes, not levels. The
title says the grid: sizes, repetitions per size, and "quick" for the quick grids. Legends sit
below their panels, off the data; a log axis spanning less than two decades gets labelled 1-2-5
ticks (identcheck.util.figures.label_log_ticks), and an n axis spanning less than a power of ten
its measured sizes (three digits), thinned so that no two labels touch (:func:`label_sizes`). A
(model, K) without fits leaves no blank slot: it says so, and what the lines mean.

Drawn on a pyplot-free :class:`matplotlib.figure.Figure` (identcheck/util/figures.py): the caller's
backend and pyplot's figures are left as they were; the figure shows inline in Jupyter.
"""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import numpy as np

from identcheck.util.figures import label_log_ticks, new_figure, tick_text

from ..shipped import SHIPPED
from .sweep import QUICK, QUICK_LOCAL

__all__ = ["label_sizes", "plot_rates", "rates_figure"]

TITLES = {name: spec.title for name, spec in SHIPPED.items()}
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:gray")
DPI = 130  # of the files and of the inline picture
_NOTES = "points: means over repetitions\ndashed: the fitted slope (faint: no interval)\ndotted: the theory's slope"


def plot_rates(rates, folder, name: str = "rates_voronoi", ylabel: str = "Voronoi loss") -> list[Path]:
    """Write NAME.png and NAME.pdf into ``folder`` from :class:`numeric.experiments.rates.Rate` objects; returns
    their paths.

    ``numeric plot`` names them ``rates_<quantity>`` for every quantity (``rates_voronoi.png``).
    """
    figure = rates_figure(rates, ylabel)
    folder = Path(folder)
    paths = [folder / f"{name}.png", folder / f"{name}.pdf"]
    for path in paths:
        figure.savefig(path, dpi=DPI)
    return paths


def rates_figure(rates, ylabel: str = "Voronoi loss", title: str | None = None):
    """The panels of :class:`numeric.experiments.rates.Rate` objects, as a :class:`matplotlib.figure.Figure`.

    ``title`` defaults to :func:`grid_title` (the sizes and repetitions, "quick" for a quick grid).
    Rows K, columns models; a (model, K) without fits leaves no blank: its slot says so, and the first
    such slot what the lines mean.
    """
    models = [m for m in SHIPPED if any(r.model == m for r in rates)]
    Ks = sorted({r.K for r in rates})
    present = {(r.K, r.model) for r in rates}
    experiments = sorted({r.settings_id for r in rates})
    rows = max(1, len(experiments)) * 0.22 + 0.35  # inches of legend below each panel
    fig = new_figure((max(4.6 * len(models), 6.4), (3.4 + rows) * len(Ks) + 0.4), DPI)
    fig.set_layout_engine("constrained")
    axes = fig.subplots(len(Ks), len(models), squeeze=False)
    theory_drawn: dict = {}  # panel → the theory slopes drawn in it
    sizes_drawn: dict = {}  # panel → the sizes of its points (the x ticks)
    for rate in rates:
        ax = axes[Ks.index(rate.K)][models.index(rate.model)]
        colour = COLOURS[experiments.index(rate.settings_id) % len(COLOURS)]
        sizes = np.array(rate.sizes, dtype=float)
        sizes_drawn.setdefault(id(ax), set()).update(rate.sizes)
        name = rate.settings.split(",")[1].strip() if "," in rate.settings else rate.settings_id
        estimate = rate.estimate
        paper = f" (paper {rate.paper:.2f})" if rate.paper is not None else ""
        if estimate.slope is None or estimate.intercept is None:  # one size: the points alone
            ax.plot(sizes, rate.means, "o", ms=4, color=colour, label=f"{name}: {estimate.legend()}{paper}")
        else:
            ax.plot(sizes, rate.means, "o", ms=4, color=colour)
            line = np.exp(estimate.intercept) * sizes**estimate.slope
            faint = {} if estimate.has_interval else {"alpha": 0.55, "lw": 1.0}  # a point slope: drawn faint
            ax.plot(sizes, line, "--", color=colour, label=f"{name}: {estimate.legend()}{paper}", **faint)
            if rate.theory_slope is not None:  # the theory's slope through the fitted line's middle
                middle = np.sqrt(sizes[0] * sizes[-1])
                level = np.exp(estimate.intercept) * middle**estimate.slope
                ax.plot(sizes, level * (sizes / middle) ** rate.theory_slope, ":", color=colour, lw=1.6)
                theory_drawn.setdefault(id(ax), set()).add(f"{rate.theory_slope:.2f}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(f"{TITLES.get(rate.model, rate.model)}, K = {rate.K}", fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel(textwrap.fill(ylabel, 42))
    explained = False
    for (row, K), (column, model) in itertools.product(enumerate(Ks), enumerate(models)):
        ax = axes[row][column]
        if (K, model) not in present:  # no fits here: the slot says so (the first also what the lines mean)
            ax.set_axis_off()
            words = f"no {TITLES.get(model, model)} fits at K = {K} in the store"
            ax.text(
                0.5,
                0.5,
                textwrap.fill(words, 34) + ("" if explained else "\n\n" + _NOTES),
                ha="center",
                va="center",
                fontsize=8,
                transform=ax.transAxes,
            )
            explained = True
            continue
        label_log_ticks(ax)
        label_sizes(ax, sorted(sizes_drawn[id(ax)]))
        if id(ax) in theory_drawn:  # one legend entry for the reference lines of every colour
            ax.plot(
                [],
                [],
                ":",
                color="0.3",
                lw=1.6,
                label=f"dotted: theory slope {' / '.join(sorted(theory_drawn[id(ax)]))}",
            )
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    fig.suptitle(title if title is not None else grid_title(rates), fontsize=10)
    return fig


def label_sizes(ax, sizes, most: int = 5) -> None:
    """x ticks at the measured sizes on an n axis spanning less than a power of ten, at most ``most``
    labelled (every k-th, the last kept) so that neighbours never run together ("70008000"), each to
    three significant digits (a log-spaced size such as 12915 reads 1.29×10⁴). From one power of ten
    on, the round ticks of :func:`~identcheck.util.figures.label_log_ticks` read better than the
    measured sizes' long mantissas, and are kept."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    low, high = min(sizes), max(sizes)
    if high / low >= 10:
        return
    if len(sizes) == 1:  # one size: the axis around it, not matplotlib's decade
        ax.set_xlim(low / 1.5, low * 1.5)
    step = -(-len(sizes) // most)
    shown = sorted(set(sizes[::-1][::step]))
    ax.xaxis.set_major_locator(FixedLocator(shown))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _position=None: tick_text(float(f"{value:.3g}"))))
    ax.xaxis.set_minor_locator(NullLocator())


def grid_title(rates) -> str:
    """``'quick grid: n = 2000 … 16000 (4 sizes), 3 repetitions per size'``: what the points average."""
    sizes = sorted({n for r in rates for n in r.sizes})
    reps = sorted({r.n_reps for r in rates})
    quick = any(
        tuple(r.sizes) == tuple(q["sizes"]) and r.n_reps == q["reps"] for r in rates for q in (QUICK, QUICK_LOCAL)
    )
    repetitions = f"{reps[0]}" if len(reps) == 1 else f"{reps[0]}–{reps[-1]}"
    text = (
        (
            f"n = {tick_text(sizes[0])} … {tick_text(sizes[-1])} ({len(sizes)} sizes), "
            f"{repetitions} repetition{'s' if reps[-1] > 1 else ''} per size (points: means)"
        )
        if sizes
        else "no complete sizes"
    )
    return ("quick grid: " if quick else "") + text
