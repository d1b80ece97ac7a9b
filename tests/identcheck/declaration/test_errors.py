"""Bad declarations: one line naming the key and why (an IdentcheckError, exit 2 in a command line)."""

import pytest

from identcheck.cli.common import render_error
from identcheck.declaration import parse_declaration, read_declaration, read_example
from identcheck.errors import IdentcheckError


def _set(path: str, value):
    """A change to the base mapping: set the value at ``a.b[1].c`` (``...`` deletes the key)."""

    def change(data):
        keys = path.replace("]", "").replace("[", ".").split(".")
        target = data
        for key in keys[:-1]:
            target = target[int(key)] if key.isdigit() else target[key]
        last = int(keys[-1]) if keys[-1].isdigit() else keys[-1]
        if value is ...:
            del target[last]
        else:
            target[last] = value

    return change


#: (case, change, the key named, words of the reason)
CASES = [
    (
        "unknown gate",
        _set("parts.routed.gate.kind", "softmx"),
        "parts.routed.gate.kind",
        "unknown gate (did you mean softmax?)",
    ),
    (
        "truth parameter the expert does not use",
        _set("parts.routed.truth[0].eta3", 1.0),
        "parts.routed.truth[0].eta3",
        "not a parameter of this part",
    ),
    ("missing parameter", _set("parts.routed.truth[1].nu", ...), "parts.routed.truth[1].nu", "missing"),
    ("missing atoms", _set("parts.routed.truth", []), "parts.routed.truth", "at least one atom"),
    ("no truth", _set("parts.routed.truth", ...), "parts.routed.truth", "missing: the truth's atoms"),
    ("negative variance", _set("parts.routed.truth[0].nu", -0.4), "parts.routed.truth[0].nu", "must be positive"),
    (
        "variance below the floor",
        _set("parts.shared.truth[0].tau", 0.001),
        "parts.shared.truth[0].tau",
        "below noise.variance_floor=0.01",
    ),
    (
        "loss names a missing parameter",
        _set("loss.parts.routed.terms[1].params", ["eta1", "eta2"]),
        "loss.parts.routed.terms[1].params[1]",
        "not a parameter of part 'routed'",
    ),
    (
        "cells name a missing parameter",
        _set("loss.parts.routed.cells", ["beta1", "mu"]),
        "loss.parts.routed.cells[1]",
        "not a parameter of part 'routed'",
    ),
    ("fitted below the truth", _set("parts.routed.fitted", 1), "parts.routed.fitted", "below the truth's 2 atoms"),
    (
        "top-K above the atoms",
        _set("parts.routed.gate", {"kind": "top-k", "top_k": 3}),
        "parts.routed.gate.top_k",
        "above the truth's 2 atoms",
    ),
    (
        "fitted top-K above the fitted atoms",
        _set("parts.routed.gate", {"kind": "top-k", "top_k": 1, "fitted_top_k": 4}),
        "parts.routed.gate.fitted_top_k",
        "above the 3 fitted atoms",
    ),
    (
        "a negative weight, the weights summing to one",
        lambda data: data["parts"]["shared"].update(
            truth=[
                {"omega": -0.5, "k1": 2.0, "k0": 0.0, "tau": 0.2},
                {"omega": 1.5, "k1": 3.0, "k0": 1.0, "tau": 0.2},
            ]
        ),
        "parts.shared.truth[0].omega",
        "a weight must be positive",
    ),
    ("a zero weight", _set("parts.shared.truth[0].omega", 0.0), "parts.shared.truth[0].omega", "must be positive"),
    (
        "weights not summing to one",
        _set("parts.shared.truth[0].omega", 0.9),
        "parts.shared.truth[*].omega",
        "sum to 0.9, not 1",
    ),
    ("shares not summing to one", _set("parts.shared.share", 0.4), "parts.*.share", "sum to 0.9, not 1"),
    (
        "fixed weights with more fitted atoms",
        _set("parts.shared.gate.weights", "fixed"),
        "parts.shared.gate.weights",
        "fixed weights are the truth's: fit 1 atoms, not 2",
    ),
    ("unknown key", _set("parts.routed.gat", {}), "parts.routed.gat", "unknown key (did you mean gate?)"),
    ("unknown noise", _set("noise.kind", "gaussian"), "noise.kind", "not one of gaussian-mixture, gaussian-regression"),
    (
        "expert the grammar refuses",
        _set("parts.routed.expert", "__import__('os')"),
        "parts.routed.expert",
        "names starting with '__' are not allowed",
    ),
    (
        "expert using a gate's name",
        _set("parts.routed.expert", "beta0*dot(eta1, x) + eta0"),
        "parts.routed.expert",
        "names a gate parameter",
    ),
    (
        "reference atom out of range",
        _set("parts.routed.gate.reference", 3),
        "parts.routed.gate.reference",
        "'first', 'last' or 1 … 2",
    ),
    (
        "r exponent without a table",
        _set("loss.parts.routed.r", ...),
        "loss.parts.routed.terms[0].over",
        "needs the part's r table",
    ),
    ("r table missing a cell size", _set("parts.routed.fitted", 4), "loss.parts.routed.r", "misses r(3)"),
    (
        "a bad exponent",
        _set("loss.parts.routed.terms[0].exact", -1),
        "loss.parts.routed.terms[0].exact",
        "a positive number, 'r', 'r/2' or 'none'",
    ),
    (
        "a cell weight the gate has not",
        _set("loss.parts.routed.mass", "omega"),
        "loss.parts.routed.mass",
        "the softmax gate of part 'routed' has no omega",
    ),
    (
        "a loss for a part that does not exist",
        _set("loss.parts.router", {}),
        "loss.parts.router",
        "not a part of this model (did you mean routed?)",
    ),
    ("a part without its loss", _set("loss.parts.shared", ...), "loss.parts.shared", "missing: the loss of part"),
    (
        "top-K subsets on a softmax",
        _set("loss.parts.routed.top_k_subsets", True),
        "loss.parts.routed.top_k_subsets",
        "not top-k",
    ),
    (
        "a vector of the wrong length",
        _set("parts.routed.truth[0].beta1", [1.0, 2.0]),
        "parts.routed.truth[0].beta1",
        "a vector of d = 1 numbers",
    ),
    (
        "an expert parameter the expression does not depend on",
        _set("parts.routed.expert", "dot(eta1, x) + 0*eta0"),
        "parts.routed.expert",
        "does not depend on 'eta0': declared, but unused",
    ),
    (
        "an unused vector parameter",
        _set("parts.routed.expert", "eta0 + dot(eta1, x) - dot(eta1, x)"),
        "parts.routed.expert",
        "does not depend on 'eta1'",
    ),
    (
        "a boolean for a number",
        _set("parts.routed.truth[0].eta0", True),
        "parts.routed.truth[0].eta0",
        "expected a number",
    ),
]


