"""The plug-in claim measured (issue 25 §2): a condition written in one module outside the package
(:mod:`.toy_condition`, the ridge set {φ(aᵀx), ∂φ(aᵀx)/∂a}) and registered with one line runs
through check, --certify, replay and scan, from Python and from the command line's ``main``.

Expected values by hand. For φ = z every column is linear in x — φ(aᵀx) = aᵀx, ∂φ(aᵀx)/∂a_j = x_j —
so k vectors give k(d + 1) columns spanning the d functions x_1..x_d: nullity k(d + 1) − d, and
on one vector the null space is Euler's relation φ(aᵀx) − Σ_j a_j ∂φ/∂a_j = 0 (zφ' = φ). For
φ = z³, zφ' = 3φ: the relation 3φ(aᵀx) − Σ_j a_j ∂φ/∂a_j = 0, outside the toy's one family.
"""

import contextlib
import io
import json

import pytest
import sympy as sp

from identcheck import CONDITIONS, check
from identcheck.cli import main
from identcheck.replay import replay
from identcheck.scan import scan

from .toy_condition import EULER, Toy


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(CONDITIONS, "toy", Toy)  # the one line: CONDITIONS["toy"] = Toy
    return "toy"


def _coefficients(relation) -> dict:
    return {label: sp.Rational(value) for label, value in relation.exact}


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_z_fails_through_euler_on_every_probe(toy, dim):
    result = check("z", condition=toy, dim=dim, certify=True)
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "proof"
    for probe in result.probes:
        k = len(probe.components)
        assert probe.dependent and probe.nullity == k * (dim + 1) - dim, probe.name
    single = next(p for p in result.probes if p.name == "single")
    (relation,) = single.relations
    a = single.components[0].a
    expected = {"φ(aᵀx)": 1} | {f"∂φ/∂a{j + 1}": -v for j, v in enumerate(a) if v != 0}
    assert relation.family == EULER and relation.proved and _coefficients(relation) == expected
    x = sp.symbols(f"x1:{dim + 1}")
    column = {"φ(aᵀx)": sum(v * xj for v, xj in zip(a, x))} | {f"∂φ/∂a{j + 1}": x[j] for j in range(dim)}
    assert sp.expand(sum(c * column[label] for label, c in expected.items())) == 0  # the relation, by hand


def test_a_relation_outside_the_toys_family_is_read_raw_and_proved(toy):
    """φ = z³ on one vector: 3φ(aᵀx) − Σ a_j ∂φ/∂a_j = 0, not Euler's degree-1 relation."""
    single = next(p for p in check("z**3", condition=toy, certify=True).probes if p.name == "single")
    (relation,) = single.relations
    assert relation.family is None and relation.proved
    a = single.components[0].a
    got = _coefficients(relation)
    scale = got["φ(aᵀx)"] / 3
    assert got == {"φ(aᵀx)": 3 * scale} | {f"∂φ/∂a{j + 1}": -v * scale for j, v in enumerate(a) if v != 0}


def test_tanh_passes_with_certificates_that_replay(toy):
    result = check("tanh(z)", condition=toy, certify=True)
    assert str(result.verdict) == "identifiable" and str(result.evidence) == "proof"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["condition"] == "toy" and [p["name"] for p in data["probes"]] == ["single", "pair", "triple"]
    for probe in data["probes"]:
        assert probe["certificate"]["kind"] == "interval"
        again = replay(data, probe["name"])
        assert again["proved"] and again["residual_bound"] == probe["certificate"]["detail"]["residual_bound"]
    tampered = json.loads(json.dumps(data))
    tampered["probes"][1]["components"][0]["a"] = tampered["probes"][1]["components"][1]["a"]  # two equal vectors
    assert not replay(tampered, "pair")["proved"]


def test_scan_finds_the_euler_value(toy):
    """φ = z + b·tanh(z): at b = 0 exactly, φ = z fails through Euler's relation."""
    result = scan("z + b*tanh(z)", {"b": (-1, 1, 3)}, condition=toy, dim=2)
    assert [str(g.verdict) for g in result.grid] == ["identifiable", "not identifiable", "identifiable"]
    (point,) = result.exceptional
    assert point.values == (("b", 0),) and point.family == EULER and point.proved


def _cli(argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_the_command_line_reaches_a_condition_registered_in_its_process(toy):
    code, text = _cli(["check", "z", "--condition", toy])
    assert code == 0 and "NOT IDENTIFIABLE" in text and EULER in text
    code, text = _cli(["check", "tanh(z)", "--condition", toy, "--certify", "--json"])
    (data,) = json.loads(text)
    assert code == 0 and data["verdict"] == "identifiable"
    assert all(replay(data, p["name"])["proved"] for p in data["probes"])
    code, text = _cli(["scan", "z + b*tanh(z)", "--condition", toy, "--param", "b=-1:1:3", "--json"])
    data = json.loads(text)
    assert code == 0 and [g["verdict"] for g in data["grid"]] == ["identifiable", "not identifiable", "identifiable"]
    assert [(e["values"], e["family"]) for e in data["exceptional"]] == [({"b": "0"}, EULER)]
