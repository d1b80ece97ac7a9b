"""numeric confirm: the channel-recombination witness and --K (docs/confirm.md, Channel recombination)."""

import json

import pytest

from numeric.cli.main import main
from numeric.confirm import confirm
from numeric.confirm import run as confirm_module

MC = 4000


def _run(argv):
    return main(["confirm", *argv])


def test_gated1_at_K4_has_an_exact_recombination_path_outside_the_verdict():
    result = confirm("sigmoid(z + 1)", mc=MC, rates=False, figure=False, K=4)
    (path,) = [s for s in result.sequences if s.kind == "recombination"]
    assert path.exact_invariance and path.max_relative_change <= 1e-12 and path.to_zero
    assert result.outcome == "consistent"  # about the loss, for every phi: not counted against an identifiable phi
    data = result.to_dict()
    assert data["K"] == 4
    constructions = {c["construction"]: c for c in data["recombination"]["constructions"]}
    assert constructions["local"]["exact"] and constructions["global"]["exact"]
    assert (
        constructions["local"]["measure_loss"] == pytest.approx(0.0, abs=1e-12)
        and constructions["global"]["channel_loss"] > 20
    )
    assert constructions["swap"]["applies"] is False
    assert "exact for every phi" in data["recombination"]["line"]


def test_gated1_at_the_default_K_reports_the_global_alternative_and_why_no_path():
    result = confirm("z", mc=MC, rates=False, figure=False)
    assert result.K == 3 and not [s for s in result.sequences if s.kind == "recombination"]
    assert "local: not built (K=3: the local recombination needs K >= K* + 2 = 4" in result.recombination_line
    assert "global: g unchanged (exact), channel-level L2 = 25.3" in result.recombination_line


def test_gated2_claims_no_exact_invariance_and_says_why():
    result = confirm("sigmoid(z + 1)", condition="type2", mc=MC, rates=False, figure=False, K=4)
    (path,) = [s for s in result.sequences if s.kind == "recombination"]
    assert not path.exact_invariance and path.bounded
    assert all(not c.exact for c in result.recombination if c.applies)
    assert "moves g unless phi is affine" in result.recombination_line


@pytest.mark.parametrize(
    "value, message",
    [("1", "--K 1: must be from K* = 2"), ("17", "--K 17: must be from K* = 2"), ("x", "--K 'x': not an integer")],
)
def test_bad_K_is_one_line_exit_2(tmp_path, capsys, value, message):
    assert _run(["z", "--K", value, "--no-rates", "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and not (tmp_path / "never").exists()


def test_K_above_the_memory_budget_is_one_line_exit_2(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NUMERIC_MEMORY_BUDGET_MB", "100")
    assert _run(["z", "--K", "6", "--no-rates", "--out", str(tmp_path / "never")]) == 2
    err = capsys.readouterr().err
    assert "--K 6: a fit at n = 32000 needs" in err and "above the budget of 100 MB" in err and err.count("\n") == 1


def test_K_sets_the_over_specified_rate_fits(tmp_path, monkeypatch):
    monkeypatch.setattr(confirm_module, "QUICK_SIZES", (400, 800))
    monkeypatch.setattr(confirm_module, "QUICK_REPS", 2)
    result = confirm("z", quick=True, mc=MC, out=tmp_path, K=4, figure=False, budget=1e-3)  # the first grid only
    assert {(r.truth, r.K - r.K_star) for r in result.rates} == {
        ("witness", 0),
        ("witness", 2),
        ("generic", 0),
        ("generic", 2),
    }
    for r in result.rates:  # both losses for every row; two sizes: the slopes alone, no interval
        assert r.measure_slope is not None and r.measure_ci is None and r.to_dict()["measure_interval"] == "none"
    assert json.loads((tmp_path / "confirm.json").read_text())["K"] == 4


def test_jupyter_markdown_and_text_carry_the_recombination_line():
    from numeric.confirm.cli import format_result

    result = confirm("z", mc=MC, rates=False, figure=False, K=4)
    for text in (result._repr_markdown_(), format_result(result)):
        assert "channel recombination at K = 4 (K* = 2;" in text and "local at eps = 0.1: g unchanged (exact)" in text
