"""Jupyter rendering of results (``_repr_markdown_``), checked against the results' own fields."""

import dataclasses
import re

import pytest

from identcheck import check
from identcheck.pde import prove_pde
from identcheck.util.markdown import table


def tables(markdown: str) -> list:
    """The markdown tables in ``markdown``: each a list of rows, each a list of cell texts (header first)."""
    found = []
    for block in markdown.split("\n\n"):
        lines = block.strip().splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
        if start is None:
            continue
        rows = [[c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines[start:]]
        assert all(set(c) <= set("-:") for c in rows[1]), (
            f"no separator row under the header: {lines[start : start + 2]}"
        )
        found.append([rows[0]] + rows[2:])
    return found


@pytest.fixture(scope="module")
def linear():
    return check("z")


@pytest.fixture(scope="module")
def sigmoid():
    return check("sigmoid(z + 1)")


@pytest.mark.parametrize("name", ["linear", "sigmoid"])
def test_verdict_evidence_summary_and_phi_are_shown(name, request):
    result = request.getfixturevalue(name)
    markdown = result._repr_markdown_()
    assert f"**Verdict: {str(result.verdict).upper()}** ({result.evidence} evidence)" in markdown
    assert result.summary in markdown
    assert f"`{result.phi}`" in markdown
    assert f"{result.n_terms} distinct" in markdown


@pytest.mark.parametrize("name", ["linear", "sigmoid"])
def test_one_table_row_per_probe_in_order_with_its_outcome(name, request):
    result = request.getfixturevalue(name)
    (probes,) = tables(result._repr_markdown_())
    header, rows = probes[0], probes[1:]
    assert header == ["probe", "terms", "margin", "digits", "result"]
    assert len(rows) == len(result.probes)
    for row, p in zip(rows, result.probes):
        assert row[0] == p.name
        assert int(row[1]) == p.n_terms and int(row[3]) == p.precision_digits
        assert float(row[2]) == pytest.approx(p.smallest_singular_value, rel=1e-2, abs=1e-300)
        proved = (p.settled_by or "").startswith("proved relations") and all(r.proved for r in p.relations)
        dependent = f"dependent ({p.nullity}" + (", relations proved)" if proved else ")")
        expected = {True: dependent, False: "independent", None: "undecided"}[p.dependent]
        assert row[4].startswith(expected), (row, p.name)


def test_the_witness_relations_are_shown_with_their_family(linear):
    markdown = linear._repr_markdown_()
    witness = next(p for p in linear.probes if p.name == linear.witness)
    assert f"*{witness.name}*" in markdown
    for r in witness.relations[:4]:
        assert f"`{r}`" in markdown
        assert r.family in markdown
    assert f"… and {len(witness.relations) - 4} more relation(s)" in markdown
    assert "∂ū/∂a1 − 3/4·∂ū/∂a2 − ū = 0" in markdown  # the PDE (5) on the witness probe, as text


def test_an_identifiable_result_has_no_witness_section(sigmoid):
    assert sigmoid.witness is None
    assert "Witness relations" not in sigmoid._repr_markdown_()


def test_a_certified_result_shows_each_probe_certificate(linear):
    certified = dataclasses.replace(linear, certified=True)  # certificates absent: each row says so
    (probes,) = tables(certified._repr_markdown_())
    assert all(row[4].endswith("[not certified]") for row in probes[1:])


def test_table_cells_escape_pipes():
    markdown = table(("a", "b"), [("x | y", 1)])
    (rows,) = tables(markdown)
    assert rows == [["a", "b"], ["x | y", "1"]]


def test_a_family_proof_renders_its_identity_steps_and_outcome():
    proofs = {p.family.split(" ")[0]: p for p in prove_pde("z")}
    euler = proofs["Euler/homogeneity"]
    markdown = euler._repr_markdown_()
    assert euler.proved and "**PROVED**" in markdown
    assert f"`{euler.identity}`" in markdown
    assert markdown.count("→ exact 0") == sum(ok for _, _, ok in euler.steps)
    heat = proofs["heat"]
    assert not heat.holds and "not shown for this φ" in heat._repr_markdown_()
