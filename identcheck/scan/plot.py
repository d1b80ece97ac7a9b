"""Pictures of a scan (:class:`~identcheck.scan.report.ScanResult`), written atomically.

One parameter: the margin of every probe (the scaled smallest singular value the rank rule
settled on) against the parameter, log y axis; dependent probes marked × on a line 10³ below the
smallest settled margin (a collapsed margin's size is the arithmetic's: 10^-2p at p digits),
grid values where φ is not valid marked ▼ at the bottom, brackets shaded and exceptional points
as vertical lines.
Two parameters: a heat map of log10 of the smallest margin over the probes that count, with the
not-identifiable values marked × and inconclusive ones ○, exceptional points ★.
The figures are pyplot-free :class:`matplotlib.figure.Figure` objects (identcheck/util/figures.py):
drawing one leaves the caller's backend and pyplot's figures as they were, and a returned figure
shows inline in Jupyter. matplotlib is imported only when a figure is drawn.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np

from ..conditions import CONDITIONS
from ..evidence import Verdict
from ..util.figures import new_figure
from ..util.outputs import check_output_path

__all__ = ["check_plot_path", "plot_scan"]

FLOOR = 1e-130  # where a margin of exactly 0 is drawn
DPI = 110  # of the PNG file and of the inline picture


def check_plot_path(path: str) -> None:
    """Refuse a plot path before any work is done (one line, naming the path)."""
    check_output_path(path, "--plot", suffix=".png")  # the policy every output path follows (outputs.py)


def plot_scan(result, path: str | None = None):
    """The figure of ``result`` (a :class:`matplotlib.figure.Figure`, shown inline by Jupyter), also
    written to the PNG ``path`` when given (a temporary file renamed into place: never half-written).

    Draws on its own figure, outside pyplot: the caller's backend and pyplot's figures are left as
    they were.
    """
    if path is not None:
        check_plot_path(path)
    figure = _one(result) if len(result.axes) == 1 else _two(result)
    if path is None:
        return figure
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".scan-", suffix=".png")
    os.close(handle)
    try:
        figure.savefig(temporary, dpi=DPI)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temporary, 0o666 & ~mask)  # mkstemp made it private; the PNG gets the usual mode
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    return figure


def _title(result) -> str:
    fixed = "".join(f", {k} = {v}" for k, v in result.fixed)
    name = CONDITIONS[result.condition].object_name  # φ(z), or an expert condition's h(x; θ)
    return f"{name} = {result.phi}{fixed}  [{result.condition}, d = {result.dim}, seed {result.seed}]"


def _one(result):
    import matplotlib

    figure = new_figure((11.5, 5.2), DPI)
    ax = figure.subplots()
    x = np.array([float(g.values[0]) for g in result.grid])
    evaluated = np.array([g.verdict is not None for g in result.grid])
    colors = matplotlib.rcParams["axes.prop_cycle"].by_key()["color"]
    settled = [p.margin for g in result.grid for p in g.probes if p.dependent is False and p.margin > 0]
    floor = 10.0 ** (np.floor(np.log10(min(settled))) - 3) if settled else FLOOR
    for j, name in enumerate(result.probe_names):
        dependent = np.array([bool(g.probes) and bool(g.probes[j].dependent) for g in result.grid])
        margin = np.array([max(g.probes[j].margin, FLOOR) if g.probes else np.nan for g in result.grid])
        margin[dependent] = floor  # collapsed with precision: its size is the arithmetic's, not the matrix's
        color = colors[j % len(colors)]
        style = "-" if all(not g.probes or g.probes[j].counts for g in result.grid) else ":"
        ax.semilogy(x, margin, style, color=color, lw=1.2, marker=".", ms=3, label=name)
        if dependent.any():
            ax.semilogy(x[dependent], margin[dependent], "x", color=color, ms=7, mew=1.6)
    low = ax.get_ylim()[0]
    if (~evaluated).any():
        ax.plot(
            x[~evaluated],
            np.full((~evaluated).sum(), low),
            "v",
            color="0.4",
            ms=6,
            label="not evaluated (φ invalid)",
            clip_on=False,
        )
    trail = [(float(v), m) for b in result.brackets for v, _, m in b.trail if m is not None]
    if trail:
        tx, ty = zip(*trail)
        ax.semilogy(tx, [max(m, floor) for m in ty], "k+", ms=6, label="bisection points (smallest margin)")
    for b in result.brackets:
        ax.axvspan(float(b.lo), float(b.hi), color="orange", alpha=0.25, lw=0)
    for k, e in enumerate(result.exceptional):
        bad = e.verdict == Verdict.NOT_IDENTIFIABLE
        ax.axvline(
            float(e.values[0][1]),
            color="crimson" if bad else "green",
            ls="--",
            lw=1,
            label=f"{e.label()}: {e.why()}" if k < 4 else None,
        )
    ax.axhline(np.sqrt(np.finfo(float).eps), color="0.5", lw=0.6, ls="-.")
    ax.text(
        x[0],
        np.sqrt(np.finfo(float).eps) * 2,
        " float64 borderline √eps·s₁ (s₁ ≈ 1)",
        fontsize=7,
        color="0.4",
        va="bottom",
    )
    ax.set_xlabel(result.axes[0].name)
    ax.set_ylabel("margin: scaled smallest singular value")
    if any(p.dependent for g in result.grid for p in g.probes):
        ax.axhline(floor, color="crimson", lw=0.6, ls=":")
        ax.text(
            x[-1],
            floor * 3,
            "× dependent: margin collapsed with precision (drawn here) ",
            fontsize=7,
            color="crimson",
            ha="right",
            va="bottom",
        )
    ax.set_title(_title(result), fontsize=10)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), framealpha=0.85)
    figure.text(0.01, 0.005, _wrap(result.summary), fontsize=7, va="bottom")
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    return figure


def _two(result):
    figure = new_figure((8, 6.4), DPI)
    ax = figure.subplots()
    a, b = result.axes
    shape = (a.count, b.count)
    margin = np.array(
        [np.log10(max(g.margin, FLOOR)) if g.margin is not None else np.nan for g in result.grid]
    ).reshape(shape)
    verdicts = np.array([g.verdict for g in result.grid], dtype=object).reshape(shape)
    extent = (float(b.lo), float(b.hi), float(a.lo), float(a.hi))
    dy, dx = float(a.hi - a.lo) / (a.count - 1), float(b.hi - b.lo) / (b.count - 1)
    extent = (extent[0] - dx / 2, extent[1] + dx / 2, extent[2] - dy / 2, extent[3] + dy / 2)
    image = ax.imshow(np.clip(margin, -20, None), origin="lower", extent=extent, aspect="auto", cmap="viridis")
    figure.colorbar(image, ax=ax, label="log10 smallest margin over counted probes (clipped at -20)")
    ya, xb = np.meshgrid([float(v) for v in a.values], [float(v) for v in b.values], indexing="ij")
    for verdict, marker, label in (
        (Verdict.NOT_IDENTIFIABLE, "x", "not identifiable"),
        (Verdict.INCONCLUSIVE, "o", "inconclusive"),
        (None, "s", "not evaluated"),
    ):
        mask = verdicts == verdict
        if mask.any():
            ax.plot(
                xb[mask],
                ya[mask],
                marker,
                color="white" if verdict else "0.3",
                mfc="none",
                ms=5,
                mew=1.2,
                ls="none",
                label=label,
            )
    for k, e in enumerate(result.exceptional):
        values = dict(e.values)
        ax.plot(
            float(values[b.name]),
            float(values[a.name]),
            "*",
            color="crimson",
            ms=13,
            mec="white",
            ls="none",
            label="checked exactly (full check)" if k == 0 else None,
        )
    ax.set_xlabel(b.name)
    ax.set_ylabel(a.name)
    ax.set_title(_title(result), fontsize=10)
    if ax.get_legend_handles_labels()[0]:  # below the map, off the data
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, facecolor="0.6", framealpha=0.9)
    figure.text(0.01, 0.005, _wrap(result.summary), fontsize=7, va="bottom")
    figure.tight_layout(rect=(0, 0.05, 1, 1))
    return figure


def _wrap(text: str, width: int = 150) -> str:
    words, lines, line = text.split(), [], ""
    for w in words:
        if len(line) + len(w) + 1 > width:
            lines.append(line)
            line = w
        else:
            line = f"{line} {w}".strip()
    return "\n".join(lines + [line])
