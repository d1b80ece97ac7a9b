"""The driver and its conditions: registry, options, typed results, structural type-2 families."""

import dataclasses
import io
import json
import re

import flint
import numpy as np
import pytest
import sympy as sp

from identcheck import CONDITIONS, Certificate, CertificateKind, IdentcheckError, Verdict, check, parse_activation
from identcheck.catalog.activations import catalog_rows
from identcheck.check import make_condition
from identcheck.conditions.type1 import Type1
from identcheck.families.type2 import templates
from identcheck.parse.activation import parse_param
from identcheck.rank.certificates import IntervalDetail
from identcheck.rank.interval import IntervalCertificate
from identcheck.terms.probes import head_probes
from identcheck.terms.type2 import type2_term_set
from identcheck.util.progress import StatusLine


def test_the_registry_names_every_condition():
    assert list(CONDITIONS) == [
        "type1",
        "type2",
        "mha",
        "type1-full",
        "deepseek-shared",
        "deepseek-routed",
        "deepseek-weak",
    ]
    assert all(cls.name == name for name, cls in CONDITIONS.items())


def test_a_registered_condition_runs_through_check(monkeypatch):
    """A new condition is a class and a registry entry: check() needs nothing else."""

    class FirstTwoProbes(Type1):
        name = "first-two"

        def probes(self):
            return super().probes()[:2]

    monkeypatch.setitem(CONDITIONS, "first-two", FirstTwoProbes)
    result = check("z", condition="first-two")
    assert result.condition == "first-two" and [p.name for p in result.probes] == ["random single", "M = 0"]
    assert result.verdict == "not identifiable"


@pytest.mark.parametrize(
    "condition, option, match",
    [
        ("type2", {"include_zero": True}, "include_zero=True: applies to type1 and mha only"),
        ("type1", {"n_gates": 3}, "n_gates=3: applies to type2 only"),
        ("mha", {"mixed_products": True}, "mixed_products=True: applies to type2 only"),
    ],
)
def test_an_option_of_another_condition_is_refused(condition, option, match):
    with pytest.raises(IdentcheckError, match=match):
        check("z", condition=condition, **option)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: check("tanh(z)", condition="mha"), r"phi='tanh\(z\)': condition 'mha' takes no phi"),
        (
            lambda: check(None, condition="mha", params={"b": 1}),
            r"params=\{'b': 1\}: condition 'mha' takes no phi and no constants",
        ),
        (
            lambda: parse_activation("sigmoid(z)", {"b": "1e-3"}),  # the value as given (was VALUE)
            r"params=\{'b': 1e-3\}: phi='sigmoid\(z\)' does not use 'b'",
        ),
        (lambda: check("sigmoid(z + b)", params={"b": 1, "c": 2}), r"does not use 'c'"),
        (lambda: check("z", condition="type2", include_zero=True), r"include_zero=True: applies to type1 and mha only"),
    ],
)
def test_the_library_refuses_what_it_would_ignore(call, match):
    with pytest.raises(IdentcheckError, match=match):
        call()


def test_mha_replays_from_its_own_json_expression():
    result = check(None, condition="mha")
    assert CONDITIONS["mha"].from_json(result.to_dict()).activation.text == result.phi


def test_the_options_a_condition_takes_reach_it():
    assert make_condition("z", "type1", include_zero=True).include_zero is True
    assert make_condition("z", "type2", n_channels=1).head["n_channels"] == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse_activation("sigmoid(z + b)"),
        lambda: parse_param("b=oops"),
        lambda: parse_param("b"),
        lambda: parse_activation(
            parse_activation("z").expr + __import__("sympy").Symbol("b") + __import__("sympy").Symbol("c")
        ),
        lambda: catalog_rows(jobs=0),
    ],
)
def test_library_errors_name_parameters_not_flags(call):
    with pytest.raises(IdentcheckError) as info:
        call()
    assert "--" not in str(info.value)


