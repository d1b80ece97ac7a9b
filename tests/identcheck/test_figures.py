"""identcheck's figures leave the caller's matplotlib alone and show inline (issue 23 §4)."""

from fractions import Fraction

import pytest
from matplotlib.figure import Figure

from identcheck import scan
from identcheck.figures import new_figure, png_bytes
from identcheck.scan_plot import plot_scan
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
