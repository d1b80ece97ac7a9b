"""Figure-1-style panels: rows K, columns models; log-log mean of a quantity against n with error
bars and the fitted slope, one colour per experiment (settings) in the store.

Drawn on a pyplot-free :class:`matplotlib.figure.Figure` (identcheck/figures.py): the caller's
backend and pyplot's figures are left as they were; the figure shows inline in Jupyter.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from identcheck.figures import new_figure

__all__ = ["plot_rates", "rates_figure"]

TITLES = {"mha": "MHA", "gated1": "Setting I (gate after values)", "gated2": "Setting II (gate after SDPA)"}
COLOURS = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:gray")
DPI = 130  # of the files and of the inline picture


def plot_rates(rates, folder, name: str = "rates", ylabel: str = "Voronoi loss") -> list[Path]:
    """Write NAME.png and NAME.pdf into ``folder`` from :class:`numeric.rates.Rate` objects; returns their paths."""
    figure = rates_figure(rates, ylabel)
    folder = Path(folder)
    paths = [folder / f"{name}.png", folder / f"{name}.pdf"]
    for path in paths:
        figure.savefig(path, dpi=DPI)
    return paths


def rates_figure(rates, ylabel: str = "Voronoi loss"):
    """The panels of :class:`numeric.rates.Rate` objects, as a :class:`matplotlib.figure.Figure`."""
    import matplotlib.ticker

    models = [m for m in ("mha", "gated1", "gated2") if any(r.model == m for r in rates)]
    Ks = sorted({r.K for r in rates})
    experiments = sorted({r.settings_id for r in rates})
    fig = new_figure((4.4 * len(models), 3.6 * len(Ks)), DPI)
    axes = fig.subplots(len(Ks), len(models), squeeze=False)
    for rate in rates:
        ax = axes[Ks.index(rate.K)][models.index(rate.model)]
        colour = COLOURS[experiments.index(rate.settings_id) % len(COLOURS)]
        sizes = np.array(rate.sizes, dtype=float)
        ax.plot(sizes, rate.means, "o", ms=4, color=colour)
        line = np.exp(rate.intercept) * sizes**rate.slope
        label = f"{rate.settings.split(',')[1].strip() if ',' in rate.settings else rate.settings_id}: {rate.slope:.2f} [{rate.ci_low:.2f}, {rate.ci_high:.2f}]"
        if rate.theory_slope is not None:
            label += f" (theory {rate.theory_slope:.2f})"
        if rate.paper is not None:
            label += f" (paper {rate.paper:.2f})"
        ax.plot(sizes, line, "--", color=colour, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(f"{TITLES.get(rate.model, rate.model)}, K = {rate.K}", fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig
