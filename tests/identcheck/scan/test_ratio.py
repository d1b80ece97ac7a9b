"""The scan over the ratio c of parallel experts (shared M, a2 = c·a1): identcheck/scan/ratio.py."""

import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

from identcheck.check import check, make_condition
from identcheck.errors import IdentcheckError
from identcheck.evidence import Verdict
from identcheck.rank.parallel import decide_at, maximal_families
from identcheck.scan.ratio import check_every_ratio, parse_ratios, ratio_probe, scan_ratios
from identcheck.util.bites import Bites, Cells


def test_exp_sum_drops_rank_at_two_and_a_half():
    """φ = e^z + e^{2z}: φ(z), φ''(z) span {e^z, e^2z}, φ(cz), φ''(cz) span {e^cz, e^2cz}; the four
    are dependent exactly when {1, 2} ∩ {c, 2c} ≠ ∅, i.e. c ∈ {1/2, 2} in a range without 1. By hand
    at c = 2: φ''(z) − φ(z) = 3e^{2z} = −(φ''(2z) − 4φ(2z))."""
    setup = make_condition("exp(z) + exp(2*z)", "type1", 2)
    every = scan_ratios(setup, sp.Rational(3, 2), sp.Integer(4), 9)
    bad = [g.values[0] for g in every.grid if g.verdict == Verdict.NOT_IDENTIFIABLE]
    assert bad == [sp.Integer(2)]
    (point,) = every.exceptional
    assert point.values == (("c", sp.Integer(2)),) and point.proved
    assert point.relation == "−∂ū/∂M11[1] + ∂²ū/∂a1²[1] − 4·∂ū/∂M11[2] + ∂²ū/∂a1²[2] = 0"
    low = scan_ratios(setup, sp.Rational(1, 8), sp.Rational(7, 8), 5)
    assert [p.values[0][1] for p in low.exceptional] == [sp.Rational(1, 2)]
    assert all(g.verdict == Verdict.IDENTIFIABLE for g in low.grid if g.values[0] != sp.Rational(1, 2))


@pytest.mark.parametrize("phi", ["sigmoid(z)", "tanh(z)"])
def test_sign_relations_belong_to_c_minus_one(phi):
    """sigmoid(−z) = 1 − sigmoid(z), tanh(−z) = −tanh(z): the families drop rank at c = −1 (the sign
    stratum), which a range may not contain; a range beside it is independent at every grid ratio."""
    setup = make_condition(phi, "type1", 2)
    families = maximal_families(setup.term_set)
    assert all(decide_at(f, setup.activation, sp.Integer(-1)).independent is False for f in families)
    with pytest.raises(IdentcheckError, match="c = -1"):
        parse_ratios("-2:-1/2")
    every = scan_ratios(setup, sp.Integer(-3), sp.Rational(-5, 4), 5)
    assert every.exceptional == () and all(g.verdict == Verdict.IDENTIFIABLE for g in every.grid)


@pytest.mark.parametrize("text", ["2:2", "3:2", "0:1/2", "1/2:3", "-2:-1/2", "x:2", "2:3:1"])
def test_bad_ranges_are_one_line_exit_2(text):
    out = subprocess.run(
        [sys.executable, "-m", "identcheck", "check", "tanh(z)", f"--ratios={text}"], capture_output=True, text=True
    )
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "--ratios" in out.stderr


def test_a_proved_exceptional_ratio_decides_the_verdict():
    """The nine probes find e^z + e^{2z} independent (their c is not 2); the ratio scan proves c = 2."""
    assert check("exp(z) + exp(2*z)", dim=2).verdict == Verdict.IDENTIFIABLE
    result = check_every_ratio("exp(z) + exp(2*z)", "3/2:5/2:3", dim=2)
    assert result.verdict == Verdict.NOT_IDENTIFIABLE and str(result.evidence) == "proof"
    assert "c = 2" in result.summary and result.to_dict()["details"]["ratios"]["exceptional"][0]["proved"]
    unchanged = check_every_ratio("sigmoid(z + 1)", "3/2:5/2:3", dim=2)
    assert unchanged.verdict == Verdict.IDENTIFIABLE and unchanged.details["ratios"].exceptional == ()
    assert unchanged.bites is None and unchanged.witness is None


