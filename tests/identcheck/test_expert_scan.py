"""Scanning an expert's fixed constant (identcheck/scan/expert.py)."""

import json

import sympy as sp

from identcheck.cli import main
from identcheck.scan.expert import expert_scan


def test_tanh_ridge_is_exceptional_at_zero_bias_only():
    # at b = 0 the sign pair e1, −e1 ties the atoms: tanh' is even, so ∂h/∂e1 at −e1 is −(∂h/∂e1 at e1)
    result = expert_scan("tanh(dot(e1, x) + b)", {"b": (-1, 1, 5)}, condition="deepseek-weak", width=sp.Rational(1, 8))
    verdicts = [str(g.verdict) for g in result.grid]
    assert verdicts == ["identifiable", "identifiable", "not identifiable", "identifiable", "identifiable"]
    [point] = result.exceptional
    assert point.values == (("b", 0),) and point.proved
    assert point.relation == "∂h2/∂e1⁽¹⁾[1] − ∂h2/∂e1⁽¹⁾[2] = 0" and point.family.startswith("atoms tied")
    assert [(b.lo, b.hi) for b in result.brackets] == [(sp.Rational(-1, 8), 0), (0, sp.Rational(1, 8))]


def test_cli_scans_an_expert_and_refuses_what_it_cannot_do(capsys):
    argv = ["scan", "tanh(dot(e1, x) + b)", "--condition", "deepseek-weak", "--param", "b=-1:1:3", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["condition"] == "deepseek-weak" and [g["verdict"] for g in data["grid"]][1] == "not identifiable"
    assert main(argv[:-1] + ["--certify"]) == 2
    assert "does not certify" in capsys.readouterr().err
