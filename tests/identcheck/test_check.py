"""The API: validation at the boundary, the verdict logic, the result's shape."""

import json
from types import SimpleNamespace

import flint
import numpy as np
import pytest

from identcheck import IdentcheckError, check, default_probes, parse_activation, type1_term_set
from identcheck.conditions.type1 import Type1
from identcheck.conditions.type2 import Type2
from identcheck.rank.rule import decide_rank
from identcheck.terms.compile import arb_precision, compile_terms


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"condition": "type3"}, "condition"),
        ({"dim": 0}, "dim"),
        ({"seed": -1}, "seed"),
        ({"points_per_term": 1}, "points_per_term"),
        ({"ladder": (30,)}, "ladder"),
        ({"ladder": (60, 30)}, "ladder"),
    ],
)
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(IdentcheckError, match=match):
        check("sigmoid(z + 1)", **kwargs)


def test_identifiable_result_says_it_is_evidence_not_proof():
    result = check("sigmoid(z + 1)")
    assert result.verdict == "identifiable" and result.evidence == "numeric"
    assert "not a proof" in result.summary
    assert all(p.dependent is False for p in result.probes)
    assert result.n_terms == 18 and result.n_derivatives == 21


def test_identity_witness_is_the_pde_5():
    result = check("z")
    witness = next(p for p in result.probes if p.name == result.witness)
    first = witness.relations[0]
    assert first.family == "Euler/homogeneity" and first.proved
    labels = dict(first.terms)
    a = [float(v) for v in witness.components[0].a]
    assert labels["ū"] == -1.0
    assert labels["∂ū/∂a1"] == pytest.approx(a[0]) and labels["∂ū/∂a2"] == pytest.approx(a[1])


def test_include_zero_reports_the_universal_relation_without_changing_the_verdict():
    result = check("sigmoid(z + 1)", include_zero=True)
    zero = next(p for p in result.probes if p.name == "a = 0")
    assert zero.dependent is True and not zero.counts_for_verdict
    assert zero.relations[0].family == "a = 0"
    assert result.verdict == "identifiable"


def test_to_dict_is_json_and_has_the_documented_fields():
    data = json.loads(json.dumps(check("z").to_dict()))
    for key in ("phi", "condition", "dim", "verdict", "evidence", "merges", "probes", "seconds"):
        assert key in data
    probe = data["probes"][0]
    for key in ("name", "n_terms", "smallest_singular_value", "precision_digits", "dependent", "relation", "pde"):
        assert key in probe
    assert probe["relation"][0][0] == "∂ū/∂a1"


def test_other_dimensions_run():
    assert check("z", dim=1).verdict == "not identifiable"
    assert check("sigmoid(z + 1)", dim=3).verdict == "identifiable"


@pytest.mark.parametrize("phi", ["z", "sigmoid(z + 1)", "tanh(z)"])
def test_rank_decision_invariant_to_term_order_and_scaling_on_real_probes(phi):
    ts = type1_term_set(2)
    compiled = compile_terms(ts)
    act = parse_activation(phi)
    rng = np.random.default_rng(0)
    for probe in default_probes(2)[:7]:
        thetas = [list(ts.numeric_params(c.M, c.a).values()) for c in probe.components]
        points = rng.uniform(-1, 1, (4 * len(thetas) * 18, 2))
        matrix = compiled.float64(points, thetas, act)
        provider = lambda d: compiled.arb(points, thetas, act, d)  # noqa: E731
        ref = decide_rank(matrix, provider)
        order = rng.permutation(matrix.shape[1])
        scale = 2.0 ** rng.integers(-10, 10, matrix.shape[1])

        def permuted(d):
            m = provider(d)
            with arb_precision(d):  # exact: scales are powers of two
                return flint.arb_mat(
                    [[m[i, j] * flint.arb(float(scale[k])) for k, j in enumerate(order)] for i in range(m.nrows())]
                )

        got = decide_rank(matrix[:, order] * scale, permuted)
        assert (got.independent, got.nullity) == (ref.independent, ref.nullity), probe.name


# --- probes outside the paper's assumptions (docs/method.md §2) --------------------------------

from identcheck.check import conclude, verdict_of  # noqa: E402
from identcheck.cli.main import main  # noqa: E402
from identcheck.results import ProbeResult  # noqa: E402


