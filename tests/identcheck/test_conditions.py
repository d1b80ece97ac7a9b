"""The driver and its conditions: registry, options, typed results, structural type-2 families."""

import dataclasses
import io
import json

import numpy as np
import pytest

from identcheck import CONDITIONS, Certificate, CertificateKind, IdentcheckError, Verdict, check, parse_activation
from identcheck.activation import parse_param
from identcheck.catalog import catalog_rows
from identcheck.check import make_condition
from identcheck.conditions.type1 import Type1
from identcheck.progress import StatusLine
from identcheck.type2 import type2_term_set
from identcheck.type2_families import templates
from identcheck.probes import head_probes


def test_the_registry_names_every_condition():
    assert list(CONDITIONS) == ["type1", "type2", "mha"]
    assert all(cls.name == name for name, cls in CONDITIONS.items())


def test_a_registered_condition_runs_through_check(monkeypatch):
    """A new condition is a class and a registry entry: check() needs nothing else."""

    class FirstTwoProbes(Type1):
        name = "first-two"

        def probes(self):
            return super().probes()[:2]

    monkeypatch.setitem(CONDITIONS, "first-two", FirstTwoProbes)
    result = check("z", condition="first-two")
    assert result.condition == "first-two" and [p.name for p in result.probes] == ["random single", "M = 0"]
    assert result.verdict == "not identifiable"


@pytest.mark.parametrize(
    "condition, option, match",
    [("type2", {"include_zero": True}, "include_zero=True: applies to type1 and mha only"),
     ("type1", {"n_gates": 3}, "n_gates=3: applies to type2 only"),
     ("mha", {"mixed_products": True}, "mixed_products=True: applies to type2 only")],
)
def test_an_option_of_another_condition_is_refused(condition, option, match):
    with pytest.raises(IdentcheckError, match=match):
        check("z", condition=condition, **option)


def test_the_options_a_condition_takes_reach_it():
    assert make_condition("z", "type1", include_zero=True).include_zero is True
    assert make_condition("z", "type2", n_channels=1).head["n_channels"] == 1


@pytest.mark.parametrize(
    "call",
    [lambda: parse_activation("sigmoid(z + b)"), lambda: parse_param("b=oops"), lambda: parse_param("b"),
     lambda: parse_activation(parse_activation("z").expr + __import__("sympy").Symbol("b") + __import__("sympy").Symbol("c")),
     lambda: catalog_rows(jobs=0)],
)
def test_library_errors_name_parameters_not_flags(call):
    with pytest.raises(IdentcheckError) as info:
        call()
    assert "--" not in str(info.value)


def test_verdicts_and_certificates_serialise_to_the_schema_strings():
    assert json.dumps([Verdict.NOT_IDENTIFIABLE, Verdict.INCONCLUSIVE]) == '["not identifiable", "inconclusive"]'
    assert f"{Verdict.IDENTIFIABLE}" == "identifiable"
    assert Certificate(CertificateKind.INTERVAL, {"digits": 30}).to_dict() == {"kind": "interval", "detail": {"digits": 30}}
    assert Certificate(None, "why").to_dict() == {"kind": None, "detail": "why"}


def test_the_tolerances_used_are_recorded():
    """The check records the rule's tolerances; each probe the borderline value its matrix used,
    sqrt(eps) times the largest singular value of the column-scaled matrix (recomputed here)."""
    result = check("sigmoid(z + 1)")
    by_name = {t.name: t for t in result.tolerances}
    assert by_name["agreement"].value == 1e-6 and by_name["ladder"].value == (30, 60, 120)
    assert result.to_dict()["tolerances"]["borderline"] == by_name["borderline"].rule
    condition = make_condition("sigmoid(z + 1)")
    for index, (probe, outcome) in enumerate(zip(condition.probes(), result.probes)):
        values = condition.matrix(probe, index).float64()
        s_max = np.linalg.svd(values / np.linalg.norm(values, axis=0), compute_uv=False)[0]
        borderline = next(t for t in outcome.tolerances if t.name == "borderline").value
        assert borderline == pytest.approx(np.sqrt(np.finfo(float).eps) * s_max, rel=1e-12)


@pytest.mark.parametrize("phi", ["z", "sin(z)", "z**3"])
def test_type2_families_do_not_read_labels(phi):
    """Renaming every term leaves the family relations unchanged: terms are matched by structure."""
    ts = type2_term_set(2, 2, 2, False)
    renamed = dataclasses.replace(ts, terms=tuple(dataclasses.replace(t, label=f"t{i}") for i, t in enumerate(ts.terms)))
    act = parse_activation(phi)
    columns = list(range(len(ts.terms)))
    found = 0
    for probe in head_probes(2, 2, 2, 0):
        config = probe.components[0]
        for full in (True, False):
            original = templates(ts, act, config, columns, full)
            assert templates(renamed, act, config, columns, full) == original
            found += len(original)
    assert found > 0


def test_the_status_line_writes_only_to_a_terminal():
    shown, hidden = io.StringIO(), io.StringIO()
    with StatusLine(shown, enabled=True) as status:
        status.show("probe 1/9")
    with StatusLine(hidden) as status:  # a StringIO is not a terminal
        status.show("probe 1/9")
    assert shown.getvalue() == "\r\033[Kprobe 1/9\r\033[K" and hidden.getvalue() == ""
