"""The figure of ``numeric confirm``: the paths that decide the outcome, and the rates that confirm it.

Left, ρ(t) against t on log-log axes, one line per path, each drawn once: every path has its own
colour and marker (the legend below matches them), the line style says its kind (witness: thick
and solid; probe: solid; random: dashed) and the legend its status (→ 0, bounded, …). A probe path
of the witness's own probe is the witness path's construction again and is not drawn a second
time (the legend's witness entry names it). A path whose function does not move (ρ ≡ 0) is drawn
at a floor a decade below the smallest positive ratio; a computed t → 0 limit ρ₀ is a short
dotted stub left of the smallest t measured. The axes fit the data.

Right, when the rate grid ran: the mean Voronoi loss against n for each (truth, K), its fitted
slope and interval as the legend gives them (:class:`~numeric.experiments.slope.SlopeEstimate`), and in the
panel's title whether the intervals separate — the grid the outcome in the title was read from.

The title (from :func:`numeric.confirm.confirm`) says φ, the model, the outcome, and the Monte
Carlo points per ratio ("quick" for ``--quick``). Drawn on a pyplot-free
:class:`matplotlib.figure.Figure` (identcheck/util/figures.py): the caller's backend and pyplot's
figures are left as they were; the figure shows inline in Jupyter.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np

from identcheck.util.figures import label_log_ticks, new_figure

from ..experiments.plots import label_sizes

__all__ = ["confirm_figure", "ratio_figure"]

DPI = 120  # of the file and of the inline picture
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h", "*", "p")
STYLE = {"witness": ("-", 2.6), "probe": ("-", 1.1), "random": ("--", 1.1), "recombination": (":", 1.1)}
STATUS = {"to zero": "→ 0", "bounded": "bounded", "not resolved": "not resolved", "undecided": "undecided"}
STUB = 3.0  # a t → 0 limit is drawn from t_min / STUB to t_min


#: The axes' labels of a φ condition's confirmation (attention models, loss L2)
RATIO_LABEL, LOSS_LABEL = "‖g_t − g*‖ / L2(G_t, G*)", "mean Voronoi loss L2"


def ratio_figure(
    sequences, path: Path, title: str, rates=(), separation=None, witness_probe=None, labels=(RATIO_LABEL, LOSS_LABEL)
) -> str:
    """Write the figure (module docstring) to ``path``; returns its name. ``labels``: the ratio's and the
    loss's axis labels (an expert condition's: ‖f_t − f*‖ / D and the declared loss)."""
    confirm_figure(sequences, title, rates, separation, witness_probe, labels).savefig(path, dpi=DPI)
    return str(path)


def _drawn(sequences, witness_probe):
    """The sequences to draw: every one once (the witness probe's own probe path folded into the witness)."""
    has_witness = any(s.kind == "witness" for s in sequences)
    folded = [s for s in sequences if has_witness and s.kind == "probe" and s.name == witness_probe]
    return [s for s in sequences if s not in folded], folded


def confirm_figure(sequences, title: str = "", rates=(), separation=None, witness_probe=None, labels=None):
    """The figure of ``sequences`` (:class:`~numeric.confirm.result.Sequence`) and, when given, the
    rate rows (:class:`~numeric.confirm.result.RateRow`) and their separation, as a
    :class:`matplotlib.figure.Figure`. The first axes is the ratio panel. A rate row without ``K``
    (an expert condition's :class:`~numeric.confirm.expert_rates.ExpertRate`) is labelled by its truth."""
    ratio_label, loss_label = labels or (RATIO_LABEL, LOSS_LABEL)
    from matplotlib import color_sequences

    # every path its own (colour, marker): 9 colours and 12 markers cycle together, distinct for 36 paths
    drawn, folded = _drawn(sequences, witness_probe)
    fig = new_figure((15.5 if rates else 10.5, 7.6), DPI)
    fig.set_layout_engine("constrained")
    axes = fig.subplots(1, 2 if rates else 1, squeeze=False, width_ratios=[1.55, 1] if rates else None)[0]
    ax = axes[0]
    positive = [r for s in drawn if not s.exact_invariance for r in (*s.ratio, s.limit or 0) if r > 0]
    floor = min(positive) / 10 if positive else 1e-6
    palette = [c for i, c in enumerate(color_sequences["tab10"]) if i != 3]  # red is the witness's alone
    t_min = min((min(s.t) for s in drawn), default=1e-4)
    t_max = max((max(s.t) for s in drawn), default=1e-1)
    for i, s in enumerate(drawn):
        colour = "red" if s.kind == "witness" else palette[i % len(palette)]  # with the marker: unique to 9 x 12
        style, width = STYLE.get(s.kind, ("-", 1.1))
        marker = "*" if s.kind == "witness" else MARKERS[i % len(MARKERS)]
        z = 4 if s.kind == "witness" else 2
        kind = f"{s.kind}: {s.name}"
        if s.kind == "witness" and folded:
            kind += f" (probe '{folded[0].name}' too)"
        if s.exact_invariance:
            label, values = f"{kind} — ratio ≡ 0, drawn at the floor", [floor] * len(s.t)
        else:
            slope = "—" if s.slope is None else f"{s.slope:.2f}"
            label, values = f"{kind} — slope {slope}, {STATUS.get(s.status, s.status)}", list(s.ratio)
        ax.plot(
            s.t,
            values,
            color=colour,
            lw=width,
            ls=style,
            marker=marker,
            ms=6 if s.kind == "witness" else 4,
            zorder=z,
            label=label,
        )
        if s.limit and not s.exact_invariance:  # the t -> 0 limit: a dotted stub left of the smallest t
            ax.plot([min(s.t) / STUB, min(s.t)], [s.limit, s.limit], color=colour, lw=width, ls=":", zorder=z)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(t_min / (STUB * 1.3), t_max * 1.3)  # the data's range, the limit stubs inside it
    ax.set_xlabel("t")
    ax.set_ylabel(ratio_label)
    ax.set_title("ratio along each path (dotted stub: its t → 0 limit)", fontsize=9)
    label_log_ticks(ax)  # a ratio that hardly moves spans less than two decades: labelled ticks between
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2, frameon=False)
    if rates:
        _rate_panel(axes[1], rates, separation, loss_label)
    fig.suptitle(title, fontsize=10)
    return fig