def _probe(name, dependent, counts=True, admissible=True):
    tags = ("A.1", "A.2", "A.3", "A.4", "A.5") if admissible else ("A.1", "A.2", "A.3", "A.5")
    return ProbeResult(
        name=name,
        components=(),
        n_terms=4,
        n_points=16,
        smallest_singular_value=1e-3 if not dependent else 1e-40,
        precision_digits=16,
        dependent=dependent,
        nullity=int(dependent),
        relations=(),
        counts_for_verdict=counts,
        history=(),
        assumptions=tags,
        admissible=admissible,
    )


def test_conclude_leaves_an_inadmissible_probe_out_and_names_it():
    ok = _probe("random head", False)
    uniform = _probe("all M = 0 (uniform gating)", True, counts=False, admissible=False)
    verdict, _, summary, witness = conclude([ok, uniform], (30, 60))
    assert verdict == "identifiable" and witness is None
    assert "independent on all 1 probes" in summary
    assert "'all M = 0 (uniform gating)' (violates A.4)" in summary
    counted = _probe("all M = 0 (uniform gating)", True, counts=True, admissible=False)  # include_inadmissible
    verdict, _, summary, witness = conclude([ok, counted], (30, 60))
    assert verdict == "not identifiable" and witness == "all M = 0 (uniform gating)"
    assert "reported apart" not in summary


def test_json_carries_the_assumption_tags():
    data = check("z", condition="mha", include_inadmissible=True).to_dict()
    assert data["include_inadmissible"] is True
    for probe in data["probes"]:
        assert probe["assumptions"] == ["A.1", "A.2", "A.3", "A.4", "A.5"] and probe["admissible"] is True
    with pytest.raises(IdentcheckError, match="include_inadmissible"):
        check("z", condition="mha", include_inadmissible="yes")


