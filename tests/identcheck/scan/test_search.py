"""The adversarial search of a stratum (identcheck/scan/search.py, known.py, search_check.py)."""

import json
import re
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest
import sympy as sp

from identcheck.check import check, make_condition
from identcheck.cli.main import main
from identcheck.evidence import Evidence, Verdict
from identcheck.results import ProbeResult, Relation
from identcheck.scan import search_check
from identcheck.scan.known import COINCIDING, ZERO_EXPERT, Coordinates, known_sets
from identcheck.scan.search import SearchResult, StratumSearch, Witness, search_strata
from identcheck.terms.probes import Component
from identcheck.terms.strata import Stratum
from identcheck.util.bites import Bites, Cells


def _pair(dim):
    setup = make_condition("sigmoid(z + 1)", "type1", dim)
    index, probe = next((i, p) for i, p in enumerate(setup.probes()) if p.name == "random pair")
    return setup, index, probe


def test_distances_to_the_known_sets_by_hand():
    """Random pair θ = (M1, a1, M2, a2) at d = 2 (3 + 2 entries each): the nearest point with θ1 = θ2 is their
    mean, at ‖θ1 − θ2‖/√2; a = 0 is at min_c ‖a_c‖; the sign stratum (shared M, a2 = −a1) placed in the pair is
    at √(‖M1 − M2‖² + ‖a1 + a2‖²)/√2 (either order of the two components gives the same)."""
    setup, _, probe = _pair(2)
    coordinates = Coordinates.of(probe.stratum, setup.term_set)
    sign = Stratum((0, 0), ((0, sp.Integer(1)), (0, sp.Integer(-1))))
    sets = {k.name: k for k in known_sets(coordinates, [("sign", sign)])}
    theta = np.random.default_rng(3).uniform(-1, 1, 10)
    m1, a1, m2, a2 = theta[:3], theta[6:8], theta[3:6], theta[8:10]
    assert coordinates.dimension == 10
    (first, second) = coordinates.thetas(theta)
    assert np.allclose(first, [*m1, *a1]) and np.allclose(second, [*m2, *a2])
    assert sets[COINCIDING].distance(theta) == pytest.approx(np.linalg.norm(first - second) / np.sqrt(2))
    assert sets[ZERO_EXPERT].distance(theta) == pytest.approx(min(np.linalg.norm(a1), np.linalg.norm(a2)))
    expected = np.sqrt(np.sum((m1 - m2) ** 2) + np.sum((a1 + a2) ** 2)) / np.sqrt(2)
    assert sets["sign"].distance(theta) == pytest.approx(expected)


def test_a_dependence_on_one_free_component_holds_on_every_stratum():
    """A dependent 'random single' (exp(z): the heat family) holds on every super-family: placed in the random
    pair it is the whole stratum (distance 0 everywhere); its M = 0 version is the set M_c = 0, at min_c ‖M_c‖.
    exp(z)'s check has no independent probe to search, and says so."""
    setup, _, probe = _pair(2)
    coordinates = Coordinates.of(probe.stratum, setup.term_set)
    zero_gate = Stratum((None,), ((0, sp.Integer(1)),))
    sets = {k.name: k for k in known_sets(coordinates, [("single", Stratum.free(1)), ("M = 0", zero_gate)])}
    theta = np.random.default_rng(4).uniform(-1, 1, 10)
    assert sets["single"].everywhere and sets["single"].distance(theta) == 0.0
    assert sets["M = 0"].distance(theta) == pytest.approx(min(np.linalg.norm(theta[:3]), np.linalg.norm(theta[3:6])))
    result = search_check.check_searching("exp(z)", 2, dim=1, seconds=30)
    assert result.verdict == Verdict.NOT_IDENTIFIABLE and result.details["search"].strata == ()
    assert "nothing searched" in result.details["search"].statement


def test_left_out_coinciding_components_are_found_again():
    """With "coinciding components" left out of the normalisation, the search ends on two equal components
    from starts at least 1/4 away from them: the snapped point is checked exactly, its relation ū[1] = ū[2]
    proved, and it counts for nothing ((A.5): equal expert vectors). With the full list it reports a margin."""
    setup, index, probe = _pair(1)
    left = search_strata(setup, [(index, probe, None)], 3, leave_out=(COINCIDING,), seconds=60).strata[0]
    assert left.start_distance >= 0.25 and COINCIDING not in left.known
    w = left.witness
    assert w is not None and w.dependent and w.proved and w.relation == "−ū[1] + ū[2] = 0"
    first, second = w.components
    assert first == second  # the two components coincide exactly
    assert COINCIDING in w.in_known and not w.admissible and not w.new
    json.dumps(left.to_dict())  # plain JSON types only (numpy's bool is not)
    full = search_strata(setup, [(index, probe, None)], 3, seconds=60).strata[0]
    assert COINCIDING in full.known and full.margin is not None and full.margin > 0
    assert full.witness is None or COINCIDING not in full.witness.in_known


