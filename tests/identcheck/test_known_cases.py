"""Known cases as data, one driver. A failure prints a one-line reproduction."""

import pytest

from identcheck import check

# (phi, params, expected verdict, family of the witness relation or None, evidence)
KNOWN = [
    ("z", {}, "not identifiable", "Euler/homogeneity", "proof"),
    ("z + 1", {}, "not identifiable", "zero second derivative", "proof"),
    ("z**2", {}, "not identifiable", "Euler/homogeneity", "proof"),
    ("exp(z)", {}, "not identifiable", "heat type", "proof"),
    ("sin(z)", {}, "not identifiable", "heat type", "proof"),
    ("erf(z)", {}, "not identifiable", "Gaussian type", "proof"),
    ("tanh(z)", {}, "not identifiable", "symmetry", "proof"),
    ("sigmoid(z)", {}, "not identifiable", "symmetry", "proof"),
    ("sigmoid(z + 1)", {}, "identifiable", None, "numeric"),
    ("sigmoid(z + b)", {"b": -1}, "identifiable", None, "numeric"),
    ("sigmoid(z + b)", {"b": "1/2"}, "identifiable", None, "numeric"),
]


@pytest.mark.parametrize("phi, params, verdict, family, evidence", KNOWN)
def test_known_case(phi, params, verdict, family, evidence):
    params = {k: (v if not isinstance(v, str) else __import__("fractions").Fraction(v)) for k, v in params.items()}
    result = check(phi, params=params)
    repro = f"identcheck check {phi!r}" + "".join(f" --param {k}={v}" for k, v in params.items()) + " --json"
    assert result.verdict == verdict, repro
    assert result.evidence == evidence, repro
    if family is None:
        assert result.witness is None, repro
    else:
        witness = next(p for p in result.probes if p.name == result.witness)
        assert witness.relation is not None and witness.relations[0].family == family, repro
