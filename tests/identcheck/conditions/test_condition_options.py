"""A condition's options are recorded in its result (check/3's ``options``) and read back strictly for
replay: a plug-in that declares an option but keeps it elsewhere is told in one line what to do, and a
result's d and seed must be integers."""

import pytest

from identcheck import CONDITIONS, check
from identcheck.conditions.type1 import Type1
from identcheck.errors import IdentcheckError


class KeepsItElsewhere(Type1):
    name = "keeps-it-elsewhere"
    options = Type1.options | {"extra": 3}

    def __init__(self, activation, dim=2, seed=0, points_per_term=4, ladder=None, extra=3, **options):
        kwargs = {} if ladder is None else {"ladder": ladder}
        super().__init__(activation, dim, seed, points_per_term, **kwargs, **options)
        self._extra = extra


@pytest.fixture
def registered():
    CONDITIONS[KeepsItElsewhere.name] = KeepsItElsewhere
    yield KeepsItElsewhere.name
    del CONDITIONS[KeepsItElsewhere.name]


def test_an_option_kept_under_another_name_is_one_line_naming_it(registered):
    with pytest.raises(IdentcheckError, match=r"declares option 'extra' but keeps no attribute of that name") as e:
        check("tanh(z)", condition=registered, dim=1)
    assert "\n" not in str(e.value)


def test_a_recorded_dim_or_seed_that_is_not_an_integer_is_refused():
    result = check("tanh(z)", dim=1).to_dict()
    assert Type1.from_json(result).dim == 1
    for bad in ({"dim": True}, {"seed": 2.5}, {"dim": "1"}):
        with pytest.raises(ValueError, match="must be integers"):
            Type1.from_json(result | bad)
