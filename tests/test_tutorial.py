"""docs/tutorial.ipynb runs top to bottom, so it never goes stale.

``python3 tests/test_tutorial.py`` executes it and writes it back with fresh outputs.
nbclient, nbformat and ipykernel come with the ``test`` extra; they are imported inside the
functions so the default suite does not need them.
"""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.ipynb"
TIMEOUT = 600  # seconds per cell


def execute(path: Path = TUTORIAL):
    """The notebook at ``path``, executed in a python3 kernel started in the repository root
    (so it imports this checkout's packages); raises ``nbclient.exceptions.CellExecutionError``
    on the first cell that fails."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=TIMEOUT,
        record_timing=False,
        resources={"metadata": {"path": str(ROOT)}},
    )
    client.execute()
    return notebook


@pytest.mark.slow
def test_the_tutorial_runs_without_errors_and_renders_its_results():
    notebook = execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    markdown = [o["data"]["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    assert any("**Verdict: NOT IDENTIFIABLE**" in m for m in markdown)  # check("tanh(z)")
    assert any("**Verdict: IDENTIFIABLE**" in m for m in markdown)  # check("sigmoid(z + 1)")
    assert any("**PROVED**" in m for m in markdown)  # prove_pde
    assert any("**CONSISTENT**" in m for m in markdown)  # confirm
    assert any("image/png" in o.get("data", {}) for o in outputs)  # the plot, inline
    drawn = [
        c
        for c in notebook.cells
        if c.cell_type == "code" and ("plot_scan(" in c.source or "_figure(" in c.source or "plt.show()" in c.source)
    ]
    assert len(drawn) == 3  # the library's two figures and the user's own pyplot figure after them
    for cell in drawn:  # each shows inline: the library's figures left the user's backend alone (issue 23 §4)
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source


if __name__ == "__main__":
    import nbformat

    nbformat.write(execute(), TUTORIAL)
    print(f"wrote {TUTORIAL.relative_to(ROOT)} with fresh outputs")
