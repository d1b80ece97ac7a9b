"""``numeric fit --model-file``: the JSON is the API's record, bad input is one line and exit 2."""

import json

import pytest

from identcheck.declaration import example_path, read_example
from numeric.cli.main import main
from numeric.fitting import fit_declared

BAD_GATE = """
name = "bad"
[inputs]
kind = "uniform"
dim = 1
[noise]
kind = "gaussian-mixture"
variance_floor = 0.001
[parts.experts]
expert = "dot(a, x) + b"
fitted = 2
gate = { kind = "softmx" }
truth = [{ a = 1.0, b = 0.0, nu = 0.1 }]
"""


def test_the_json_is_the_apis_record(capsys):
    path = str(example_path("deepseek-d2"))
    assert main(["fit", "--model-file", path, "--n", "1500", "--seed", "3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    record = json.loads(json.dumps(fit_declared(read_example("deepseek-d2"), 1500, seed=3).to_dict()))
    assert printed.pop("model_file") == path and isinstance(printed.pop("environment"), dict)
    printed.pop("seconds"), record.pop("seconds")  # the one field two runs do not share
    assert printed == record


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model-file", "BAD"], "parts.experts.gate.kind='softmx': unknown gate (did you mean softmax?)"),
        (["--model-file", "/no/such.toml"], "--model-file '/no/such.toml': cannot be read"),
        (["--model-file", "D2", "--K", "4"], "--K 4: does not apply to --model-file"),
        (
            ["--model-file", "D2", "--model", "gated1"],
            "--model-file 'D2PATH': a declaration states its model: drop --model",
        ),
        (["--model-file", "D2", "--method", "lm"], "--method 'lm': a density (maximum likelihood) is fitted by em"),
        ([], "--model: give it (a hand-written model) or --model-file (a declaration)"),
    ],
)
def test_bad_input_is_one_line_naming_it_and_exit_2(argv, message, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    bad.write_text(BAD_GATE, encoding="utf-8")
    argv = [str(bad) if a == "BAD" else str(example_path("deepseek-d2")) if a == "D2" else a for a in argv]
    assert main(["fit", *argv, "--n", "200"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    message = message.replace("D2PATH", str(example_path("deepseek-d2")))
    assert err.startswith("numeric: error: " + message) and err.count("\n") == 1