def test_a_proved_exceptional_ratio_is_the_witness_and_bites_at_order_two():
    """e^z + e^{2z} at c = 2. By hand (test_exp_sum_drops_rank_at_two_and_a_half), x_j·x_k·e^{xᵀMx} times
    φ''(z) − φ(z) = 3e^{2z} at the first component and φ''(2z) − 4φ(2z) = −3e^{2z} at the second: one relation
    ∂ū/∂M_jk-terms + ∂²ū/∂a_j∂a_k-terms per (j, k) ≤ (1, 1), (1, 2), (2, 2) at d = 2 — three, each with its own
    second-order columns, so no combination of them drops every term of order 2: the span's order is 2, the
    dependence bites only in over-fitted cells. And rightly: the 12 columns of order ≤ 1 (ū, ∂ū/∂a_j, ∂ū/∂M_jk
    per component, the exact-fitted expansion) are independent on that probe, float64's scaled smallest
    singular value far above the rank rule's borderline √eps."""
    result = check_every_ratio("exp(z) + exp(2*z)", "3/2:5/2:3", dim=2)
    witness = result.witness_probe
    assert result.witness == "shared M, a2 = 2·a1" and witness is result.probes[-1]
    assert witness.dependent and witness.counts_for_verdict and witness.nullity == 3
    assert str(witness.relation) == "−∂ū/∂M11[1] + ∂²ū/∂a1²[1] − 4·∂ū/∂M11[2] + ∂²ū/∂a1²[2] = 0"
    second = [{k for k in r.keys if len(k[1]) == 2} for r in witness.relations]  # type-1 keys: (c, derivative)
    assert all(second) and all(not (a & b) for i, a in enumerate(second) for b in second[i + 1 :])
    assert result.bites == Bites(2, Cells.OVER_FITTED)
    assert result.to_dict()["bites"] == {"order": 2, "cells": "over-fitted"}
    assert "order 2: bites only in over-fitted cells (|V| ≥ 2) (earliest on probe 'shared M, a2 = 2·a1')" in (
        result.to_text()
    )
    setup = make_condition("exp(z) + exp(2*z)", "type1", 2)
    matrix = setup.matrix(ratio_probe(setup, sp.Integer(2)), 0)
    low = [j for j, key in enumerate(matrix.keys) if len(key[1]) <= 1]
    values = matrix.float64()[:, low]
    s = np.linalg.svd(values / np.linalg.norm(values, axis=0), compute_uv=False)
    assert len(low) == 12 and s[-1] > 1e2 * np.sqrt(np.finfo(float).eps) * s[0]


def test_catalog_cells_carry_the_ratio_scan():
    from identcheck.catalog.activations import catalog_rows

    entries = [("exp(z) + exp(2*z)", ""), ("sigmoid(z + 1)", "")]
    rows = catalog_rows(entries=entries, conditions=["type1"], ratios="3/2:5/2:3", jobs=2)
    found = rows[0]["type1"]
    assert found["verdict"] == "not identifiable" and found["ratios"]["exceptional"][0]["c"] == "2"
    assert rows[1]["type1"]["verdict"] == "identifiable" and rows[1]["type1"]["ratios"]["exceptional"] == []
    out = subprocess.run(
        [sys.executable, "-m", "identcheck", "catalog", "--ratios=1/2:2"], capture_output=True, text=True
    )
    assert out.returncode == 2 and out.stdout == "" and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("text", ["2:1e5000", "2:1e99999999999", "-1e7:-2", "2:12345677/1234567", "2:" + "9" * 60])