def _fake_search(witness):
    stratum = StratumSearch("random pair", "(M1, a1, M2, a2)", 4, 1, (COINCIDING,), 1e-20, 1e-20, 1.0, None, ())
    return SearchResult(1, 0.1, 60.0, False, (replace(stratum, witness=witness),))


def _found_probe(name, components):
    """The exact check's outcome a fake witness carries: two relations on the pair at d = 1, keyed as type-1's
    (component, derivative): R1 = ∂ū/∂a1[1] + ½·∂²ū/∂a1²[2], R2 = −3·∂ū/∂M11[2] + ½·∂²ū/∂a1²[2]. Each is of
    order 2 (∂²ū/∂a1²: two derivatives), R1 − R2 = ∂ū/∂a1[1] + 3·∂ū/∂M11[2] of order 1: by hand, the span's
    order is 1, the dependence bites in exact-fitted cells."""
    a, M, aa = (("a", 0),), (("M", 0, 0),), (("a", 0), ("a", 0))
    rows = [
        [("∂ū/∂a1[1]", (0, a), "1"), ("∂²ū/∂a1²[2]", (1, aa), "1/2")],
        [("∂ū/∂M11[2]", (1, M), "-3"), ("∂²ū/∂a1²[2]", (1, aa), "1/2")],
    ]
    relations = tuple(
        Relation(
            terms=tuple((label, float(sp.Rational(c))) for label, _, c in row),
            exact=tuple((label, c) for label, _, c in row),
            family=None,
            hypothesis=None,
            proved=True,
            keys=tuple(key for _, key, _ in row),
        )
        for row in rows
    )
    return ProbeResult(name, components, 12, 48, 1e-40, 60, True, 2, relations, True, ((30, 1e-35, 2), (60, 1e-65, 2)))


@pytest.mark.parametrize("proved", [False, True])
def test_only_a_proved_new_dependence_changes_the_verdict(monkeypatch, proved):
    """A dependence the search reports changes an identifiable verdict only when its relation is proved (and
    it is admissible, a ≠ 0, in no known set); the same witness unproved leaves the verdict as the probes said.
    A changed verdict names the probe checked exactly as its witness, and bites where that probe's relations
    do (order 1 by hand, :func:`_found_probe`)."""
    one = sp.Rational(1, 2)
    components = (Component(((one,),), (one,)), Component(((one,),), (-one,)))
    found = _found_probe("search: (M1, a1, M2, a2)", components)
    witness = Witness(components, True, "a relation", None, proved, True, True, (), 8, outcome=found)
    monkeypatch.setattr(search_check, "search_strata", lambda *a, **k: _fake_search(witness))
    plain = check("sigmoid(z + 1)", dim=1)
    result = search_check.check_searching("sigmoid(z + 1)", 1, dim=1)
    assert plain.verdict == Verdict.IDENTIFIABLE and plain.bites is None and plain.witness is None
    if proved:
        assert result.verdict == Verdict.NOT_IDENTIFIABLE and result.evidence == Evidence.PROOF
        assert "found by search" in result.details["search"].statement
        assert result.witness == "search: (M1, a1, M2, a2)" and result.witness_probe is found
        assert result.probes == (*plain.probes, found)
        assert result.bites == Bites(1, Cells.EXACT_FITTED)
        assert result.to_dict()["bites"] == {"order": 1, "cells": "exact-fitted"}
        assert "order 1: bites in exact-fitted cells (earliest on probe 'search: (M1, a1, M2, a2)')" in result.to_text()
        assert result.scope == make_condition("sigmoid(z + 1)", "type1", 1).scope.statement(Verdict.NOT_IDENTIFIABLE)
    else:
        assert (result.verdict, result.evidence, result.summary) == (plain.verdict, plain.evidence, plain.summary)
        assert "a search, not a proof" in result.details["search"].statement
        assert result.bites is None and result.witness is None and result.probes == plain.probes
    assert result.to_dict()["details"]["search"]["found"] == ("random pair" if proved else None)