def test_cli_include_inadmissible_equals_the_api(capsys):
    assert main(["check", "--condition", "mha", "--include-inadmissible", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)[0]
    api = check("z", condition="mha", include_inadmissible=True).to_dict()
    out.pop("seconds"), api.pop("seconds")
    assert out == api


def test_an_option_no_condition_takes_is_refused_by_name():
    """check() passes a condition's own options through **options: a misspelt one must not be
    silently ignored."""
    with pytest.raises(IdentcheckError, match=r"^n_gate=3: no condition takes this option$"):
        check("z", condition="type2", n_gate=3)
    with pytest.raises(TypeError):
        check("z", "type1", 2, None, 0)  # seed and the rest are keyword-only


@pytest.mark.parametrize(
    "outcomes, verdict",
    [
        ([False, None, True], "not identifiable"),
        ([None, True], "not identifiable"),
        ([False, None], "inconclusive"),
        ([False, False], "identifiable"),
    ],
)
def test_one_dependence_decides_before_an_undecided_probe(outcomes, verdict):
    """The rule shared by check and scan: a dependent counted probe is a witness even when another
    probe could not be settled (dependence is one-sided evidence)."""
    assert verdict_of(outcomes) == verdict
    probes = [
        SimpleNamespace(
            name=f"p{i}",
            dependent=o,
            counts_for_verdict=True,
            admissible=True,
            relation=None,
            nullity=int(bool(o)),
            certificate=None,
            rank_proof=None,
        )
        for i, o in enumerate(outcomes)
    ]
    assert conclude(probes, (30, 60))[0] == verdict


def test_a_matrix_that_says_unsettled_leaves_its_probe_undecided():
    """The matrix's own veto (columns below the precision, an undecided φ-free reduction) wins over
    a settled rank decision — in check's probe loop and in the core the scan shares."""
    from identcheck.check import decide_probe, make_condition, run

    condition = make_condition("sigmoid(z + 1)")
    real = condition.matrix

    def matrix(probe, index):
        m = real(probe, index)
        m.unsettled = "reduction undecided (test)"
        gram = m.gram

        def vetoed_gram(digits):  # a rung's own resolution note must not lift the veto
            raw = gram(digits)
            m.unsettled = "reduction undecided (test)"
            return raw

        m.gram = vetoed_gram
        return m

    condition.matrix = matrix
    _, decision, dependent = decide_probe(condition, condition.probes()[0], 0)
    assert decision.independent is True and dependent is None
    result = run(condition)
    assert result.verdict == "inconclusive" and all(p.dependent is None for p in result.probes)
    assert all(p.unsettled == "reduction undecided (test)" for p in result.probes)
    # four of these probes have their full rank proved when nothing vetoes them; vetoed, the
    # proof is not shown beside "undecided"
    assert sum(p.rank_proof is not None for p in run(make_condition("sigmoid(z + 1)")).probes) == 4
    assert all(p.rank_proof is None for p in result.probes) and "full rank proved" not in result.to_text()


# --- the summary counts the probes proved full rank --------------------------------------------


def test_identifiable_summary_counts_the_probes_proved_full_rank():
    """'numerical evidence' must not be the whole story above probes marked 'full rank proved'."""
    import dataclasses

    proof = object()  # any rank proof: the summary only counts them
    plain, proved = _probe("random single", False), dataclasses.replace(_probe("shared M", False), rank_proof=proof)
    _, _, summary, _ = conclude([plain, plain, proved], (30, 60))
    assert summary.startswith("independent on all 3 probes, 1 of them proved full rank at their parameter values")
    assert "the other 2 numerical evidence" in summary
    _, _, summary, _ = conclude([proved, proved], (30, 60))
    assert "all of them proved full rank" in summary and "numerical evidence" not in summary
    _, _, summary, _ = conclude([plain], (30, 60))
    assert "proved" not in summary and "numerical evidence at these parameter values" in summary


def test_check_counts_its_proved_probes_in_the_summary():
    result = check("sigmoid(z + 1)")
    proved = sum(p.rank_proof is not None for p in result.probes if p.counts_for_verdict)
    assert proved > 0  # the shared-M probes are settled by a proof of full rank
    assert f", {proved} of them proved full rank" in result.summary


RATIONAL_PHI = "(z + 1)/(z**2 + 2)"  # no family explains its relations; their coefficients are rational


def test_the_witness_relations_are_proved_without_certify_and_only_the_witness():
    result = check(RATIONAL_PHI)
    assert str(result.evidence) == "proof" and not result.certified
    witness = result.witness_probe
    assert witness.certificate is None and all(r.proved and r.family is None for r in witness.relations)
    others = [r for p in result.probes if p.dependent and p is not witness for r in p.relations]
    assert others and not any(r.proved for r in others)  # the other probes are not proved: the witness only


def test_no_budget_left_leaves_the_witness_on_numeric_evidence(monkeypatch):
    import importlib

    driver = importlib.import_module("identcheck.check")  # the module (the package's `check` is the function)
    monkeypatch.setattr(driver, "WITNESS_PROOF_SECONDS", float("inf"))  # the pool never has that much left
    result = check(RATIONAL_PHI)
    assert str(result.evidence) == "numeric"
    assert all(not r.proved and "rational reading, not proved" in r.tag for r in result.witness_probe.relations)


@pytest.mark.parametrize(
    "phi, condition, expected",
    [
        ("z", "type1", 9),  # Euler and zero-second-derivative relations on every probe, zero columns too
        ("tanh(z)", "type1", 1),  # the sign pair of 'shared M, a2 = -a1'
        ("tanh(z)", "type2", 1),  # the channel symmetry
        ("sin(z)", "type1", 9),  # heat type; two probes through the ladder on their other columns
    ],
)
def test_dependences_settled_by_proved_relations_agree_with_the_ladder(phi, condition, expected, monkeypatch):
    """The rank rule's step 2b against the second method, the ladder alone (the condition's
    ``relations_first`` switched off): the same outcome, nullity and relations on every probe; the
    probes 2b settled say so and carry the float64 entry only."""
    first = check(phi, condition=condition)
    monkeypatch.setattr({"type1": Type1, "type2": Type2}[condition], "relations_first", False)
    ladder = check(phi, condition=condition)
    assert first.verdict == ladder.verdict and first.witness == ladder.witness
    settled = [p for p in first.probes if (p.settled_by or "").startswith("proved relations")]
    assert len(settled) == expected
    assert not any((p.settled_by or "").startswith("proved relations") for p in ladder.probes)
    if phi == "sin(z)":  # the path where the ladder runs on the columns the relations leave
        assert any(p.settled_by == "proved relations, other columns precision ladder" for p in settled)
    for new, old in zip(first.probes, ladder.probes):
        assert (new.dependent, new.nullity) == (old.dependent, old.nullity), new.name
        assert [(r.exact, r.family, r.proved, r.keys) for r in new.relations] == [
            (r.exact, r.family, r.proved, r.keys) for r in old.relations
        ], new.name
        if new in settled and not new.settled_by.endswith("precision ladder"):
            assert len(new.history) == 1 and new.precision_digits in (16, 60)
            assert old.settled_by == "precision ladder" and len(old.history) >= 3
            assert new.to_dict()["settled_by"] == new.settled_by
