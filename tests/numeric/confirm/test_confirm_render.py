"""Jupyter rendering of ``numeric confirm``'s result, checked against the result's own fields."""

import re

import pytest

from numeric.confirm import ConfirmResult, RateRow, Sequence, confirm
from numeric.confirm.result import SymbolicSummary
from numeric.experiments.slope import SlopeEstimate

T = (1e-1, 1e-2, 1e-3)


def tables(markdown: str) -> list:
    """The markdown tables in ``markdown``: each a list of rows (header first), each a list of cells."""
    found = []
    for block in markdown.split("\n\n"):
        lines = [line for line in block.strip().splitlines() if line.startswith("|")]
        if lines:
            assert all(set(c.strip()) <= set("-:") for c in lines[1].split("|")[1:-1])
            rows = [[c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]] for line in lines]
            found.append([rows[0]] + rows[2:])
    return found


def _estimate(slope, low, high, reps=5):
    """A bootstrap SlopeEstimate with this interval (se read off it, as numeric.experiments.slope does)."""
    return SlopeEstimate(slope, 0.0, low, high, "bootstrap", "test", 4, reps, 0.95, (high - low) / (2 * 1.959964))


def _sequence(kind, name, ratio, slope, exact=False, limit=None):
    return Sequence(kind, name, "test", "", T, ratio, (0.0,) * 3, (1.0,) * 3, slope, exact, 0.0, limit)


@pytest.fixture
def fixed():
    sequences = (
        _sequence("witness", "Euler: scale channel", (0.0, 0.0, 0.0), None, exact=True, limit=0.0),
        _sequence("probe", "random pair", (1e-3, 1e-4, 1e-5), 1.0, limit=0.0),
        _sequence("random", "random direction 1", (0.05, 0.05, 0.05), 0.0, limit=0.05),
    )
    rates = (
        RateRow("witness", 2, 2, _estimate(-0.12, -0.2, -0.05), 12.3, (1000, 8000), (0.1, 0.05), 5),
        RateRow("generic", 3, 2, _estimate(-0.51, -0.6, -0.4), 15.0, (1000, 8000), (0.1, 0.01), 5),
    )
    symbolic = SymbolicSummary(
        "not identifiable",
        "proof",
        "random single",
        "∂ū/∂a1 − ū = 0",
        "Euler/homogeneity",
        "random single",
        "∂ū/∂a1 − ū = 0",
        "dependent on 9 of 9 probes",
    )
    return ConfirmResult(
        "z",
        "type1",
        "gated1",
        symbolic,
        sequences,
        rates,
        "consistent",
        "consistent: identcheck says not identifiable, and the witness does not move",
        3.2,
        1.1,
        1000,
    )


def test_verdict_line_and_symbolic_verdict_are_shown(fixed):
    markdown = fixed._repr_markdown_()
    assert "**CONSISTENT**: identcheck says not identifiable, and the witness does not move" in markdown
    assert f"**{fixed.symbolic.verdict}** ({fixed.symbolic.evidence} evidence)" in markdown
    assert fixed.symbolic.summary in markdown
    assert f"`{fixed.symbolic.relation}`" in markdown and fixed.symbolic.family in markdown
    assert "Lifted for the witness path" not in markdown  # same relation as identcheck's


def test_sequences_table_has_one_row_per_path_with_slope_and_invariance(fixed):
    sequences, rates = tables(fixed._repr_markdown_())
    assert sequences[0][:4] == ["kind", "path", "slope", "exact invariance"]
    rows = sequences[1:]
    assert len(rows) == len(fixed.sequences)
    for row, s in zip(rows, fixed.sequences):
        assert row[:2] == [s.kind, s.name]
        assert row[2] == ("—" if s.slope is None else f"{s.slope:.2f}")
        assert row[3] == ("yes" if s.exact_invariance else "no")
        assert float(row[4]) == pytest.approx(s.ratio[0], rel=1e-2) and float(row[5]) == s.t[-1]
        assert float(row[6]) == pytest.approx(s.ratio[-1], rel=1e-2)
    # by hand: the Euler witness is exact; 'random pair' has limit 0 and falls (slope 1); the line sits on its
    # limit 0.05
    assert [row[8] for row in rows] == ["yes", "yes", "no (bounded, plateau reached)"]


def test_a_path_whose_limit_the_data_never_reach_is_shown_not_resolved(fixed):
    """softplus(z + 1)'s old 'random triple' row: falling 1.3e-3 → 1.3e-6 at slope 1 with a limit of 3.9e-7."""
    import dataclasses

    falling = _sequence("probe", "random triple", (1.3e-3, 1.3e-5, 1.3e-6), 1.0, limit=3.9e-7)
    result = dataclasses.replace(
        fixed, sequences=(falling,), outcome="not-resolved", verdict="not-resolved: see the table"
    )
    (sequences, _) = tables(result._repr_markdown_())
    assert falling.status == "not resolved" and not falling.bounded and not falling.to_zero
    assert sequences[1][8] == "not resolved (plateau not reached)"
    assert "**NOT-RESOLVED**: see the table" in result._repr_markdown_()


def test_rates_table_has_one_row_per_rate(fixed):
    _, rates = tables(fixed._repr_markdown_())
    assert len(rates) - 1 == len(fixed.rates)
    for row, r in zip(rates[1:], fixed.rates):
        assert row[0] == r.truth and int(row[1]) == r.K and int(row[2]) == r.K_star
        assert float(row[3]) == pytest.approx(r.slope)


def test_without_rates_it_says_so():
    result = confirm("z", quick=True, rates=False, mc=1000)
    markdown = result._repr_markdown_()
    (sequences,) = tables(markdown)
    assert len(sequences) - 1 == len(result.sequences)
    assert [row[1] for row in sequences[1:]] == [s.name for s in result.sequences]
    assert result.verdict.startswith(result.outcome + ": ") and result.why in markdown
    assert "Rates: not run" in markdown


def test_a_rate_without_an_interval_shows_none_and_why(fixed):
    import dataclasses

    from numeric.experiments.slope import estimate_slope

    point = estimate_slope((1000, 8000), [[0.1], [0.05]])
    se = estimate_slope((1000, 2000, 8000), [[0.1, 0.12], [0.08, 0.07], [0.05, 0.04]])
    rows = (dataclasses.replace(fixed.rates[0], estimate=point), dataclasses.replace(fixed.rates[1], estimate=se))
    _, rates = tables(dataclasses.replace(fixed, rates=rows)._repr_markdown_())
    assert rates[1][4] == "none (2 sizes, 1 repetition)" and "[" not in rates[1][4]
    assert rates[2][4].endswith("(standard error)") and rates[2][4].startswith("[")