def test_verdicts_and_certificates_serialise_to_the_schema_strings():
    assert json.dumps([Verdict.NOT_IDENTIFIABLE, Verdict.INCONCLUSIVE]) == '["not identifiable", "inconclusive"]'
    assert f"{Verdict.IDENTIFIABLE}" == "identifiable"
    assert Certificate(None, "why").to_dict() == {"kind": None, "detail": "why"}
    test = IntervalCertificate(True, (3, 0), (-2, 1), 30, 0.25, 0.5, ((30, 0.25),))
    detail = IntervalDetail(test, (("0x1.0p-1",), ("-0x1.8p-2",)), (4, 7))
    written = Certificate(CertificateKind.INTERVAL, detail).to_dict()
    assert written == {
        "kind": "interval",
        "detail": {
            "proved": True,
            "rows": [3, 0],
            "column_exponents": [-2, 1],
            "digits": 30,
            "residual_bound": 0.25,
            "sigma_min_lower_bound": 0.5,
            "attempts": [{"digits": 30, "residual_bound": 0.25}],
            "method": "approximate inverse R of a square minor S, ||I - R S||_F < 1 in arb ball arithmetic",
            "points": [["0x1.0p-1"], ["-0x1.8p-2"]],
            "columns": [4, 7],
        },
    }
    assert IntervalDetail.from_dict(json.loads(json.dumps(written["detail"]))) == detail  # replay reads it back
    assert Certificate(CertificateKind.INTERVAL, detail).brief() == "[proved: interval, σ_min ≥ 0.5 at 30 digits]"
    with pytest.raises(IdentcheckError, match="malformed interval record"):
        IntervalDetail.from_dict({"proved": True})


def test_the_tolerances_used_are_recorded():
    """The check records the rule's tolerances; each probe the borderline value its matrix used,
    sqrt(eps) times the largest singular value of the column-scaled matrix (recomputed here)."""
    result = check("sigmoid(z + 1)")
    by_name = {t.name: t for t in result.tolerances}
    assert by_name["agreement"].value == 1e-6 and by_name["ladder"].value == (30, 60, 120)
    assert result.to_dict()["tolerances"]["borderline"] == by_name["borderline"].rule
    condition = make_condition("sigmoid(z + 1)")
    for index, (probe, outcome) in enumerate(zip(condition.probes(), result.probes)):
        values = condition.matrix(probe, index).float64()
        s_max = np.linalg.svd(values / np.linalg.norm(values, axis=0), compute_uv=False)[0]
        borderline = next(t for t in outcome.tolerances if t.name == "borderline").value
        assert borderline == pytest.approx(np.sqrt(np.finfo(float).eps) * s_max, rel=1e-12)


@pytest.mark.parametrize("phi", ["z", "sin(z)", "z**3"])
def test_type2_families_do_not_read_labels(phi):
    """Renaming every term leaves the family relations unchanged: terms are matched by structure."""
    ts = type2_term_set(2, 2, 2, False)
    renamed = dataclasses.replace(
        ts, terms=tuple(dataclasses.replace(t, label=f"t{i}") for i, t in enumerate(ts.terms))
    )
    act = parse_activation(phi)
    columns = list(range(len(ts.terms)))
    found = 0
    for probe in head_probes(2, 2, 2, 0):
        config = probe.components[0]
        for full in (True, False):
            original = templates(ts, act, config, columns, full)
            assert templates(renamed, act, config, columns, full) == original
            found += len(original)
    assert found > 0


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_the_status_line_writes_only_to_a_terminal():
    shown, hidden = _Terminal(), io.StringIO()
    with StatusLine(shown) as status:
        status.show("probe 1/9")
    with StatusLine(hidden) as status:  # a StringIO is not a terminal
        status.show("probe 1/9")
    assert shown.getvalue() == "\r\033[Kprobe 1/9\r\033[K" and hidden.getvalue() == ""


# --- type1-full: Theorem 2's full decomposition (docs/method.md §5) ----------------------------

from identcheck.conditions.type1_full import head_terms  # noqa: E402
from identcheck.terms.compile import compile_terms  # noqa: E402
from identcheck.terms.type1 import type1_term_set  # noqa: E402


def _sigmoid_bias(z):
    return 1.0 / (1.0 + np.exp(-(z + 1.0)))


def test_type1_full_v_columns_match_their_definition():
    """∂^r v̄/∂M^r(x; M_1) = ∂^r exp(xᵀMx)|_{M_1} · f̄(x), f̄ = (e₁φ(a₁ᵀx) + φ(a_Nᵀx)) / (e₁ + 1),
    written out by hand here (numpy), against the compiled sympy columns."""
    condition = make_condition("sigmoid(z + 1)", "type1-full")
    probe = next(p for p in condition.probes() if p.name == "random single")
    head = probe.components[0]
    points = np.random.default_rng(5).uniform(-1, 1, size=(7, 2))
    matrix = condition.full_matrix(probe, points).float64()
    labels = head_terms(2, 1, 1).labels
    M = np.array(head.M[0], dtype=float)
    a1, aN = (np.array(head.a[i][0], dtype=float) for i in (0, 1))
    x1, x2 = points.T
    e1 = np.exp(np.einsum("ni,ij,nj->n", points, M, points))
    f = (e1 * _sigmoid_bias(points @ a1) + _sigmoid_bias(points @ aN)) / (e1 + 1.0)
    expected = {
        "∂v̄1/∂M11[g1]": x1**2 * e1 * f,
        "∂v̄1/∂M12[g1]": 2 * x1 * x2 * e1 * f,
        "∂²v̄1/∂M11∂M22[g1]": x1**2 * x2**2 * e1 * f,
        "∂²v̄1/∂M12²[g1]": None,  # merged into ∂²v̄1/∂M11∂M22 (factor 4)
        "∂²v̄1/∂M22²[g1]": x2**4 * e1 * f,
    }
    for label, values in expected.items():
        if values is None:
            assert label not in labels
            continue
        np.testing.assert_allclose(matrix[:, labels.index(label)], values, rtol=1e-12)
    assert len(labels) == 2 * 18 + 8  # T1 of the free gate's and the fixed gate's expert, 8 v̄-terms


