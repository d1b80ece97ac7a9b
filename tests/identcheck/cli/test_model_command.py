"""``identcheck model``: its JSON is the API's to_dict() under its schema name; bad input is one line, exit 2,
nothing on stdout."""

import json

import pytest

from identcheck.cli.main import main
from identcheck.declaration import example_path, read_example
from identcheck.model import check_declaration
from identcheck.model.text import SCHEMA


def _timeless(data):
    """``data`` without its wall times (the one thing two runs do not share)."""
    if isinstance(data, dict):
        return {k: _timeless(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [_timeless(v) for v in data]
    return data


def test_json_is_the_api_to_dict(capsys):
    assert main(["model", "softmax-gaussian-moe", "--order", "2", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["schema"] == SCHEMA == "identcheck.model/4"
    api = check_declaration(read_example("softmax-gaussian-moe"), max_order=2, max_cell=2)
    assert _timeless(printed) == _timeless({"schema": SCHEMA} | api.to_dict())


def test_a_file_reads_as_its_example_and_text_and_markdown_say_the_verdict(capsys):
    path = str(example_path("softmax-gaussian-moe"))
    assert main(["model", path, "--order", "2"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("model softmax-gaussian-moe: order too low (proof) — order ≤ 2")  # r̄(2) = 4 > 2
    assert "experts[1]: order too low" in text and "experts[2]" in text
    assert main(["model", path, "--order", "2", "--markdown"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].startswith("**softmax-gaussian-moe**: order too low") and table[2].startswith("| atom |")
    assert len([line for line in table if line.startswith("| experts[")]) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["deepseek-d2", "--order", "9"], "--order 9: must be from 1 to 8"),
        (["deepseek-d2", "--cells", "5"], "--cells 5: must be from 1 to 4"),
        (["deepseek-d2", "--order", "x"], "--order 'x': not an integer"),
        (["deepseek-d2", "--seconds", "0"], "--seconds 0: must be positive"),
        (["deepseek-d2", "--seconds", "-3"], "--seconds -3: must be positive"),
        (["deepseek-d2", "--seconds", "soon"], "--seconds 'soon'"),
        (["deepseek-d2", "--function", "phi"], "--function 'phi': expects NAME=TEXT"),
        (["deepseek-d1"], "parts.routed.expert='eta2*relu(dot(eta1, x))': relu is not differentiable at 0"),
        (["deepseek-d4"], "relu is not differentiable at 0"),
        (["least-squares"], "parts.experts.gate.kind='softmax': a softmax-gated regression"),
        (["deepseek-d22"], "MODEL 'deepseek-d22': no such example"),
    ],
)
def test_bad_input_is_one_line_exit_2_and_nothing_on_stdout(capsys, argv, message):
    assert main(["model", *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1 and message in err, err


def test_a_refused_gate_says_why(capsys, tmp_path):
    text = example_path("softmax-gaussian-moe").read_text(encoding="utf-8")
    path = tmp_path / "laplace.toml"
    path.write_text(
        text.replace('kind = "softmax"\nreference = "last"', 'kind = "sigmoid"').replace('"softmax-shift", ', "")
    )
    assert main(["model", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "parts.experts.gate.kind='sigmoid': a sigmoid gate's weights are its values" in err


def test_a_declaration_that_does_not_parse(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("x = \n")
    assert main(["model", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "not TOML" in err and len(err.splitlines()) == 1


def test_a_missing_file_is_named_as_the_argument(capsys, tmp_path):
    path = tmp_path / "missing.toml"
    assert main(["model", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"identcheck: error: MODEL {str(path)!r}: cannot be read" in err, err
    assert "model_file" not in err


def test_a_long_expert_is_cut_with_an_ellipsis_on_one_line(capsys, tmp_path):
    """A refused expert of 300 characters: its text echoed in at most 80, ending '…', the reason whole."""
    text = example_path("deepseek-d1").read_text(encoding="utf-8")
    long = "eta2*relu(dot(eta1, x))" + "".join(f" + eta2*tanh({k}*dot(eta1, x))" for k in range(1, 12))
    assert len(long) > 300
    path = tmp_path / "long.toml"
    path.write_text(text.replace('expert = "eta2*relu(dot(eta1, x))"', f'expert = "{long}"'), encoding="utf-8")
    assert main(["model", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.splitlines()) == 1
    echoed = err.split("parts.routed.expert=", 1)[1].split(": relu is not differentiable at 0", 1)[0]
    assert echoed.startswith("'eta2*relu(") and echoed.endswith("…'") and len(echoed) == 80, echoed
    assert "numeric simulates relu with its almost-everywhere derivative" in err


def test_a_tiny_whole_model_budget_is_inconclusive_never_a_verdict(capsys):
    """--seconds bounds the whole check: 0.01 s shared among Setting II's atoms decides nothing."""
    assert main(["model", "setting2", "--seconds", "0.01", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["seconds"] < 30, data["seconds"]
    verdicts = [atom["verdict"] for atom in data["atoms"]]
    assert verdicts and all(v == "inconclusive" for v in verdicts), verdicts
    assert all("no time left" in atom["summary"] for atom in data["atoms"]), data["atoms"][0]["summary"]
    assert data["verdict"] == "inconclusive"


def test_the_budget_is_shared_among_the_atoms_not_given_to_each(monkeypatch):
    """Each atom's budget is its share of the time left, so the shares never add up past --seconds."""
    import identcheck.model.declared as declared

    budgets: list[float] = []
    real_atom, real_tied = declared.check_atom, declared.check_tied

    def atom(*args, seconds, **kwargs):
        budgets.append(seconds)
        return real_atom(*args, seconds=seconds, **kwargs)

    def tied(*args, seconds, **kwargs):
        budgets.append(seconds)
        return real_tied(*args, seconds=seconds, **kwargs)

    monkeypatch.setattr(declared, "check_atom", atom)
    monkeypatch.setattr(declared, "check_tied", tied)
    total = 0.01
    result = check_declaration(read_example("setting2"), seconds=total)
    atoms = len(result.results)
    assert atoms >= 2 and len(budgets) >= atoms, (atoms, budgets)
    assert sum(budgets) <= total + 1e-9, budgets
    assert max(budgets) <= total / atoms + 1e-9, budgets


def test_the_library_and_the_command_share_one_default_budget():
    from identcheck.cli.model_command import SECONDS
    from identcheck.model.declared import MODEL_SECONDS

    assert SECONDS == MODEL_SECONDS
