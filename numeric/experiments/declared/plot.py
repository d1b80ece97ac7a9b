"""A declared store's rates as one figure: a panel per quantity (the declared loss, then each per-parameter error).

Per experiment (settings, one colour): the means over repetitions against n on log-log axes (points)
and the slope fitted in n (dashed: log mean = c + b·log n, :mod:`numeric.experiments.declared.rates`; faint where
the points allow no interval, :mod:`numeric.experiments.slope`), the legend giving both slopes — in n and in
log(n)/n, the papers' form — and the number of fits worse than the truth. Drawn on a pyplot-free
figure (:func:`identcheck.util.figures.new_figure`), as :mod:`numeric.experiments.plots`.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from identcheck.util.figures import label_log_ticks, new_figure

from ..plots import COLOURS, DPI, label_sizes

__all__ = ["declared_figure", "plot_declared"]


def declared_figure(rates):
    """The panels of :class:`~numeric.experiments.declared.rates.DeclaredRate` objects, as a matplotlib Figure."""
    quantities = list(dict.fromkeys(r.quantity for r in rates))
    experiments = sorted({r.settings_id for r in rates})
    columns = min(3, max(1, len(quantities)))
    rows = math.ceil(len(quantities) / columns)
    legend = (0.55 if len(experiments) == 1 else 0.7) * len(experiments) + 0.3
    fig = new_figure((4.4 * columns, (3.2 + legend) * rows + 0.5), DPI)
    fig.set_layout_engine("constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    for ax, quantity in zip(axes, quantities):
        sizes_drawn: set = set()
        for rate in (r for r in rates if r.quantity == quantity):
            colour = COLOURS[experiments.index(rate.settings_id) % len(COLOURS)]
            sizes = np.array(rate.sizes, dtype=float)
            sizes_drawn.update(rate.sizes)
            label = (
                (f"{rate.settings}\n" if len(experiments) > 1 else "")
                + f"slope in n {rate.in_n.text()}\nin log(n)/n {rate.in_log_n_over_n.text()}\n"
                f"{rate.worse_than_truth} of {rate.fits} fits worse than the truth"
            )
            ax.plot(sizes, rate.means, "o", ms=4, color=colour, label=None if rate.in_n.slope is not None else label)
            if rate.in_n.slope is not None and rate.in_n.intercept is not None:
                faint = {} if rate.in_n.has_interval else {"alpha": 0.55, "lw": 1.0}
                line = np.exp(rate.in_n.intercept) * sizes**rate.in_n.slope
                ax.plot(sizes, line, "--", color=colour, label=label, **faint)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(quantity, fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel("mean over repetitions")
        label_log_ticks(ax)
        label_sizes(ax, sorted(sizes_drawn))
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    for ax in axes[len(quantities) :]:
        ax.set_axis_off()
    first = rates[0] if rates else None
    title = f"{first.model} (digest {first.digest[:12]}), {first.settings}" if first else "no rates"
    fig.suptitle(title if len(experiments) == 1 else title.split(",")[0], fontsize=10)
    return fig


def plot_declared(rates, folder, name: str = "rates_declared") -> list[Path]:
    """Write NAME.png and NAME.pdf into ``folder``; returns their paths."""
    figure = declared_figure(rates)
    paths = [Path(folder) / f"{name}.png", Path(folder) / f"{name}.pdf"]
    for path in paths:
        figure.savefig(path, dpi=DPI)
    return paths
