"""numeric's figures leave the caller's matplotlib alone and show inline (docs/architecture.md)."""

import pytest
from matplotlib.figure import Figure

from numeric.confirm.plot import confirm_figure, ratio_figure
from numeric.confirm.result import Sequence
from numeric.experiments.plots import plot_rates, rates_figure
from numeric.experiments.rates import Rate
from numeric.experiments.slope import SlopeEstimate
from tests.users_matplotlib import is_png, users_matplotlib


def _rate(model, K, slope):
    sizes = (1000, 2000, 4000)
    means = tuple(0.3 * n**slope for n in sizes)
    return Rate(
        "s1",
        "truth default, lm",
        model,
        K,
        "voronoi",
        SlopeEstimate(slope, 0.0, slope - 0.1, slope + 0.1, "bootstrap", "test", 3, 5),
        sizes,
        means,
        3,
        0.5,
        -0.45,
        None,
        1.0,
        1.0,
        0.5,
        0.0,
    )


def _sequence(kind, name, ratio, exact=False):
    t = (1e-1, 1e-2, 1e-3, 1e-4)
    return Sequence(kind, name, "line", "", t, ratio, (0.0,) * 4, (1.0,) * 4, None if exact else 0.5, exact, 0.0)


RATES = [_rate("mha", 2, -0.1), _rate("gated1", 2, -0.5), _rate("gated1", 3, -0.45)]
SEQUENCES = [
    _sequence("witness", "witness", (0.0,) * 4, exact=True),
    _sequence("probe", "p1", (1.0, 0.3, 0.1, 0.03)),
    _sequence("random", "r1", (2.0, 2.0, 2.0, 2.0)),
]


def test_plot_rates_leaves_the_backend_and_pyplot_figures_alone(tmp_path):
    with users_matplotlib():
        figure = rates_figure(RATES, "Voronoi loss")
        paths = plot_rates(RATES, tmp_path, ylabel="Voronoi loss")
    assert isinstance(figure, Figure) and len(figure.axes) == 4  # K = 2, 3 by mha, gated1
    assert [p.name for p in paths] == ["rates_voronoi.png", "rates_voronoi.pdf"]  # the name every quantity's follows
    assert figure._repr_png_() == paths[0].read_bytes()  # the inline picture is the file
    assert paths[1].read_bytes()[:5] == b"%PDF-"


def test_confirm_figure_leaves_the_backend_and_pyplot_figures_alone(tmp_path):
    path = tmp_path / "confirm.png"
    with users_matplotlib():
        figure = confirm_figure(SEQUENCES, "tanh(z)")
        assert ratio_figure(SEQUENCES, path, "tanh(z)") == str(path)
    assert isinstance(figure, Figure) and figure.get_suptitle() == "tanh(z)"
    assert is_png(path.read_bytes()) and figure._repr_png_() == path.read_bytes()


# --- what the rate figures say ------------------------------------------------------------------

import numpy as np  # noqa: E402

from tests.identcheck.util.test_figures import legend_overlaps_data  # noqa: E402


def test_the_theory_slope_is_drawn_as_a_reference_line():
    figure = rates_figure(RATES, "Voronoi loss")
    gated = [ax for ax in figure.axes if ax.get_visible() and ax.get_title().startswith("Setting I")]
    assert gated
    for ax in gated:
        dotted = [line for line in ax.get_lines() if line.get_linestyle() == ":" and len(line.get_xdata()) > 1]
        assert len(dotted) == 1
        x, y = (np.log(np.asarray(v, dtype=float)) for v in dotted[0].get_data())
        assert np.polyfit(x, y, 1)[0] == pytest.approx(-0.45)  # the Rate's theory_slope
        assert any("theory slope -0.45" in t.get_text() for t in ax.get_legend().get_texts())


def test_the_title_says_the_grid_quick_and_repetitions():
    import dataclasses

    assert rates_figure(RATES).get_suptitle() == "n = 1000 … 4000 (3 sizes), 3 repetitions per size (points: means)"
    quick = [dataclasses.replace(r, sizes=(2000, 4000, 8000, 16000), means=r.means + (r.means[-1],)) for r in RATES]
    assert (
        rates_figure(quick)
        .get_suptitle()
        .startswith("quick grid: n = 2000 … $1.6\\times10^{4}$ (4 sizes), 3 repetitions")
    )


def test_rate_legends_are_off_the_data():
    assert not legend_overlaps_data(rates_figure(RATES))


def test_confirm_legend_is_off_the_data_and_short_ratio_ranges_are_labelled():
    assert not legend_overlaps_data(confirm_figure(SEQUENCES, "tanh(z)"))
    flat = [_sequence("probe", "p1", (0.9, 0.8, 0.7, 0.6)), _sequence("random", "r1", (1.2, 1.1, 1.0, 0.95))]
    figure = confirm_figure(flat, "a ratio that hardly moves")
    ax = figure.axes[0]
    figure.draw_without_rendering()
    low, high = ax.get_ylim()
    assert sum(low <= t.get_loc() <= high and bool(t.label1.get_text()) for t in ax.yaxis.get_major_ticks()) >= 3


# --- slopes that do not overclaim, ticks that do not collide, no blank slot, paths told apart ------------

import dataclasses  # noqa: E402
import re  # noqa: E402

from numeric.confirm.result import RateRow, RateSeparation  # noqa: E402
from numeric.experiments.slope import estimate_slope  # noqa: E402