def test_type1_full_contains_type1_columns():
    """The union is a superset: its first columns are Type1's on the head's experts."""
    condition = make_condition("tanh(z + 1)", "type1-full")
    probe = next(p for p in condition.probes() if p.name == "random pair")
    head = probe.components[0]
    points = np.random.default_rng(6).uniform(-1, 1, size=(9, 2))
    union = condition.full_matrix(probe, points).float64()
    t1 = type1_term_set(2)
    thetas = [list(t1.numeric_params(M, a).values()) for M, gate in zip(head.M, head.a) for a in gate]
    plain = compile_terms(t1).float64(points, thetas, parse_activation("tanh(z + 1)"))
    np.testing.assert_allclose(union[:, : plain.shape[1]], plain, rtol=1e-13)


_T1_LABEL = re.compile(r"^(?:ū|∂ū/∂(?P<p1>[Ma]\d+)|∂²ū/∂(?P<p2>[Ma]\d+)(?:²|∂(?P<p3>[Ma]\d+)))(?:\[(?P<c>\d+)\])?$")
_V_LABEL = re.compile(r"^∂²?v̄(?P<k>\d)/(?P<below>.*)\[g(?P<g>\d)\]$")


def _key_from_label(label):
    """A type-1 / type1-full key read off the display label (a second way to the same key)."""
    if match := _V_LABEL.match(label):
        names = re.findall(r"∂(M\d\d)(²?)", match["below"])
        names = tuple(n for name, square in names for n in (name,) * (2 if square else 1))
        return ("v", int(match["k"]) - 1, int(match["g"]) - 1, tuple(map(_typed, names)))
    match = _T1_LABEL.match(label)
    names = tuple(p for p in (match["p1"], match["p2"], match["p3"]) if p)
    if match["p2"] and not match["p3"]:
        names = (match["p2"], match["p2"])
    return int(match["c"] or 1) - 1, tuple(map(_typed, names))


def _typed(name):
    """``"M12"`` → ``("M", 0, 1)``, ``"a2"`` → ``("a", 1)``: the typed variable of a label's name."""
    return ("M", int(name[1]) - 1, int(name[2]) - 1) if name[0] == "M" else ("a", int(name[1:]) - 1)


@pytest.mark.parametrize("phi", ["z", "tanh(z)", "sigmoid(z)", "gelu(z)"])
def test_type1_relations_carry_the_keys_of_their_terms(phi):
    """Numeric lifts relations by their keys: each key is the (component, derivative) the label names."""
    relations = [r for p in check(phi).probes for r in p.relations]
    assert relations and any(len(key[1]) == 2 for r in relations for key in r.keys)
    for relation in relations:
        assert list(relation.keys) == [_key_from_label(label) for label, _ in relation.terms]


@pytest.fixture(scope="module")
def checked():
    """type1 and type1-full of z and sigmoid(z + 1), computed once for this module's tests."""
    return {(phi, c): check(phi, condition=c) for phi in ("z", "sigmoid(z + 1)") for c in ("type1", "type1-full")}


def test_type1_full_verdicts_and_inadmissible_heads(checked):
    identity = checked["z", "type1-full"]
    assert identity.verdict == "not identifiable"  # T1 ⊂ the union: PDE (5) stays
    relations = [r for p in identity.probes for r in p.relations]
    assert any(key[0] == "v" for r in relations for key in r.keys)
    for relation in relations:
        assert list(relation.keys) == [_key_from_label(label) for label, _ in relation.terms]
    paper = checked["sigmoid(z + 1)", "type1-full"]
    assert paper.verdict == "identifiable"
    apart = {p.name for p in paper.probes if not p.counts_for_verdict}
    assert apart == {"M = 0", "shared M = 0, random a"}  # no free gate: (A.4)
    assert all("(A.4)" in p.note for p in paper.probes if p.name in apart)
    assert all(p.counts_for_verdict for p in paper.probes if p.name not in apart)
    assert "T1" in paper.terms_text and "v̄" in paper.terms_text


