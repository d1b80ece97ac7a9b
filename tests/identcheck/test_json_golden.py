"""The JSON of check() stays what it was (field for field, value for value).

The files in golden/json were first written by the code *before* the typed results, the one
check driver, the structural keys and the one merge rule, so they pin that
those changes left every field as it was. Only ``seconds`` is left out. Values are compared by
kind (:mod:`.json_compare`): exactly for verdicts, counts, rationals, digits and labels; floats
with a tolerance that fits a float64 SVD on another BLAS or CPU kernel; relations
one by one (they are canonical). The files store floats
at 12 significant digits. Regenerate, after a change that is meant to alter the JSON, with
``pytest tests/identcheck/test_json_golden.py --regen-golden [-m slow]``.
"""

import json
from pathlib import Path

import pytest

from identcheck.replay import replay

from .json_compare import assert_json_matches
from .shared_checks import checked

GOLDEN = Path(__file__).parent / "golden" / "json"

#: (file name, phi, condition, dim, certify): every condition, certificates of both kinds of proof.
CASES = [
    ("z_type1_certify", "z", "type1", 2, True),
    ("tanh_type1", "tanh(z)", "type1", 2, False),
    ("mha", None, "mha", 2, False),
    ("sin_type2_d1_certify", "sin(z)", "type2", 1, True),
    ("z_type1-full_d1", "z", "type1-full", 1, False),
]
#: type-2 at d = 2 and another type-1 verdict: slow (≈ 7 s)
SLOW_CASES = [
    ("sigmoid_bias_type1", "sigmoid(z + 1)", "type1", 2, False),
    ("tanh_type2", "tanh(z)", "type2", 2, False),
]


def _normalised(value):
    if isinstance(value, float):
        return float(f"{value:.12g}")
    if isinstance(value, dict):
        return {k: _normalised(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_normalised(v) for v in value]
    return value


def _compare(name, phi, condition, dim, certify, regen):
    data = checked(phi, condition, dim, certify).to_dict()
    text = json.dumps(_normalised(data), ensure_ascii=False, indent=1) + "\n"
    path = GOLDEN / f"{name}.json"
    if regen:
        path.write_text(text, encoding="utf-8")
    fresh = json.loads(json.dumps(data, ensure_ascii=False))  # tuples as lists, as a reader sees them
    assert_json_matches(json.loads(path.read_text(encoding="utf-8")), fresh)
    for probe in fresh["probes"]:  # an interval certificate is compared by its validity: replayed
        if (probe["certificate"] or {}).get("kind") == "interval":
            assert replay(fresh, probe["name"])["proved"], probe["name"]


@pytest.mark.parametrize("name, phi, condition, dim, certify", CASES)
def test_json_matches_golden(name, phi, condition, dim, certify, regen_golden):
    _compare(name, phi, condition, dim, certify, regen_golden)


@pytest.mark.slow
@pytest.mark.parametrize("name, phi, condition, dim, certify", SLOW_CASES)
def test_json_matches_golden_at_d2(name, phi, condition, dim, certify, regen_golden):
    _compare(name, phi, condition, dim, certify, regen_golden)
