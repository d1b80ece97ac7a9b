"""Declared rates: slopes in n and in log(n)/n with numeric.experiments.slope's intervals, flagged fits counted,
the command line's --json equal to the API, the plot written."""

import dataclasses
import json

import numpy as np
import pytest

from identcheck.declaration import read_example
from numeric.cli.main import main
from numeric.experiments.declared import (
    DECLARED_RATES_SCHEMA,
    DeclaredGrid,
    declared_rates,
    declared_rates_text,
    read_declared,
    run_declared,
)
from numeric.experiments.declared.rates import in_log_n_over_n
from numeric.experiments.declared.store import DeclaredStore
from numeric.experiments.rates import theory_slope
from numeric.experiments.slope import estimate_slope

SIZES = (1000, 2000, 4000, 8000)


def test_the_slope_in_log_n_over_n_of_an_exact_power_is_its_exponent():
    losses = np.array([[(np.log(n) / n) ** 0.45] * 3 for n in SIZES])
    estimate = in_log_n_over_n(SIZES, losses)
    assert estimate.slope == pytest.approx(0.45, abs=1e-12)
    assert estimate.interval == "standard error" and estimate.low <= estimate.slope <= estimate.high
    # the same points against n: -0.45 plus the log factor's share, the slope
    # numeric.experiments.rates' theory column gives
    in_n = estimate_slope(SIZES, losses).slope
    assert in_n == pytest.approx(theory_slope(0.45, SIZES), abs=1e-12) and in_n > -0.45


def test_the_interval_follows_numeric_slope_and_is_negated_end_for_end():
    rng = np.random.default_rng(0)
    losses = np.array([(np.log(n) / n) ** 0.5 * np.exp(rng.normal(0, 0.2, 6)) for n in SIZES])
    direct = estimate_slope(np.asarray(SIZES) / np.log(SIZES), losses)
    mine = in_log_n_over_n(SIZES, losses)
    assert (mine.interval, mine.slope, mine.low, mine.high) == ("bootstrap", -direct.slope, -direct.high, -direct.low)
    assert in_log_n_over_n(SIZES[:2], losses[:2]).interval == "none"
    assert in_log_n_over_n(SIZES[:1], losses[:1]).slope is None


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("declared")
    run_declared(read_example("deepseek-d2"), DeclaredGrid((300, 600, 1200), 2, seed=1), folder, progress=False)
    return folder


def test_rates_cover_the_loss_and_every_parameter_error(store):
    model, records = read_declared(store)
    rates = declared_rates(model, records)
    assert [r.quantity for r in rates][0] == "loss"
    names = {f"error {part}.{name}" for part, values in records[0].fit()["errors"]["errors"].items() for name in values}
    assert {r.quantity for r in rates[1:]} == names
    assert all(r.sizes == (300, 600, 1200) and r.n_reps == 2 and r.in_n.interval == "standard error" for r in rates)
    loss = rates[0]
    means = [np.mean([r.loss for r in records if r.n == n]) for n in loss.sizes]
    assert loss.means == pytest.approx(means)


def test_a_fit_worse_than_the_truth_is_counted(store):
    model, records = read_declared(store)
    flagged = [dataclasses.replace(r, worse_than_truth=True) if i < 2 else r for i, r in enumerate(records)]
    rates = declared_rates(model, flagged)
    assert {r.worse_than_truth for r in rates} == {2} and {r.fits for r in rates} == {6}
    assert "6 fits, 2 worse than the truth" in declared_rates_text(rates)


def test_settings_are_never_pooled(store):
    model, records = read_declared(store)
    other = [dataclasses.replace(r, settings_id="other") for r in records[:4]]
    rates = declared_rates(DeclaredStore(model.digest, model.name, {}, {}, model.settings), records + other)
    assert {r.settings_id for r in rates} == {records[0].settings_id, "other"}
    assert {r.fits for r in rates if r.settings_id == "other"} == {4}


def test_the_rates_command_json_is_the_api(store, capsys):
    model, records = read_declared(store)
    assert main(["rates", str(store), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    api = [r.to_dict() for r in declared_rates(model, records)]
    assert [{k: v for k, v in row.items() if k not in ("environment", "canonical")} for row in rows] == api
    assert {row["schema"] for row in rows} == {DECLARED_RATES_SCHEMA}
    assert rows[0]["canonical"] == model.canonical
    assert main(["rates", str(store)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("model deepseek-d2 (digest ") and "log(n)/n" in text


def test_plot_writes_png_and_pdf(store, capsys):
    assert main(["plot", str(store)]) == 0
    paths = capsys.readouterr().out.split()
    assert [p.rsplit("/", 1)[1] for p in paths] == ["rates_declared.png", "rates_declared.pdf"]
    assert all((store / p.rsplit("/", 1)[1]).stat().st_size > 1000 for p in paths)


def test_merge_on_the_command_line(store, tmp_path, capsys):
    assert main(["merge", str(tmp_path / "m"), str(store), "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert (counts["added"], counts["model"]) == (6, "deepseek-d2")
    assert len(read_declared(tmp_path / "m")[1]) == 6
