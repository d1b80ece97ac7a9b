"""Model-level verdicts of known cases, as data, run by one driver that prints a reproduction line.

Each case: (name, atom builder, max_order, max_cell, verdict, {m: r̄(m)}, {m: exponents}, proved).
The values are the literature's (Ho & Nguyen, arXiv 1609.02655; arXiv 2305.03288; DeepSeekMoE's
D2, arXiv 2505.10860) and the hand argument for strongly identifiable atoms (½ Σ p_i ‖Δθ_i‖² = 0).
"""

import time

import pytest

from identcheck.errors import IdentcheckError
from identcheck.evidence import Evidence, Verdict
from identcheck.model import check_atom
from identcheck.model.examples import (
    constant_gate_linear_expert,
    location_scale_gaussian,
    mha_linear_expert,
    softmax_gaussian_moe,
)
from identcheck.model.relation import EULER

ID, NOT = Verdict.IDENTIFIABLE, Verdict.NOT_IDENTIFIABLE

CASES = [
    ("location-scale", location_scale_gaussian, 4, 2, ID, {2: 4}, {2: {"mu": 4, "nu": 2}}, True),
    (
        "routed-linear",
        lambda: softmax_gaussian_moe("linear"),
        4,
        2,
        ID,
        {2: 4},
        {2: {"beta1": 4, "eta1": 2, "eta0": 4, "nu": 2}},
        True,
    ),
    ("shared-linear", constant_gate_linear_expert, 4, 2, ID, {2: 4}, {2: {"k1": 2, "k0": 4, "tau": 2}}, True),
    (
        "tanh",
        lambda: softmax_gaussian_moe("tanh"),
        2,
        4,
        ID,
        {2: 2, 3: 2, 4: 2},
        {m: {"beta1": 2, "eta1": 2, "nu": 2} for m in (2, 3, 4)},
        True,
    ),
    ("tanh-d2", lambda: softmax_gaussian_moe("tanh", dim=2), 2, 3, ID, {2: 2, 3: 2}, None, True),
    ("mha", mha_linear_expert, 5, 2, NOT, {1: None, 2: None}, None, True),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_known_case(case):
    name, build, order, cell, verdict, rbars, exponents, proved = case
    repro = f"repro: check_atom(examples.{build.__name__ if hasattr(build, '__name__') else name}(), {order}, {cell})"
    start = time.monotonic()
    result = check_atom(build(), max_order=order, max_cell=cell)
    assert time.monotonic() - start < 60, repro
    assert result.verdict == verdict, (repro, result.summary)
    assert (result.evidence == Evidence.PROOF) == proved, (repro, result.summary)
    assert {c.m: c.rbar for c in result.cells} == rbars, repro
    if exponents is not None:
        assert {c.m: c.exponents for c in result.cells} == exponents, repro


def test_mha_bites_in_exact_fitted_cells_through_the_pde():
    result = check_atom(mha_linear_expert(), max_order=4, max_cell=2)
    assert result.exact_fitted.identifiable is False
    (relation,) = result.exact_fitted.breaking
    assert relation.family == EULER and relation.proved
    assert "bites in exact-fitted cells" in result.summary
    assert all(d.proved and d.solution for c in result.cells for d in c.decisions)


def test_the_witness_sits_one_order_below_rbar():
    result = check_atom(location_scale_gaussian(), max_order=4, max_cell=2)
    cell = result.cell(2)
    assert cell.witness.order == 3 and cell.proved


def test_to_dict_is_plain_data():
    import json

    data = check_atom(location_scale_gaussian(), max_order=4, max_cell=2).to_dict()
    assert json.loads(json.dumps(data))["cells"][0]["rbar"] == 4


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_order": 9}, "max_order=9: must be from 1 to 8"),
        ({"max_cell": 5}, "max_cell=5: must be from 1 to 4"),
        ({"max_order": 0}, "max_order=0: must be from 1 to 8"),
    ],
)
def test_out_of_range_is_one_line(kwargs, message):
    with pytest.raises(IdentcheckError) as error:
        check_atom(location_scale_gaussian(), **kwargs)
    assert str(error.value) == message and "\n" not in str(error.value)


@pytest.mark.slow
def test_routed_linear_three_atoms():
    """r̄(3) = 6 for the softmax-gated linear expert: the exact solution at r = 5 is a proof, the
    absence at r = 6 evidence (labelled so)."""
    result = check_atom(softmax_gaussian_moe("linear"), max_order=6, max_cell=3)
    cell = result.cell(3)
    assert cell.rbar == 6 and not cell.proved and cell.witness.order == 5
    assert result.evidence == Evidence.NUMERIC and result.verdict == ID


def test_the_text_report_names_relations_witness_and_exponents():
    from identcheck.model import verdict_text

    text = verdict_text(check_atom(location_scale_gaussian(), max_order=4, max_cell=2))
    assert "d2F/dmu2 = (2)·dF/dnu   [every θ; proved; heat type]" in text
    assert "r = 4: only the trivial solution (proof: Gröbner bases and real roots; forced mu, nu)" in text
    assert "witness at r = 3:" in text and "exponents: mu: 4, nu: 2" in text
