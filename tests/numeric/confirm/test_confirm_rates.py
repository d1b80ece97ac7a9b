"""numeric confirm's rates: do the intervals separate, and the grid that grows within the budget (docs/confirm.md)."""

import pytest

from numeric.confirm import run as confirm_module
from numeric.confirm.rates import Z95, grow, separation
from numeric.confirm.result import RateRow
from numeric.experiments.slope import SlopeEstimate


def _estimate(slope, low, high, reps=5):
    """A bootstrap SlopeEstimate with this interval (se read off it, as numeric.experiments.slope does)."""
    return SlopeEstimate(slope, 0.0, low, high, "bootstrap", "test", 4, reps, 0.95, (high - low) / (2 * 1.959964))


def _row(truth, K, slope, low, high):
    return RateRow(truth, K, 2, _estimate(slope, low, high), 12.0, (1000, 8000), (1.0, 0.5), 5)


def test_identifiable_needs_every_interval_below_zero():
    """gelu(z + 0.5)'s measured generic row, -0.15 [-0.59, +0.18], does not separate; -0.5 [-0.6, -0.4] does."""
    good = [_row("witness", 2, -0.5, -0.6, -0.4), _row("generic", 2, -0.5, -0.6, -0.4)]
    assert separation(good, "rates at both truths") == (True, "every interval lies below 0")
    separated, reason = separation([good[0], _row("generic", 2, -0.15, -0.59, 0.18)], "rates at both truths")
    assert not separated and reason == "generic K = 2: interval [-0.59, +0.18] contains 0 or lies above it"


def test_witness_slower_by_more_than_the_difference_s_standard_error():
    # se by hand: (high - low) / (2 * 1.96) = 0.2 / 3.92 for both rows; the margin 1.96 * sqrt(2) * 0.2 / 3.92 = 0.1414
    margin = Z95 * (2 * (0.2 / (2 * Z95)) ** 2) ** 0.5
    assert margin == pytest.approx(0.2 / 2**0.5)
    generic = _row("generic", 2, -0.5, -0.6, -0.4)
    assert separation([_row("witness", 2, -0.5 + margin + 0.01, -0.45, -0.25), generic], "witness slower")[0]
    assert not separation([_row("witness", 2, -0.5 + margin - 0.01, -0.45, -0.25), generic], "witness slower")[0]
    # 1.702*silu(z)'s measured pattern: the witness faster than the generic truth
    separated, reason = separation(
        [_row("witness", 2, -0.83, -0.93, -0.73), _row("generic", 2, -0.73, -0.83, -0.63)], "witness slower"
    )
    assert not separated and reason.startswith("K = 2: witness slope -0.83 is not slower than the generic -0.73")
    # the witness may sit at 0 (no rate at all): only the generic truth must lie below 0
    assert separation([_row("witness", 2, 0.0, -0.1, 0.1), generic], "witness slower")[0]


def test_grow_alternates_a_larger_size_and_doubled_repetitions():
    assert grow((1000, 2000), 3, 1) == ((1000, 2000, 4000), 3)
    assert grow((1000, 2000, 4000), 3, 2) == ((1000, 2000, 4000), 6)


def test_the_grid_grows_until_the_rates_separate_and_stops_at_the_budget(monkeypatch, tmp_path):
    calls = []

    def fake_rows(model_kind, phi, truths, out, sizes, reps, jobs, seed, progress, phi_params, spare):
        calls.append((tuple(sizes), reps))
        # every grid passes the confirm's own settings, each to its parameter (one call site: _RateGrid.rows)
        assert (model_kind, phi, truths, out, jobs, seed, progress, phi_params, spare) == setup
        # the interval narrows with the grid: separates once the repetitions reach 6
        half = 0.3 if reps < 6 else 0.1
        return (_row("generic", 2, -0.2, -0.2 - half, -0.2 + half),)

    monkeypatch.setattr(confirm_module, "rate_rows", fake_rows)
    monkeypatch.setattr(confirm_module, "fit_cost", lambda out: 1e-6)  # 1 s per 10^6 units of n
    setup = ("gated1", "phi", [("generic",)], tmp_path, 1, 7, False, {"b": 1}, 0)
    args = (confirm_module._RateGrid(*setup), (1000, 2000), 3, "rates at both truths")
    import time

    rows, sep = confirm_module._rates(*args, time.perf_counter(), 1000.0)
    assert calls == [((1000, 2000), 3), ((1000, 2000, 4000), 3), ((1000, 2000, 4000), 6)]
    assert sep.separated and sep.rounds == 3 and sep.sizes == (1000, 2000, 4000) and sep.repetitions == 6
    # the first growth's new fits: (7000 * 3 - 3000 * 3) units * 1e-6 s = 0.012 s; a budget already spent stops it
    calls.clear()
    rows, sep = confirm_module._rates(*args, time.perf_counter() - 10.0, 10.0)
    assert (
        calls == [((1000, 2000), 3)] and not sep.separated and "the time budget ends" in sep.reason and sep.rounds == 1
    )


def test_separation_needs_rows_and_both_truths_at_every_K():
    """Without a witness row at some K, "the witness is slower at every K" would be vacuous."""
    generic_only = [_row("generic", 2, -0.5, -0.7, -0.3), _row("generic", 3, -0.5, -0.7, -0.3)]
    separated, reason = separation(generic_only, "witness slower")
    assert not separated and "only the generic truth was fitted" in reason
    assert separation([], "witness slower") == (False, "no rate rows: nothing to separate")
    assert separation([], "rates at both truths")[0] is False