def test_a_found_probe_named_like_a_check_probe_is_told_apart(monkeypatch):
    """The witness names one probe: a found probe whose name a probe of the check has is renamed."""
    one = sp.Rational(1, 2)
    components = (Component(((one,),), (one,)), Component(((one,),), (-one,)))
    found = _found_probe("random pair", components)
    witness = Witness(components, True, "a relation", None, True, True, True, (), 8, outcome=found)
    monkeypatch.setattr(search_check, "search_strata", lambda *a, **k: _fake_search(witness))
    result = search_check.check_searching("sigmoid(z + 1)", 1, dim=1)
    assert result.witness == "random pair (found by search)" and result.witness_probe.relations == found.relations
    assert [p.name for p in result.probes].count("random pair") == 1


@pytest.mark.parametrize(
    "argv", [["check", "tanh(z)", "--search=0"], ["check", "tanh(z)", "--search=-2"], ["catalog", "--search=0"]]
)
def test_a_non_positive_count_is_one_line_exit_2(argv, capsys):
    assert main(argv) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1
    assert out.err.startswith(f"identcheck: error: --search {argv[-1].split('=')[1]}: must be a positive integer")


def test_a_count_that_is_not_a_number_or_a_condition_without_strata_is_refused():
    """One line each, exit 2, nothing on stdout; in a process of its own, as a user runs it."""
    for argv, why in (
        (["--search", "x"], "not an integer"),
        (["--condition", "type2", "--search", "2"], "type1 and mha only"),
    ):
        out = subprocess.run(
            [sys.executable, "-m", "identcheck", "check", "tanh(z)", *argv], capture_output=True, text=True
        )
        assert out.returncode == 2 and out.stdout == "" and why in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


def test_the_command_line_json_is_the_api_s(capsys):
    """``check --search N --json`` prints ``details.search`` as the API's ``to_dict()`` (the time aside).
    exp(z) fails its probes, so nothing is searched; sigmoid(z + 1) passes them and its strata are searched:
    their records must be plain JSON (a numpy bool or float in a field crashed the printer) and equal."""
    assert main(["check", "exp(z)", "--dim", "1", "--search", "2", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)[0]["details"]["search"]
    api = search_check.check_searching("exp(z)", 2, dim=1).to_dict()["details"]["search"]
    assert {**printed, "seconds": 0} == {**api, "seconds": 0}
    assert printed["starts"] == 2 and printed["found"] is None and printed["strata"] == []

    assert main(["check", "sigmoid(z + 1)", "--dim", "1", "--search", "2", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)[0]["details"]["search"]
    api = search_check.check_searching("sigmoid(z + 1)", 2, dim=1).to_dict()["details"]["search"]
    searched = [s for s in api["strata"] if s["starts"] > 0]
    assert len(searched) >= 3 and all(s["margin"] is not None for s in searched)
    for record in api["strata"]:
        assert type(record["floor"]) is bool
        assert all(type(record[k]) in (float, type(None)) for k in ("margin", "singular_value", "normaliser"))
    assert json.loads(json.dumps(api)) == api  # plain JSON values only

    def timeless(record):  # the time aside, also in the statement's "(…, 1.7 s)"
        return {**record, "seconds": 0, "statement": re.sub(r"[0-9.]+ s\)", "T s)", record["statement"])}

    assert timeless(printed) == timeless(api)


def test_the_search_is_in_the_text_and_markdown_however_its_record_was_read(monkeypatch):
    """The statement and each stratum's line are in ``to_text`` and the statement in the markdown, once
    each — for the built record and for the same record read back as JSON (a mapping)."""
    stratum = StratumSearch("random pair", "(M1, a1, M2, a2)", 4, 3, (COINCIDING,), 2.5e-3, 1e-4, 0.04, None, ())
    monkeypatch.setattr(search_check, "search_strata", lambda *a, **k: SearchResult(3, 0.1, 60.0, False, (stratum,)))
    result = search_check.check_searching("sigmoid(z + 1)", 3, dim=1)
    statement = result.details["search"].statement
    as_json = replace(result, details={**result.details, "search": result.to_dict()["details"]["search"]})
    for shown in (result, as_json):
        text = shown.to_text()
        assert text.count(statement) == 1
        assert "    random pair: 3 starts, smallest margin 2.50e-03 (s = 1.00e-04, nearest " in text
        assert shown._repr_markdown_().count(statement) == 1
