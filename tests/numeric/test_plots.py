"""numeric's figures leave the caller's matplotlib alone and show inline (docs/architecture.md)."""

import pytest
from matplotlib.figure import Figure

from numeric.confirm.plot import confirm_figure, ratio_figure
from numeric.confirm.result import Sequence
from numeric.plots import plot_rates, rates_figure
from numeric.rates import Rate
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
        slope,
        slope - 0.1,
        slope + 0.1,
        0.0,
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
    assert isinstance(figure, Figure) and figure.axes[0].get_title() == "tanh(z)"
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
