"""An expert's verdict says something about that expert: the relations beyond its template (specific
to this expert), counted by family with the first one, or "none" — a line of its own after the literal
verdict, a JSON field (``details["beyond_template"]``), in the text, the markdown and the catalog."""

from identcheck.check import check
from identcheck.families.reach import REACH_EXPERT

GELU = "e2*gelu(dot(e1, x))"


def test_gelu_routed_has_relations_beyond_its_template_counted_by_family():
    result = check(GELU, condition="deepseek-routed")
    beyond = result.details["beyond_template"]
    specific = [
        (p.name, r) for p in result.probes if p.counts_for_verdict for r in p.relations if r.reach == REACH_EXPERT
    ]
    assert beyond["specific"] == len(specific) == 12
    assert sum(n for _, n in beyond["families"]) == 12
    assert beyond["first"] == {
        "probe": specific[0][0],
        "family": specific[0][1].family,
        "relation": str(specific[0][1]),
    }
    assert beyond["shared"] == 67 and beyond["unknown"] == 0
    lines = result.to_text().splitlines()
    assert lines[1].startswith("  verdict: NOT IDENTIFIABLE")  # the literal verdict stays first
    assert lines[2].startswith("  beyond its template: 12 relation(s) specific to this expert (")
    assert f"first, on '{specific[0][0]}': {specific[0][1]}" in lines[2]
    assert "not an identifiability verdict" in lines[3] and "model-level check" in lines[3]
    markdown = result._repr_markdown_()
    assert "*Beyond its template:* 12 relation(s) specific to this expert" in markdown
    assert "not an identifiability verdict" in markdown


def test_an_expert_failing_only_through_its_template_says_none():
    result = check("k2*sigmoid(dot(k1, x) + k0)", condition="deepseek-weak", params={"k0": "1/2"})
    beyond = result.details["beyond_template"]
    assert beyond["specific"] == 0 and beyond["families"] == [] and beyond["first"] is None
    assert beyond["shared"] > 0 and beyond["unknown"] == 0
    assert (
        "  beyond its template: none: it fails only through relations every expert of its template shares"
        in result.to_text().splitlines()
    )


def test_an_identifiable_expert_has_nothing_beyond_its_template_to_report():
    result = check("softplus(dot(e1, x) + e0)", condition="deepseek-weak")
    assert result.details["beyond_template"] is None
    assert "beyond its template" not in result.to_text()


def test_a_condition_on_phi_has_no_such_field():
    assert "beyond_template" not in check("tanh(z)").details


def test_the_json_carries_it_under_a_new_schema():
    data = check(GELU, condition="deepseek-routed").to_dict()
    assert data["schema"] == "identcheck.check/9"
    assert data["details"]["beyond_template"]["specific"] == 12
    assert data["details"]["members_per_atom"] == {"S3": 15}  # the counts stay as they were
