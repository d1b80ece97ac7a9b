"""The canonical form and its digest: the same model under reordered keys is one content; another is not."""

import json

from identcheck.declaration import canonical_form, canonical_json, digest, parse_declaration, read_example


def _reversed(value):
    """``value`` with every table's keys in reverse order (lists keep theirs: their order is content)."""
    if isinstance(value, dict):
        return {k: _reversed(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(v) for v in value]
    return value


def test_reordering_keys_changes_nothing(base):
    assert list(_reversed(base)) == list(reversed(list(base)))
    assert canonical_json(parse_declaration(_reversed(base))) == canonical_json(parse_declaration(base))
    assert digest(parse_declaration(_reversed(base))) == digest(parse_declaration(base))


def test_integers_and_floats_are_one_value_and_labels_are_not_content(base):
    first = digest(parse_declaration(base))
    base["parts"]["routed"]["truth"][0]["eta1"] = 8  # was 8.0
    base["name"], base["description"] = "another name", "said otherwise"
    assert digest(parse_declaration(base)) == first


def test_a_different_model_has_a_different_digest(base):
    first = digest(parse_declaration(base))
    changes = [
        ("parts", "routed", "truth", 0, "eta1", 8.5),
        ("parts", "shared", "fitted", 3),
        ("loss", "parts", "routed", "r", "3", 6),
        ("noise", "variance_floor", 0.02),
    ]
    seen = {first}
    for *path, value in changes:
        data = json.loads(json.dumps(base))
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        seen.add(digest(parse_declaration(data)))
    assert len(seen) == len(changes) + 1


def test_a_printed_truth_and_its_normalised_form_are_one_model(base):
    """The shift is a symmetry of the softmax: the same density, the same content (the note aside)."""
    shifted = json.loads(json.dumps(base))
    for atom in shifted["parts"]["routed"]["truth"]:
        atom["beta0"] += 0.25
        atom["beta1"] += 2.0
    model = parse_declaration(shifted)
    assert digest(model) == digest(parse_declaration(base)) and model.notes


def test_the_canonical_form_is_sorted_plain_data():
    model = read_example("deepseek-d1")
    form = canonical_form(model)
    assert list(form) == sorted(form) and "name" not in form and "notes" not in form
    assert form["parts"]["routed"]["truth"][0]["beta0"] == -1.0
    assert json.loads(json.dumps(model.to_dict()))["notes"][0]["key"] == "parts.routed.truth"
    assert len(digest(model)) == 64
