"""A fit says what its Voronoi loss is read against, and when its phi fails identcheck's own check."""

import json

import pytest

from numeric.cli.main import main
from numeric.fitting.phi_check import phi_check

N = ["--n", "300", "--K", "2"]  # small and exactly specified: a second or so


def _fit(capsys, *flags):
    assert main(["fit", "--model", "gated1", *N, *flags]) == 0
    return capsys.readouterr().out


def test_the_paper_s_sigmoid_fails_type1_and_the_fit_says_so(capsys):
    text = _fit(capsys)
    assert "identcheck: phi = sigmoid(z) FAILS the type1 (Setting I), d = 2 condition" in text
    assert "witness probe 'shared M, a2 = -a1'" in text and "not implied" in text
    assert "x the start's" in text.splitlines()[2]  # the Voronoi loss against the loss at the start
    data = json.loads(_fit(capsys, "--json"))
    assert data["schema"] == "numeric.fit/2"
    assert data["phi_check"]["fails"] is True and data["phi_check"]["verdict"] == "not identifiable"
    assert data["start_voronoi_loss"] > 0


def test_an_identifiable_phi_is_said_to_pass_and_mha_has_nothing_to_check(capsys):
    text = _fit(capsys, "--phi", "sigmoid(z + b)", "--param", "b=1")
    assert "satisfies the type1 (Setting I), d = 2 condition" in text
    assert phi_check("mha", "sigmoid(z)", {}, 2) is None
    assert main(["fit", "--model", "mha", *N, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["phi_check"] is None


def test_the_check_is_cached_per_phi():
    first = phi_check("gated1", "sigmoid(z)", {}, 2)
    assert phi_check("gated1", "sigmoid(z)", {}, 2) is first


@pytest.mark.parametrize("phi", ["relu(z)", "abs(z)", "3"])
def test_a_refused_phi_names_what_a_fit_needs_not_a_condition(capsys, phi):
    assert main(["fit", "--model", "gated1", "--phi", phi]) == 2
    err = capsys.readouterr().err
    assert "a fit needs" in err and "condition" not in err
