"""Bad input that used to end in exit 1 or never end, and property checkers that must not be vacuous."""

import numpy as np
import pytest
import sympy as sp

from identcheck import parse_activation
from identcheck.cli.main import main


@pytest.mark.parametrize(
    "argv, reason",
    [
        (["check", "0x10*z"], "0x10 is not a decimal number"),
        (["check", "0o7*z"], "0o7 is not a decimal number"),
        (["check", "sigmoid(" * 39 + "z" + ")" * 39], "too deeply nested"),
        (["check", "z", "--condition", "type2", "--dim", "1", "--gates", "3", "--channels", "3"], "only 8"),
    ],
)
def test_input_faults_are_one_line_exit_2(capsys, argv, reason):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and reason in captured.err and len(captured.err.strip().splitlines()) == 1


def test_catalog_out_is_checked_before_the_work_and_leaves_nothing(tmp_path, capsys, monkeypatch):
    import identcheck.catalog.activations as catalog  # the command imports it when it runs

    monkeypatch.setattr(
        catalog, "catalog_rows", lambda *a, **k: pytest.fail("the catalog ran before --out was checked")
    )
    assert main(["catalog", "--markdown", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_catalog_write_failure_leaves_no_temporary_file(tmp_path, capsys, monkeypatch):
    import identcheck.catalog.activations as catalog  # the command imports it when it runs
    import identcheck.cli.main as cli

    monkeypatch.setattr(catalog, "catalog_rows", lambda *a, **k: [])
    monkeypatch.setattr(catalog, "to_markdown", lambda rows: "table\n")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli.os, "replace", failing_replace)
    assert main(["catalog", "--markdown", "--out", str(tmp_path / "catalog.md")]) == 2
    assert "No space left" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["sinh", "cosh", "tanh", "asinh", "atan", "exp", "sin", "cos", "erf", "erfc"])
def test_each_parsed_name_is_that_function(name):
    """Against sympy's own function and numpy's, not against the parser's output."""
    z = sp.Symbol("z", real=True)
    act = parse_activation(f"{name}(z)")
    reference = getattr(sp, name)(z)
    grid = np.linspace(-1.5, 1.5, 31)
    expected = np.array([float(reference.subs(z, v)) for v in grid])
    assert np.allclose(act.numpy_derivative(0)(grid), expected, rtol=1e-12, atol=1e-14)
    slope = np.array([float(sp.diff(reference, z).subs(z, v)) for v in grid])
    assert np.allclose(act.numpy_derivative(1)(grid), slope, rtol=1e-10, atol=1e-12)


def test_the_pde_property_checker_notices_a_broken_expert(monkeypatch):
    """linear_expert_pde_residual is ~0 for the linear expert; with its u column doubled it must not be."""
    import identcheck.testing as testing
    from identcheck.terms.probes import Component

    component = Component(
        ((sp.Rational(1, 2), sp.Rational(1, 4)), (sp.Rational(1, 4), sp.Rational(-1, 2))),
        (sp.Rational(3, 4), sp.Rational(-1, 2)),
    )
    x = np.random.default_rng(0).uniform(-1, 1, size=(50, 2))
    assert testing.linear_expert_pde_residual(component, x) < 1e-12
    ts, compiled = testing._mha(2)

    class Doubled:
        def float64(self, *args):
            values = compiled.float64(*args).copy()
            values[:, ts.labels.index("u")] *= 2
            return values

    monkeypatch.setattr(testing, "_mha", lambda dim: (ts, Doubled()))
    assert testing.linear_expert_pde_residual(component, x) > 0.1


def test_the_identity_fails_through_the_pde_itself_not_any_relation_named_euler():
    """For φ = z the witness must be Σ_j a_j ∂ū/∂a_j − ū = 0 with the probe's own a (the PDE (5)):
    coefficients checked against the component, not against the family's name."""
    from fractions import Fraction

    from identcheck import check

    result = check("z")
    witness = next(p for p in result.probes if p.name == result.witness)
    a = [Fraction(v) for v in witness.components[0].to_dict()["a"]]
    coefficients = {label: Fraction(c) for label, c in witness.relations[0].exact}
    assert set(coefficients) == {"ū"} | {f"∂ū/∂a{j + 1}" for j, value in enumerate(a) if value != 0}
    for j, value in enumerate(a):
        assert coefficients.get(f"∂ū/∂a{j + 1}", Fraction(0)) == -value * coefficients["ū"]
