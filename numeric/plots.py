"""Figure-1-style panel: rows K, columns models; log-log mean loss with error bars and the fit."""

from __future__ import annotations

from pathlib import Path

import numpy as np

__all__ = ["plot_rates"]

TITLES = {"mha": "MHA", "gated1": "Setting I (gate after values)", "gated2": "Setting II (gate after SDPA)"}


def plot_rates(records, rates, folder) -> list[Path]:
    """Write rates.png and rates.pdf into ``folder``; returns their paths."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = [m for m in ("mha", "gated1", "gated2") if any(r.model == m for r in rates)]
    Ks = sorted({r.K for r in rates})
    fig, axes = plt.subplots(len(Ks), len(models), figsize=(4.2 * len(models), 3.4 * len(Ks)), squeeze=False)
    for rate in rates:
        ax = axes[Ks.index(rate.K)][models.index(rate.model)]
        losses = {}
        for r in records:
            if r["model"] == rate.model and r["K"] == rate.K:
                losses.setdefault(r["n"], []).append(r["voronoi_loss"])
        sizes = np.array(rate.sizes, dtype=float)
        means = np.array(rate.means)
        errors = np.array([np.std(losses[n], ddof=1) / np.sqrt(len(losses[n])) if len(losses[n]) > 1 else 0.0 for n in rate.sizes])
        ax.errorbar(sizes, means, yerr=errors, fmt="o", ms=4, capsize=3, color="tab:blue", label="mean loss ± s.e.")
        line = np.exp(rate.intercept) * sizes**rate.slope
        label = f"slope {rate.slope:.2f} [{rate.ci_low:.2f}, {rate.ci_high:.2f}]"
        if rate.paper is not None:
            label += f"\npaper {rate.paper:.2f}"
        ax.plot(sizes, line, "--", color="tab:red", label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax.set_title(f"{TITLES.get(rate.model, rate.model)}, K = {rate.K}", fontsize=10)
        ax.set_xlabel("n")
        ax.set_ylabel("Voronoi loss")
        ax.legend(fontsize=8)
    fig.tight_layout()
    folder = Path(folder)
    paths = [folder / "rates.png", folder / "rates.pdf"]
    for path in paths:
        fig.savefig(path, dpi=130)
    plt.close(fig)
    return paths
