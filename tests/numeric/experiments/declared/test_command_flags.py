"""``numeric reproduce --model-file`` takes ``--init-scale`` (stored in the settings, changing the starts),
``numeric plot --quantity`` draws only the quantities asked of a declared store, and the
declaration's notes are warning lines of the text and ``notes`` of the JSON."""

import json

from identcheck.declaration import example_path, read_declaration
from numeric.cli.main import main
from numeric.experiments.declared import read_declared

ARGV = ["reproduce", "--model-file", str(example_path("softmax-gaussian-moe")), "--sizes", "200", "400", "--reps", "1"]


def _settings(folder):
    store, records = read_declared(folder)
    return {store.settings[r.settings_id].init_scale for r in records}, records


def test_init_scale_reaches_the_declared_grid(tmp_path, capsys):
    assert main(ARGV + ["--out", str(tmp_path / "a"), "--init-scale", "0.25", "--json"]) == 0
    assert main(ARGV + ["--out", str(tmp_path / "b"), "--json"]) == 0
    scale_a, records_a = _settings(tmp_path / "a")
    scale_b, records_b = _settings(tmp_path / "b")
    assert scale_a == {0.25} and scale_b == {1.0}
    starts_a = sorted(r.start_objective for r in records_a)
    starts_b = sorted(r.start_objective for r in records_b)
    assert starts_a != starts_b  # another perturbation of the same truth, same data


def test_init_scale_needs_a_declaration(tmp_path, capsys):
    assert main(["reproduce", "--init-scale", "0.5", "--out", str(tmp_path / "s")]) == 2
    assert "--init-scale need --model-file" in capsys.readouterr().err


def test_plot_quantity_draws_only_what_is_asked(tmp_path, capsys):
    assert main(ARGV + ["--out", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    assert main(["plot", str(tmp_path), "--quantity", "loss", "experts.nu"]) == 0
    names = sorted(p.rsplit("/", 1)[1] for p in capsys.readouterr().out.split())
    assert names == [
        "rates_declared_error_experts_nu.pdf",
        "rates_declared_error_experts_nu.png",
        "rates_declared_loss.pdf",
        "rates_declared_loss.png",
    ]
    assert not (tmp_path / "rates_declared.png").exists()


def test_plot_of_an_unknown_quantity_is_one_line_and_writes_nothing(tmp_path, capsys):
    assert main(ARGV + ["--out", str(tmp_path), "--json"]) == 0
    capsys.readouterr()
    assert main(["plot", str(tmp_path), "--quantity", "loss", "experts.eta"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--quantity 'experts.eta'" in err and "experts.nu" in err
    assert not list(tmp_path.glob("*.png"))


def test_a_normalised_truth_is_a_warning_line_of_reproduce_and_rates(tmp_path, capsys):
    argv = ["reproduce", "--model-file", str(example_path("deepseek-d1")), "--sizes", "100", "200", "--reps", "1"]
    assert main(argv + ["--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "warning: parts.routed.truth: normalised to the reference atom 2" in out
    assert main(["rates", str(tmp_path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    warnings = [line for line in lines if line.startswith("warning: ")]
    assert len(warnings) == 2 and "do not vary with x" in warnings[1]
    fit = read_declared(tmp_path)[1][0].fit()
    assert any("do not vary with x" in note for note in fit["notes"])  # and the record says so


def test_the_notes_are_in_the_json_of_reproduce_and_rates(tmp_path, capsys):
    """The warnings the text prints are the JSON's ``notes``: D1's printed β1 = (5, 5) normalised and
    constant in x, as the declaration reads them; a declaration without notes has ``[]``."""
    path = example_path("deepseek-d1")
    expected = [{"key": n.key, "text": n.text} for n in read_declaration(path).notes]
    assert [n["text"][:26] for n in expected] == ["normalised to the referenc", "every atom has the same be"]
    argv = ["reproduce", "--model-file", str(path), "--sizes", "100", "200", "--reps", "1", "--json"]
    assert main(argv + ["--out", str(tmp_path / "d1")]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == expected
    assert main(["rates", str(tmp_path / "d1"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(row["notes"] == expected and row["schema"] == "numeric.declared_rates/2" for row in rows)
    assert main(ARGV + ["--out", str(tmp_path / "plain"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == []
    assert main(["rates", str(tmp_path / "plain"), "--json"]) == 0
    assert all(row["notes"] == [] for row in json.loads(capsys.readouterr().out))
