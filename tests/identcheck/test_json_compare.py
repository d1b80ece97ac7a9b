"""The golden comparison: what another machine may change passes, what a change to the JSON changes fails."""

import copy
import json
from pathlib import Path

import pytest

from .json_compare import assert_json_matches, assert_text_matches, floats_close

GOLDEN = Path(__file__).parent / "golden" / "json"


def golden(name):
    return json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))


def probe(data, name):
    return next(p for p in data["probes"] if p["name"] == name)


def test_floats_close_is_absolute_near_zero_and_relative_above():
    assert floats_close(5.16095375620e-06, 5.16095375610e-06)  # seen between two machines
    assert floats_close(1e-16, 4e-15)  # rounding-level singular values of a dependence
    assert not floats_close(1e-3, 1e-3 * (1 + 1e-8))
    assert not floats_close(6.5e-8, 6.6e-8)
    assert not floats_close(1.0, float("nan")) and floats_close(float("inf"), float("inf"))


# --- what another BLAS may change: green -------------------------------------------------------


def test_a_singular_value_moved_by_rounding_passes():
    data = golden("tanh_type1")
    fresh = copy.deepcopy(data)
    for p in fresh["probes"]:
        if p["smallest_singular_value"] > 1e-12:  # float64 margins (collapsed values at 60 digits are pinned apart)
            p["smallest_singular_value"] += 3e-14
    assert_json_matches(data, fresh)


def _with_a_float_relation():
    """mha's golden with one relation made a float one (exact null), as for an irrational null vector."""
    data = golden("mha")
    relation = next(r for r in probe(data, "shared M, random a")["relations"] if r["family"] == "polynomial")
    relation["exact"], relation["proved"], relation["family"], relation["hypothesis"] = None, False, None, None
    return data, copy.deepcopy(data), relation


def test_float_relation_coefficients_within_null_vector_accuracy_pass():
    data, fresh, _ = _with_a_float_relation()
    relation = next(r for r in probe(fresh, "shared M, random a")["relations"] if r["exact"] is None)
    relation["terms"] = [[label, c * (1 + 1e-8)] for label, c in relation["terms"]]
    relation["text"] = "printed at six digits"
    assert_json_matches(data, fresh)


def test_another_minor_for_an_interval_proof_passes():
    data = golden("sin_type2_d1_certify")
    fresh = copy.deepcopy(data)
    records = [
        p["certificate"]["detail"] for p in fresh["probes"] if (p["certificate"] or {}).get("kind") == "interval"
    ]
    assert records
    for record in records:
        record["rows"] = list(reversed(record["rows"]))
        record["sigma_min_lower_bound"] *= 0.5
    assert_json_matches(data, fresh)


# --- a change to the JSON: red -----------------------------------------------------------------


def _mutations():
    def verdict(d):
        d["verdict"] = "identifiable"

    def renamed(d):
        d["probes"][0]["margin"] = d["probes"][0].pop("smallest_singular_value")

    def new_field(d):
        d["scope"] = "x"

    def margin(d):
        d["probes"][0]["precision_history"][0]["smallest_singular_value"] = 1e-9  # a dependence's 0.0 in golden

    def digits(d):
        d["probes"][0]["precision_digits"] = 30

    def rational(d):
        probe(d, "random single")["relations"][0]["terms"][1][1] = -0.5

    def family(d):
        probe(d, "random single")["relations"][0]["family"] = "heat type"

    def lost_relation(d):
        probe(d, "shared M, random a")["relations"].pop()

    def read_relation(d):  # a relation read from the null space (here: from polynomials in x), not a template's
        relations = probe(d, "shared M, random a")["relations"]
        read = next(r for r in relations if r["family"] == "polynomial")
        read["exact"][0][1] = "7/3"

    def relations_swapped(d):
        relations = probe(d, "shared M, random a")["relations"]
        relations[-1], relations[-2] = relations[-2], relations[-1]

    def merge(d):
        d["merges"][0]["factor"] = "2"

    return [
        verdict,
        renamed,
        new_field,
        margin,
        digits,
        rational,
        family,
        lost_relation,
        read_relation,
        relations_swapped,
        merge,
    ]


@pytest.mark.parametrize("mutate", _mutations(), ids=lambda f: f.__name__)
def test_a_planted_change_turns_the_comparison_red(mutate):
    data = golden("mha")
    fresh = copy.deepcopy(data)
    mutate(fresh)
    with pytest.raises(AssertionError):
        assert_json_matches(data, fresh)


def test_a_moved_margin_is_red():
    data = golden("tanh_type1")
    fresh = copy.deepcopy(data)
    p = next(p for p in fresh["probes"] if p["smallest_singular_value"] > 1e-6)
    p["smallest_singular_value"] *= 1 + 1e-6
    with pytest.raises(AssertionError):
        assert_json_matches(data, fresh)


def test_an_unproved_interval_record_is_red():
    data = golden("sin_type2_d1_certify")
    fresh = copy.deepcopy(data)
    record = next(
        p["certificate"]["detail"] for p in fresh["probes"] if (p["certificate"] or {}).get("kind") == "interval"
    )
    record["proved"] = False
    with pytest.raises(AssertionError):
        assert_json_matches(data, fresh)


def test_report_text_margins_within_one_printed_unit():
    line = "    random pair                      36  5.54e-05       16  independent"
    assert_text_matches(line, line.replace("5.54e-05", "5.55e-05"))
    for changed in (
        line.replace("5.54e-05", "5.56e-05"),
        line.replace("16", "30"),
        line.replace("5.54e-05", "5.54e-06"),
    ):
        with pytest.raises(AssertionError):
            assert_text_matches(line, changed)


def test_a_float_relation_moved_beyond_null_vector_accuracy_is_red():
    data, fresh, _ = _with_a_float_relation()
    relation = next(r for r in probe(fresh, "shared M, random a")["relations"] if r["exact"] is None)
    relation["terms"][0][1] += 1e-4
    with pytest.raises(AssertionError):
        assert_json_matches(data, fresh)


def test_tiny_values_stay_tiny_with_their_sign():
    assert floats_close(7.25101820452e-73, 2.54e-73) and floats_close(0.0, 3e-17)
    for golden, fresh in [(1e-38, -5e-13), (0.0, 1e-10), (1e-20, 2e-12)]:
        assert not floats_close(golden, fresh), (golden, fresh)


def test_a_collapsed_singular_value_must_collapse_again_at_its_precision():
    data = golden("z_type1-full_d1")  # its dependences collapse on the ladder (type1-full proves no relation first)
    collapsed = [
        (i, j)
        for i, p in enumerate(data["probes"])
        for j, h in enumerate(p["precision_history"])
        if h["digits"] > 16 and h["smallest_singular_value"] < 10.0 ** -h["digits"]
    ]
    assert collapsed
    i, j = collapsed[-1]
    fresh = copy.deepcopy(data)
    fresh["probes"][i]["precision_history"][j]["smallest_singular_value"] = 1e-71 * 10.0 ** (
        60 - data["probes"][i]["precision_history"][j]["digits"]
    )
    assert_json_matches(data, fresh)  # another kernel's collapsed value: still below 10^-p
    for planted in (10.0 ** -(data["probes"][i]["precision_history"][j]["digits"] - 1), -1e-80):
        fresh["probes"][i]["precision_history"][j]["smallest_singular_value"] = planted
        with pytest.raises(AssertionError):
            assert_json_matches(data, fresh)
