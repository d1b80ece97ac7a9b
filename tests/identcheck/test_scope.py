"""Every result says what its verdict implies for the model (identcheck.scope)."""

import pytest

from identcheck import check
from identcheck.conditions import CONDITIONS
from identcheck.scope import SETTING_I, SETTING_II, Scope

from .shared_checks import checked


@pytest.mark.parametrize("name", list(CONDITIONS))
def test_every_condition_declares_a_statement_per_verdict(name):
    scope = CONDITIONS[name].scope
    assert isinstance(scope, Scope)
    texts = {v: scope.statement(v).implies for v in ("identifiable", "not identifiable", "inconclusive")}
    assert len(set(texts.values())) == 3 and all(texts.values())
    with pytest.raises(KeyError):
        scope.statement("maybe")


def test_setting_one_identifiable_is_limited_to_the_measure_loss_beyond_k_star():
    text = SETTING_I.statement("identifiable").implies
    assert "Theorem 2" in text and "K > K*" in text and "measure-level" in text and "equal" in text
    assert "measured, not proved" in text  # the repair is not a theorem
    setting_two = SETTING_II.statement("identifiable").implies
    assert "measure-level" not in setting_two and "reduced" in setting_two and "reading" in setting_two


def test_not_identifiable_says_the_sufficient_condition_fails_not_more():
    for scope in (SETTING_I, SETTING_II):
        text = scope.statement("not identifiable").implies
        assert "sufficient condition fails" in text and "locally identifiable" in text and "not implied" in text


@pytest.mark.parametrize(
    "phi, condition, verdict, theorem",
    [
        ("z", "type1", "not identifiable", "Theorem 2"),
        ("tanh(z)", "type1", "not identifiable", "Theorem 2"),
        (None, "mha", "not identifiable", "Theorem 1"),
        ("sin(z)", "type2", "not identifiable", "Theorem 3"),
    ],
)
def test_the_result_carries_the_statement_of_its_verdict(phi, condition, verdict, theorem):
    dim = 1 if condition == "type2" else 2
    result = checked(phi, condition, dim, condition == "type2")
    assert result.verdict == verdict
    expected = CONDITIONS[condition].scope.statement(verdict)
    assert result.scope == expected and result.scope.theorem == theorem
    data = result.to_dict()
    assert data["scope"] == expected.to_dict() and data["schema"] == "identcheck.check/9"
    assert f"  means: {expected.implies}" in result.to_text().splitlines()
    assert expected.implies in result._repr_markdown_()


def test_an_identifiable_type1_result_states_theorem_2_with_its_limit():
    result = check("sigmoid(z + 1)", dim=1)
    assert result.verdict == "identifiable"
    assert result.scope == SETTING_I.statement("identifiable")