def _rate_panel(ax, rates, separation, loss_label: str = LOSS_LABEL) -> None:
    """Mean loss against n per (truth, K), with its slope and interval; the title says whether they separate."""
    colours = {"witness": "red", "hardest probe": "tab:purple", "generic": "tab:blue"}
    sizes_drawn: set = set()
    for i, r in enumerate(rates):
        K, K_star = getattr(r, "K", None), getattr(r, "K_star", None)
        colour = colours.get(r.truth, "0.3" if K is not None else ("tab:red", "tab:blue", "tab:green")[i % 3])
        style = "-" if K == K_star else "--"
        marker = "o" if K == K_star else "s"
        sizes = np.asarray(r.sizes, dtype=float)
        sizes_drawn.update(r.sizes)
        e = r.estimate
        fitted = "" if K is None else f", K = {K}{' (K*)' if K == K_star else ''}"
        label = f"{r.truth}{fitted}: {e.legend()}"
        if e.slope is None or e.intercept is None:  # one size: the points alone carry the label
            ax.plot(sizes, r.mean_loss, marker, color=colour, ms=5, label=label)
            continue
        ax.plot(sizes, r.mean_loss, marker, color=colour, ms=5)
        line = np.exp(e.intercept) * sizes**e.slope  # drawn with its marker hidden, so the legend shows it
        faint = 1.0 if e.has_interval else 0.55
        ax.plot(sizes, line, style, color=colour, marker=marker, markevery=[], ms=5, label=label, alpha=faint)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel(loss_label)
    label_log_ticks(ax)
    label_sizes(ax, sorted(sizes_drawn))
    if separation is not None:
        said = "separate" if separation.separated else "do not separate"
        ax.set_title(
            textwrap.fill(f"rates {said} ({separation.expected} expected; {separation.rounds} round(s))", 60),
            fontsize=9,
        )
    else:
        ax.set_title("rates (reported; they cannot change the outcome)", fontsize=9)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), frameon=False)
