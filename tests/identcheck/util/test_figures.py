"""identcheck's figures leave the caller's matplotlib alone and show inline (docs/architecture.md)."""

from fractions import Fraction

import pytest
from matplotlib.figure import Figure

from identcheck import scan
from identcheck.scan.plot import plot_scan
from identcheck.util.figures import new_figure, png_bytes
from tests.users_matplotlib import is_png, users_matplotlib


@pytest.fixture(scope="module")
def scans():
    one = scan("sigmoid(z + b)", {"b": (-1, 1, 3)}, dim=1, width=Fraction(1, 2), jobs=1)
    two = scan("sigmoid(a*z + b)", {"a": (1, 2, 2), "b": (-1, 1, 2)}, dim=1, width=Fraction(1, 1), jobs=1)
    return one, two


@pytest.mark.parametrize("which", [0, 1], ids=["one parameter", "heat map"])
def test_plot_scan_leaves_the_backend_and_pyplot_figures_alone(scans, which, tmp_path):
    path = tmp_path / "scan.png"
    with users_matplotlib():
        shown = plot_scan(scans[which])
        written = plot_scan(scans[which], str(path))
    assert isinstance(shown, Figure) and isinstance(written, Figure)
    assert written._repr_png_() == path.read_bytes()  # the inline picture is the file
    assert is_png(shown._repr_png_())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scan.png"]


def test_the_checker_sees_a_backend_switch_and_a_pyplot_figure():
    """users_matplotlib() fails for a call that switches the backend (what plot_scan did with
    matplotlib.use("Agg")) and for one that leaves a figure in pyplot."""
    import matplotlib
    import matplotlib.pyplot as plt

    with pytest.raises(AssertionError):
        with users_matplotlib():
            matplotlib.use("Agg")
    stray = None
    with pytest.raises(AssertionError):
        with users_matplotlib():
            stray = plt.figure()
    plt.close(stray)


def test_new_figure_is_outside_pyplot_and_renders_at_its_dpi():
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    figure = new_figure((2, 1), 50)
    assert plt.get_fignums() == before
    data = png_bytes(figure, 50)
    assert is_png(data) and figure._repr_png_() == data
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (100, 50)  # 2 x 1 inches at 50 dpi (the PNG header's IHDR)


# --- legends off the data, labelled ticks on short log ranges ------------------------------------


def _overlap(a, b) -> float:
    """Area of the intersection of two display-space boxes (0 when they do not meet)."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0) * max(height, 0)


def legend_overlaps_data(figure) -> bool:
    """Does any axes' legend cover part of its plotting area (rendered, in display units)?"""
    renderer = figure.canvas.get_renderer() if hasattr(figure.canvas, "get_renderer") else None
    if renderer is None:
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw_without_rendering()
    for ax in figure.axes:
        legend = ax.get_legend()
        if legend is not None and _overlap(legend.get_window_extent(renderer), ax.get_window_extent(renderer)) > 0:
            return True
    return False


@pytest.fixture(scope="module")
def scans_with_markers():
    """Scans whose figures have legends: b = 0 is not identifiable (a ↔ −a symmetry)."""
    one = scan("sigmoid(z + b)", {"b": (-1, 1, 3)}, dim=1, width=Fraction(1, 2), jobs=1)
    two = scan("sigmoid(a*z + b)", {"a": (1, 2, 2), "b": (-1, 1, 3)}, dim=1, width=Fraction(1, 1), jobs=1)
    return one, two


@pytest.mark.parametrize("which", [0, 1], ids=["one parameter", "heat map"])
def test_scan_legends_are_off_the_data(scans_with_markers, which):
    figure = plot_scan(scans_with_markers[which])
    assert any(ax.get_legend() is not None for ax in figure.axes)
    assert not legend_overlaps_data(figure)


def test_the_overlap_checker_sees_a_legend_on_the_data():
    figure = new_figure((4, 3), 100)
    ax = figure.subplots()
    ax.plot([1, 2, 3], [1, 2, 3], label="data")
    ax.legend(loc="upper left")
    assert legend_overlaps_data(figure)


@pytest.mark.parametrize("lo, hi, at_least", [(6.0, 9.4, 3), (1e4, 1e5, 3), (0.3, 20.0, 3)])
def test_a_short_log_range_gets_labelled_ticks_inside_it(lo, hi, at_least):
    from identcheck.util.figures import label_log_ticks

    figure = new_figure((4, 3), 100)
    ax = figure.subplots()
    ax.plot([lo, hi], [lo, hi])
    ax.set_xscale("log")
    ax.set_yscale("log")
    label_log_ticks(ax)
    figure.draw_without_rendering()
    for axis, (a, b) in ((ax.xaxis, ax.get_xlim()), (ax.yaxis, ax.get_ylim())):
        labelled = [t for t in axis.get_major_ticks() if a <= t.get_loc() <= b and t.label1.get_text()]
        assert len(labelled) >= at_least, [t.label1.get_text() for t in labelled]
        assert all("×10^{0}" not in t.label1.get_text() for t in labelled)


def test_a_long_log_range_is_left_to_matplotlib():
    from matplotlib.ticker import LogFormatterSciNotation

    from identcheck.util.figures import label_log_ticks

    figure = new_figure((4, 3), 100)
    ax = figure.subplots()
    ax.plot([1e-8, 1], [1e-8, 1])
    ax.set_yscale("log")
    label_log_ticks(ax)
    assert isinstance(ax.yaxis.get_major_formatter(), LogFormatterSciNotation)
