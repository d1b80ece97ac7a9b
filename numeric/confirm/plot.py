"""The figure of ``numeric confirm``: ρ(t) against t on log-log axes, one line per path.

Legend to the right, off the data; the title (from :func:`numeric.confirm.confirm`) says φ, the
model, the outcome, and the Monte Carlo points per ratio ("quick" for ``--quick``). The witness
path is drawn red and thick, probe paths grey, random paths blue; a path whose function does not
move (ρ ≡ 0) is drawn dashed at a floor a decade below the smallest positive ratio; a computed
t → 0 limit ρ₀ is drawn dotted, left of the measured range.

Drawn on a pyplot-free :class:`matplotlib.figure.Figure` (identcheck/util/figures.py): the caller's
backend and pyplot's figures are left as they were; the figure shows inline in Jupyter.
"""

from __future__ import annotations

from pathlib import Path

from identcheck.util.figures import label_log_ticks, new_figure

__all__ = ["confirm_figure", "ratio_figure"]

DPI = 120  # of the file and of the inline picture


def ratio_figure(sequences, path: Path, title: str) -> str:
    """Write the figure of ``sequences`` (:class:`~numeric.confirm.result.Sequence`) to ``path``; returns its name."""
    confirm_figure(sequences, title).savefig(path, dpi=DPI)
    return str(path)


def confirm_figure(sequences, title: str = ""):
    """The figure of ``sequences`` (:class:`~numeric.confirm.result.Sequence`, e.g. a
    :class:`~numeric.confirm.result.ConfirmResult`'s ``.sequences``), as a :class:`matplotlib.figure.Figure`."""
    fig = new_figure((10, 4.8), DPI)
    ax = fig.subplots()
    positive = [r for s in sequences if not s.exact_invariance for r in (*s.ratio, s.limit or 0) if r > 0]
    floor = min(positive) / 10 if positive else 1e-6
    for s in sequences:
        color = "red" if s.kind == "witness" else ("0.35" if s.kind == "probe" else "tab:blue")
        width = 2.2 if s.kind == "witness" else 1.0
        z = 3 if s.kind == "witness" else 2
        if s.exact_invariance:
            ax.plot(
                s.t,
                [floor] * len(s.t),
                color=color,
                lw=width,
                ls="--",
                marker="v",
                zorder=z,
                label=f"{s.name} (ratio ≡ 0, drawn at floor)",
            )
            continue
        ax.plot(
            s.t, s.ratio, color=color, lw=width, marker="o", ms=3, zorder=z, label=f"{s.name} (slope {s.slope:.2f})"
        )
        if s.limit:  # the t -> 0 limit, dotted, left of the measured range
            ax.plot([s.t[-1] / 1000, s.t[-1]], [s.limit, s.limit], color=color, lw=width, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("t")
    ax.set_ylabel("‖g_t − g*‖ / L2(G_t, G*)")
    ax.set_title(title, fontsize=9)
    label_log_ticks(ax)  # a ratio that hardly moves spans less than two decades: labelled ticks between
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), title="dotted: t → 0 limit", title_fontsize=7)
    fig.tight_layout()
    return fig