def _legend_texts(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def test_a_slope_without_an_interval_says_so_in_the_legend_and_is_drawn_faint():
    point = estimate_slope((1000, 2000), [[1.0], [0.6]])
    rates = [dataclasses.replace(RATES[1], estimate=point, sizes=(1000, 2000), means=(1.0, 0.6), n_reps=1)]
    (ax,) = [a for a in rates_figure(rates).axes if a.get_visible()]
    (text,) = [t for t in _legend_texts(ax) if "slope" in t and "theory" not in t]
    assert "no interval (2 sizes, 1 repetition)" in text and "[" not in text
    (dashed,) = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert dashed.get_alpha() is not None and dashed.get_alpha() < 1


def _overlapping_tick_labels(figure) -> list:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    out = []
    for ax in figure.axes:
        if not ax.get_visible() or not ax.axison:
            continue
        low, high = ax.get_xlim()
        ticks = [t for t in ax.xaxis.get_major_ticks() if t.label1.get_text() and low <= t.get_loc() <= high]
        boxes = [t.label1.get_window_extent(renderer) for t in ticks]
        out += [(ax.get_title(), a, b) for a, b in zip(boxes, boxes[1:]) if a.x1 > b.x0]
    return out


def test_n_tick_labels_never_run_together():
    """2000 … 8000 spans 4x: labelled at every digit, '7000' and '8000' touched in a panel of three."""
    sizes = (2000, 3000, 4000, 5000, 6000, 7000, 8000)
    rates = [dataclasses.replace(r, sizes=sizes, means=tuple(0.3 * n**-0.5 for n in sizes)) for r in RATES]
    rates.append(dataclasses.replace(rates[1], model="gated2"))
    assert _overlapping_tick_labels(rates_figure(rates)) == []


def test_log_spaced_sizes_over_a_decade_keep_short_labels_that_never_touch():
    """The Figure-1 grid: 10 sizes log-spaced over 10^4 ... 10^5 (12915, 16681, ...): labels at round
    values, a few characters each, never the measured sizes' long mantissas."""
    import numpy as np

    sizes = tuple(int(round(n)) for n in np.geomspace(1e4, 1e5, 10))
    rates = [dataclasses.replace(r, sizes=sizes, means=tuple(0.3 * n**-0.5 for n in sizes)) for r in RATES]
    rates.append(dataclasses.replace(rates[1], model="gated2"))
    figure = rates_figure(rates)
    assert _overlapping_tick_labels(figure) == []
    for ax in figure.axes:
        if ax.get_visible() and ax.axison:
            low, high = ax.get_xlim()
            texts = [t.label1.get_text() for t in ax.xaxis.get_major_ticks() if low <= t.get_loc() <= high]
            assert all(len(re.sub(r"[^0-9.]", "", t)) <= 4 for t in texts if t), texts


def test_a_model_without_fits_at_a_K_leaves_no_blank_slot():
    figure = rates_figure(RATES)  # mha has K = 2 only, gated1 K = 2 and 3
    (empty,) = [ax for ax in figure.axes if ax.get_visible() and not ax.has_data()]
    assert "no MHA fits at K = 3" in " ".join(t.get_text() for t in empty.texts)


SEPARATION = RateSeparation("witness slower", False, "test", 1, (1000, 2000, 4000), 3, 150.0)


def _rows():
    sizes, losses = (1000, 2000, 4000), [[1.0, 1.1, 0.9], [0.8, 0.7, 0.75], [0.5, 0.55, 0.6]]
    e = estimate_slope(sizes, losses)
    return (
        RateRow("witness", 2, 2, e, 12.0, sizes, (1.0, 0.75, 0.55), 3),
        RateRow("generic", 2, 2, e, 12.0, sizes, (1.0, 0.75, 0.55), 3),
    )


def test_confirm_figure_tells_every_path_apart_draws_each_once_and_shows_the_rates():
    sequences = [
        _sequence("witness", "symmetry [p1]", (1e-3, 1e-4, 1e-5, 1e-6)),
        _sequence("probe", "p1", (2e-3, 2e-4, 2e-5, 2e-6)),  # the witness probe's own path: folded in
        *(_sequence("probe", f"q{i}", (1.0, 0.5, 0.4, 0.4)) for i in range(14)),
    ]
    figure = confirm_figure(sequences, "title", _rows(), SEPARATION, witness_probe="p1")
    ratio, rates = figure.axes[:2]
    lines = [line for line in ratio.get_lines() if line.get_label() and not line.get_label().startswith("_")]
    assert len(lines) == 15  # 16 sequences, the witness probe's path drawn once, as the witness
    assert len({(str(line.get_color()), line.get_marker()) for line in lines}) == 15
    witness = [t for t in _legend_texts(ratio) if t.startswith("witness")][0]
    assert witness.startswith("witness: symmetry [p1] (probe 'p1' too)")
    assert all(t.startswith(("witness", "probe")) for t in _legend_texts(ratio))
    assert not any("p1 —" in t and t.startswith("probe") for t in _legend_texts(ratio))
    assert "do not separate" in rates.get_title()
    assert any("(se)" in t or "s.e." in t for t in _legend_texts(rates))


def test_confirm_axes_fit_the_data():
    figure = confirm_figure(SEQUENCES, "t")
    low, high = figure.axes[0].get_xlim()
    assert 1e-4 / 10 < low < 1e-4 and 1e-1 < high < 1e-1 * 2  # no empty decades left of the smallest t