def test_oversized_numbers_are_one_line_exit_2(text):
    """Each end is at most 10⁶ in size, its denominator at most 10⁶: larger is refused before any work."""
    out = subprocess.run(
        [sys.executable, "-m", "identcheck", "check", "tanh(z)", f"--ratios={text}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2 and out.stdout == "", out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "--ratios" in out.stderr
    assert "internal error" not in out.stderr


def test_the_largest_allowed_numbers_parse():
    assert parse_ratios("2:1e6") == (sp.Integer(2), sp.Integer(10**6), 17)
    assert parse_ratios("-1000000:-1000001/1000000:3")[0] == sp.Integer(-(10**6))
    with pytest.raises(IdentcheckError, match="ratios"):
        parse_ratios((2, 10**6 + 1))


@pytest.mark.parametrize(
    "phi, lo, hi", [("tanh(z)", sp.Integer(-3), sp.Rational(-5, 4)), ("sin(z) + exp(z)", sp.Rational(3, 2), 4)]
)
def test_grid_verdicts_are_labelled_numeric_unless_proved(phi, lo, hi):
    """The rank rule settles the families' independence at each grid ratio (float64 for tanh, a ball
    proof at some ratios for sin + exp); the statement says proved only where each grid ratio's
    decision carries a proof (RankDecision.proof), counted here by deciding each family again."""
    setup = make_condition(phi, "type1", 2)
    every = scan_ratios(setup, lo, sp.Rational(hi), 5)
    families = maximal_families(setup.term_set)
    proofs = [all(decide_at(f, setup.activation, g.values[0]).proof is not None for f in families) for g in every.grid]
    assert all(g.verdict == Verdict.IDENTIFIABLE for g in every.grid)
    n = len(every.grid)
    if all(proofs):
        assert f"independent at all {n} grid ratios (proved at each)" in every.statement
    else:
        also = f"; proved at {sum(proofs)}" if any(proofs) else ""
        assert f"independent at all {n} grid ratios (numeric evidence{also})" in every.statement


def test_atan_dependence_at_the_grid_is_numeric_evidence():
    """atan: (1 + z²)φ'(z) = 1 ties the two experts of G_1(c) at every c; the rank rule's dependence
    is numeric, so the statement labels it so."""
    setup = make_condition("atan(z)", "type1", 2)
    every = scan_ratios(setup, sp.Rational(3, 2), sp.Integer(3), 3)
    n = len(every.grid)
    assert all(g.verdict == Verdict.NOT_IDENTIFIABLE for g in every.grid)
    assert f"dependent at {n} of {n} grid ratios" in every.statement and "numeric evidence" in every.statement


def test_undecided_grid_ratios_are_reported(monkeypatch):
    """A grid ratio whose rank the ladder leaves undecided is named, never dropped."""
    import dataclasses
    import importlib

    ratio = importlib.import_module("identcheck.scan.ratio")

    real = ratio.decide_at

    def undecided_at_two(family, activation, c, ladder):
        decision = real(family, activation, c, ladder)
        return dataclasses.replace(decision, independent=None, proof=None) if c == 2 else decision

    monkeypatch.setattr(ratio, "decide_at", undecided_at_two)
    setup = make_condition("tanh(z)", "type1", 2)
    every = scan_ratios(setup, sp.Rational(3, 2), sp.Integer(3), 3)  # grid 3/2, 2, 9/4, 5/2, 11/4, 3 …
    assert [g.values[0] for g in every.grid if g.verdict == Verdict.INCONCLUSIVE] == [sp.Integer(2)]
    assert "undecided at 1 (c = 2)" in every.statement
    assert "independent at all" not in every.statement
    n = len(every.grid)
    assert f"dependent at 0 of {n} grid ratios" in every.statement


def test_a_condition_without_the_shared_probe_is_not_scanned():
    setup = make_condition("exp(z) + exp(2*z)", "type1", 2)
    cls = type(setup)
    bare = cls.__new__(cls)
    bare.__dict__.update(setup.__dict__)
    bare.probes = lambda: [p for p in setup.probes() if not p.name.startswith("shared M, random a")]
    every = scan_ratios(bare, sp.Rational(3, 2), sp.Integer(4), 9)
    assert every.why_not is not None and "needs the probe" in every.why_not
    assert every.grid == () and every.exceptional == () and "not scanned" in every.statement
