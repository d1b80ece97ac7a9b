"""docs/tutorial.ipynb runs top to bottom, and its stored outputs are the ones it produces now.

The documentation site renders the notebook from its stored outputs (docs/conf.py: never executed
at build time), so a stale output would be published: this slow test executes the notebook and
compares every text and markdown output with the stored one (timings aside), and that each stored
figure is still drawn. ``python3 tests/test_tutorial.py`` executes it and writes it back with
fresh outputs.

Needs the ``docs`` extra (nbclient, nbformat, ipykernel): ``python3 -m pip install -e ".[docs]"``
then ``python3 -m pytest -m slow tests/test_tutorial.py``. They are imported inside the functions,
so the default suite (the ``test`` extra only) collects this file without them.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TUTORIAL = ROOT / "docs" / "tutorial.ipynb"
TIMEOUT = 600  # seconds per cell
REFRESH = "python3 tests/test_tutorial.py"
INSTALL_DOCS = "nbclient/nbformat not found: install the docs extra with `python3 -m pip install -e \".[docs]\"`"

# What may differ between two runs of the same notebook: durations ("0.56 s", "seconds=0.56").
_DURATION = re.compile(r"\b\d+(?:\.\d+)?(?:e[-+]?\d+)? s\b|seconds=[0-9.e+-]+")


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


def shown(notebook) -> list:
    """Per code cell, what a reader sees of its outputs: the text of each stream and the markdown
    (or, without markdown, the plain text) of each result, durations blanked; a figure as the
    word ``<png>`` (its bytes depend on the fonts and the matplotlib version)."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        seen = []
        for output in cell.outputs:
            data = output.get("data", {})
            if output.output_type == "stream":
                seen.append((output.name, _DURATION.sub("<t>", output.text)))
            elif "image/png" in data:
                seen.append(("figure", "<png>"))
            elif "text/markdown" in data:
                seen.append(("markdown", _DURATION.sub("<t>", data["text/markdown"])))
            elif "text/plain" in data:
                seen.append(("text", _DURATION.sub("<t>", data["text/plain"])))
            else:
                seen.append((output.output_type, ""))
        cells.append((cell.source, seen))
    return cells


@pytest.mark.slow
def test_the_tutorial_runs_and_its_stored_outputs_are_fresh():
    try:
        import nbclient  # noqa: F401
        import nbformat
    except ImportError:
        pytest.fail(INSTALL_DOCS, pytrace=False)

    stored = nbformat.read(TUTORIAL, as_version=4)
    notebook = execute()
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    markdown = [o["data"]["text/markdown"] for o in outputs if "text/markdown" in o.get("data", {})]
    assert any("**Verdict: NOT IDENTIFIABLE**" in m for m in markdown)  # check("tanh(z)")
    assert any("**Verdict: IDENTIFIABLE**" in m for m in markdown)  # check("sigmoid(z + 1)")
    assert any("**PROVED**" in m for m in markdown)  # prove_pde
    assert any("**CONSISTENT**" in m for m in markdown)  # confirm
    drawn = [
        c
        for c in notebook.cells
        if c.cell_type == "code" and ("plot_scan(" in c.source or "_figure(" in c.source or "plt.show()" in c.source)
    ]
    assert len(drawn) == 3  # the library's two figures and the user's own pyplot figure after them
    for cell in drawn:  # each shows inline: the library's figures leave the user's backend alone
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source
    for (source, fresh), (_, old) in zip(shown(notebook), shown(stored), strict=True):
        assert fresh == old, f"docs/tutorial.ipynb's stored outputs are stale at the cell {source[:60]!r}: {REFRESH}"


if __name__ == "__main__":
    import nbformat

    nbformat.write(execute(), TUTORIAL)
    print(f"wrote {TUTORIAL.relative_to(ROOT)} with fresh outputs")