@pytest.mark.parametrize("change, key, words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_bad_declaration_is_one_line_naming_the_key(base, change, key, words):
    change(base)
    with pytest.raises(IdentcheckError) as caught:
        parse_declaration(base)
    message = render_error(caught.value, None)
    assert caught.value.param == key, message
    assert words in caught.value.reason, message
    assert "\n" not in message and message.startswith(key), message


def test_the_base_declaration_reads(base):
    assert parse_declaration(base).name == "small"


def test_the_unknown_gate_message_lists_the_gates(base):
    _set("parts.routed.gate.kind", "softmx")(base)
    with pytest.raises(IdentcheckError) as caught:
        parse_declaration(base)
    assert str(caught.value) == (
        "parts.routed.gate.kind='softmx': unknown gate (did you mean softmax?); known: constant, softmax, "
        "sigmoid, normalized-sigmoid, laplace, top-k, quadratic-softmax"
    )


def test_a_file_that_is_not_toml(tmp_path):
    path = tmp_path / "moe.toml"
    path.write_text("name = \n[parts\n", encoding="utf-8")
    with pytest.raises(IdentcheckError) as caught:
        read_declaration(path)
    assert caught.value.param == "model_file" and caught.value.reason.startswith("not TOML (")
    assert "\n" not in str(caught.value) and str(path) in str(caught.value)
    with pytest.raises(IdentcheckError, match="not TOML"):
        parse_declaration("a = = 1")


def test_a_missing_file(tmp_path):
    with pytest.raises(IdentcheckError) as caught:
        read_declaration(tmp_path / "none.toml")
    assert caught.value.param == "model_file" and "cannot be read" in caught.value.reason


def test_relu_reads_for_simulation_and_the_checks_refuse_it_in_one_line():
    assert read_example("deepseek-d2").refusal() is None
    refusal = read_example("deepseek-d1").refusal()
    assert refusal == (
        "parts.routed.expert='eta2*relu(dot(eta1, x))': relu is not differentiable at 0; identcheck's checks "
        "need a smooth expert (numeric simulates relu with its almost-everywhere derivative)"
    )
