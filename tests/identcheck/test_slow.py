"""Long checks, excluded by default. Run with: python3 -m pytest -m slow"""

import pytest

from identcheck import check

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("dim", [3, 4])
def test_reference_verdicts_in_higher_dimension(dim):
    assert check("z", dim=dim).verdict == "not identifiable"
    assert check("sigmoid(z + 1)", dim=dim).verdict == "identifiable"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_reference_verdicts_under_other_seeds(seed):
    assert check("z", seed=seed).verdict == "not identifiable"
    result = check("sigmoid(z + 1)", seed=seed, include_zero=True)
    assert result.verdict == "identifiable"
