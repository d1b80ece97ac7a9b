"""Gate positions: the derivation's prediction agrees with the numerical check, and the CLI."""

import json

import pytest

from identcheck.cli.main import main
from identcheck.positions import positions


@pytest.mark.parametrize("phi", ["sigmoid(z + 1)", "tanh(z)", "gelu(z)", "z", "z**2", "3*z"])
def test_prediction_agrees_with_numerics(phi):
    rows = {r.position: r for r in positions(phi)}
    for r in rows.values():
        assert r.predicted_survives == r.observed_survives, (phi, r.position, r.residual)
    for name in ("G3", "G4", "G5"):
        assert rows[name].observed_survives and rows[name].residual < 1e-12
        assert rows[name].ratio == pytest.approx(1.0)


def test_homogeneous_phi_keeps_the_relation_with_its_degree():
    rows = {r.position: r for r in positions("z**2")}
    assert rows["G1"].ratio == pytest.approx(2.0) and rows["G2"].ratio == pytest.approx(2.0)


def test_cli_positions_json_and_check(capsys):
    assert main(["positions", "sigmoid(z + 1)", "--json", "--check"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by = {r["position"]: r for r in rows}
    assert by["G1"]["verdict"] == by["G2"]["verdict"] == "identifiable"
    assert by["G1"]["decided_by"] == "type2" and by["G5"]["decided_by"] is None


def test_cli_positions_bad_phi(capsys):
    assert main(["positions", "abs(z)"]) == 2
    assert "not differentiable" in capsys.readouterr().err


def test_a_phi_invalid_where_the_positions_evaluate_it_is_refused_with_the_reason(capsys):
    """positions 'log(z)' is refused, not printed as numpy warnings and a table of nan (exit 0): the domain
    check every command shares runs on the range the positions reach."""
    import warnings

    from identcheck.cli.main import main
    from identcheck.errors import IdentcheckError
    from identcheck.positions import positions

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(
            IdentcheckError, match=r"^phi='log\(z\)': phi is not continuous and real on the probed domain"
        ):
            positions("log(z)")
        assert main(["positions", "log(z)"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.strip().splitlines()) == 1