# --- the committed type1-full findings (docs/catalog_type1_full.md) stay fresh ------------------

from pathlib import Path  # noqa: E402

from identcheck.catalog.activations import CATALOG  # noqa: E402
from identcheck.catalog.type1_full import finding, findings, findings_markdown  # noqa: E402

FINDINGS = Path(__file__).resolve().parents[3] / "docs" / "catalog_type1_full.md"


def test_committed_type1_full_findings_cover_the_catalog_and_two_rows_are_current(checked):
    """Fast half: every catalog activation has a row, and two rows regenerate identically
    (the whole section is regenerated by the slow test below)."""
    committed = FINDINGS.read_text(encoding="utf-8").splitlines()
    for phi, _ in CATALOG:
        assert any(line.startswith(f"| `{phi}`") for line in committed), phi
    for entry in [e for e in CATALOG if e[0] in ("z", "sigmoid(z + 1)")]:
        row = findings_markdown(
            [finding(entry, checked[entry[0], "type1"], checked[entry[0], "type1-full"])]
        ).splitlines()[-1]
        assert row in committed, (
            "docs/catalog_type1_full.md is stale: "
            "python3 -m identcheck.catalog.type1_full --out docs/catalog_type1_full.md"
        )


@pytest.mark.slow
def test_committed_type1_full_findings_are_current():
    fresh = findings_markdown(findings(jobs=2))
    assert fresh == FINDINGS.read_text(encoding="utf-8"), (
        "docs/catalog_type1_full.md is stale: python3 -m identcheck.catalog.type1_full --out docs/catalog_type1_full.md"
    )


def _same_balls(a, b):
    return (a.nrows(), a.ncols()) == (b.nrows(), b.ncols()) and all(
        x.mid() == y.mid() and x.rad() == y.rad() for x, y in zip(a.entries(), b.entries())
    )


@pytest.mark.parametrize("condition", ["type1", "type2"])
def test_a_matrix_s_rows_are_its_whole_evaluation_s_rows(condition):
    """rows(indices, digits) — what the proof of independence evaluates — gives the balls of those
    rows of arb(digits), in the order asked (type-2 multiplies out only those rows; type-1
    evaluates them alone and keeps nothing of them in the compiled terms' memo)."""
    cond = make_condition("sigmoid(z + 1)", condition, dim=1)
    probe = cond.probes()[0]
    matrix = cond.matrix(probe, 0)
    picked = [5, 0, 3, len(matrix.points) - 1]
    memo = matrix.compiled._memo
    kept = list(memo)
    alone = matrix.rows(picked, 60)
    if condition == "type1":
        assert list(memo) == kept  # a minor's rows leave no entry behind (not even a reordering)
    whole = matrix.arb(60)
    assert _same_balls(alone, flint.arb_mat([[whole[i, j] for j in range(whole.ncols())] for i in picked]))
    assert _same_balls(matrix.rows(picked, 60), alone)  # type-2: now from the kept whole matrix


# --- components carry their JSON round trip: a probe is rebuilt through its condition ----------


def _numbers(component) -> list:
    """Every parameter value of a component (an atom's values, or the entries of M and a)."""

    def leaves(value):
        return [v for item in value for v in leaves(item)] if isinstance(value, tuple) else [value]

    return list(component.values) if hasattr(component, "values") else leaves((component.M, component.a))


@pytest.mark.parametrize(
    "name, phi, dim, options",
    [
        ("type1", "tanh(z)", 2, {"include_zero": True}),
        ("mha", None, 2, {}),
        ("type2", "tanh(z)", 1, {}),
        ("type1-full", "tanh(z)", 1, {}),
        ("deepseek-shared", "k2*tanh(dot(k1, x) + k0)", 2, {}),
        ("deepseek-routed", "e2*tanh(dot(e1, x))", 1, {}),
    ],
)
def test_every_condition_rebuilds_its_probes_from_their_json(name, phi, dim, options):
    """The condition names its component type; each probe's JSON reads back to the same exact
    parameters (sympy rationals, not floats that compare equal), hence the same assumption tags."""
    condition = make_condition(phi, name, dim=dim, **options)
    for probe in condition.probes():
        assert {type(c) for c in probe.components} == {condition.component}, probe.name
        written = json.loads(json.dumps(probe.to_dict()))["components"]  # as a reader of the JSON sees it
        back = condition.probe_from_json(probe.name, written)
        assert back.components == probe.components and back.to_dict()["components"] == written
        assert (back.assumptions, back.violations) == (probe.assumptions, probe.violations)
        numbers = [v for c in back.components for v in _numbers(c)]
        assert numbers and all(isinstance(v, sp.Rational) for v in numbers), probe.name
