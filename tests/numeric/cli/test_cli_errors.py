"""numeric's command line reads a library error's parameters as the flags of the command that ran
(identcheck.cli.common.render_error on the command's parser) — no table of messages.

One test per entry of the former table of messages (a regex per flag); the expected lines are the
ones that table printed, so no message changed when it went. Entries that
the flag converters keep the library from seeing (``fit --n 0``, ``confirm --condition type3``)
render the library's error with the command's own parser.
"""

import json

import pytest

from identcheck import IdentcheckError, parse_activation
from identcheck.cli.common import command_parser, render_error
from numeric import NumericError, fit, load_truth
from numeric.cli.main import main
from numeric.cli.parser import build_parser
from numeric.confirm import confirm
from numeric.errors import NoFitStore
from numeric.experiments.rates import rates_from_records
from numeric.experiments.store import read_records
from numeric.experiments.sweep import Grid, run_grid
from numeric.model.attention import Model
from tests.identcheck.cli.test_cli_errors import run_with_stdout_closed


def _rendered(command, call):
    """The error ``call`` raises, as the command line of ``command`` prints it."""
    with pytest.raises(NumericError) as refused:
        call()
    return render_error(refused.value, command_parser(build_parser(), command))


def _line(argv, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    return captured.err.removeprefix("numeric: error: ").rstrip("\n")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # "X" and other relative folders land here, and must not be made


# --- the structured fields at numeric's raise sites --------------------------------------------


@pytest.mark.parametrize(
    "call, param, value, reason",
    [
        (lambda: fit("mha", 3, 0), "n", 0, "must be a positive integer"),
        (lambda: confirm("tanh(z)", jobs=0), "jobs", 0, "must be from 1 to 64"),
        (lambda: confirm("tanh(z)", condition="type3"), "condition", "type3", "choose type1 or type2"),
        (lambda: rates_from_records([], None, ("bogus",)), "quantity", "bogus", None),
    ],
)
def test_a_raise_site_carries_param_value_and_reason(call, param, value, reason):
    with pytest.raises(NumericError) as refused:
        call()
    error = refused.value
    assert (error.param, error.value) == (param, value)
    assert reason is None or error.reason == reason
    assert str(error) == f"{param}={value!r}: {error.reason}"


def test_a_sequence_element_names_its_index_and_a_folder_without_a_store_its_folder():
    from numeric.confirm.ratio import ratio_table

    with pytest.raises(NumericError) as refused:
        ratio_table("mha", load_truth(), [10, 20, 1e300])
    error = refused.value
    assert (error.param, error.subject.index, error.value) == ("ns", 2, 1e300)
    assert str(error).startswith("ns[2]=1e+300: must be from 1 to 1e+06")
    with pytest.raises(NoFitStore) as refused:
        read_records("no/such")
    assert refused.value.folder == "no/such"
    assert str(refused.value) == "folder 'no/such': no fit store here (run a grid into it first)"


# --- each entry of the former table -----------------------------------------------------------


def test_fit_n():  # ^n= → --n (was --n=0: one spelling for every flag)
    assert _rendered("fit", lambda: fit("mha", 3, 0)) == "--n 0: must be a positive integer"


def test_fit_n_in_the_memory_message(capsys, monkeypatch):
    monkeypatch.setenv("NUMERIC_MEMORY_BUDGET_MB", "1")
    line = _line(["fit", "--model", "gated1", "--n", "50000"], capsys)
    assert line.startswith("--n 50000, --K 3, --optimizer lm: needs about ") and line.endswith(
        "above the memory budget of 0.0 GB (NUMERIC_MEMORY_BUDGET_MB sets it)"
    )


def test_reproduce_shard(capsys):  # ^shard= → --shard
    argv = ["reproduce", "--shard", "2/2", "--sizes", "300", "600", "--out", "X"]
    assert _line(argv, capsys) == "--shard 2/2: need 0 <= I < M"


def test_reproduce_allow_weak_truth(tmp_path, capsys):  # allow_weak_truth=True → --allow-weak-truth
    data = json.loads(open(load_truth().source).read())
    data["omega"] = [[0.2, 0.3], [0.4, 0.24]]  # Var f*/nu^2 below 10 (tests/numeric/experiments/test_sweep.py)
    path = tmp_path / "weak.json"
    path.write_text(json.dumps(data))
    argv = ["reproduce", "--models", "gated1", "--K", "2", "--sizes", "300", "600", "--truth", str(path)]
    line = _line([*argv, "--out", "o"], capsys)
    assert line.endswith("the fits would measure mostly noise (--allow-weak-truth to run anyway)")
    assert line.startswith("truth 'default': Var f*(X)/nu^2 = ")  # the name in the file
    truth = load_truth(path)
    grid = Grid(("gated1",), (2,), (300, 600), 1)
    python = _rendered(None, lambda: run_grid(grid, "o", truth=truth, progress=False))
    assert python.endswith("(allow_weak_truth=True to run anyway)")  # no command: the API's spelling
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "argv, line",
    [
        (["ratio", "--model", "mha", "--r", "9"], "--r 9.0: must be from 1 to 4"),  # ^r= → --r
        (["ratio", "--model", "mha", "--mc", "10"], "--mc 10: must be from 1,000 to 10,000,000"),  # ^mc=
        (  # ^ns[i]= → --ns
            ["ratio", "--model", "gated1", "--ns", "10", "1e300"],
            "--ns 1e+300: must be from 1 to 1e+06 (beyond, n^-(r+1) underflows against the weights)",
        ),
        (  # ^K= → --K
            ["ratio", "--model", "gated1", "--path", "recombination", "--K", "3"],
            "--K 3: the local recombination needs K from K* + 2 = 4 to 16 channels per head",
        ),
        (["confirm", "tanh(z)", "--jobs", "65", "--out", "X"], "--jobs 65: must be from 1 to 64"),
        (["confirm", "tanh(z)", "--seed", "-1", "--out", "X"], "--seed -1: must be >= 0"),
        (["confirm", "tanh(z)", "--mc", "5", "--out", "X"], "--mc 5: must be from 1,000 to 2,000,000"),
        (
            ["confirm", "tanh(z)", "--K", "1", "--out", "X"],
            "--K 1: must be from K* = 2 (the generic truth's channels per head) to 16",
        ),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_the_former_table_entries_read_as_before(argv, line, capsys, tmp_path):
    assert _line(argv, capsys) == line
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize(
    "argv, line",
    [  # argparse's own messages and confirm's type=int/float, in the one spelling, not argparse's
        (["confirm", "tanh(z)", "--K", "x"], "--K 'x': not an integer"),  # was: argument --K: invalid int value: 'x'
        (["confirm", "tanh(z)", "--K", "0"], "--K 0: must be a positive integer"),  # numeric.cli.flags, as fit's --K
        (["confirm", "tanh(z)", "--jobs", "0"], "--jobs 0: must be a positive integer"),
        (["confirm", "tanh(z)", "--seed", "1.5"], "--seed '1.5': not an integer"),
        (["confirm", "tanh(z)", "--mc", "1e5"], "--mc '1e5': not an integer"),
        (["confirm", "tanh(z)", "--budget", "soon"], "--budget 'soon': not a number"),
        (["confirm", "tanh(z)", "--budget", "0"], "--budget '0': must be a positive number"),
        (
            ["fit", "--model", "nope"],
            "--model 'nope': not one of mha, gated1, gated2",
        ),  # was: argparse's invalid choice
        (["fit", "--model", "gate1"], "--model 'gate1': not one of mha, gated1, gated2 (did you mean gated1?)"),
        (["fit", "--model", "mha", "--n"], "--n: expects a value"),  # was: argument --n: expected one argument
        (["reproduce", "--K"], "--K: expects one or more values"),
        (["confirm", "tanh(z)", "--quick=yes"], "--quick 'yes': takes no value (a switch)"),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_argparse_and_the_converters_read_as_every_error(argv, line, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert _line(argv, capsys) == line
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_confirm_condition_and_out():  # ^condition=, ^out= → --condition, --out
    assert _rendered("confirm", lambda: confirm("tanh(z)", condition="type3")) == (
        "--condition 'type3': choose type1 or type2"
    )
    error = NumericError(param="out", value="/x", reason="cannot create (Permission denied)")  # confirm's raise
    assert (
        render_error(error, command_parser(build_parser(), "confirm"))
        == "--out '/x': cannot create (Permission denied)"
    )


def test_quantity():  # ^quantity= → --quantity (plot's flag; rates has none, and names its quantities itself)
    line = _rendered("plot", lambda: rates_from_records([], None, ("bogus",)))
    assert line.startswith("--quantity 'bogus': unknown; choose from voronoi, ")
    line = _rendered("rates", lambda: rates_from_records([], None, ("bogus",)))
    assert line.startswith("quantity='bogus': unknown; choose from voronoi, ")


@pytest.mark.parametrize("argv", [["rates", "no/such"], ["plot", "no/such"], ["merge", "X", "no/such"]])
def test_a_folder_without_a_store(argv, capsys):  # rates, plot, merge: the reproduce hint
    assert _line(argv, capsys) == "folder 'no/such': no fit store here (run `numeric reproduce --out no/such` first)"


# --- what the table never knew -----------------------------------------------------------------


def test_a_parameter_the_command_has_no_flag_for_passes_unchanged(capsys):
    # fit's --box sets box_factor under another dest: the API's name stays
    line = _line(["fit", "--model", "mha", "--box", "1e308"], capsys)
    assert line == "box_factor=1e+308: must be a number in (0, 1000]"
    # reproduce's --K has dest Ks: K is found by the flag of its name
    assert _line(["reproduce", "--K", "1", "--sizes", "300", "600", "--out", "X"], capsys) == (
        "--K 1: below K* = 2, the truth's channels per head"
    )
    assert _rendered("ratio", lambda: fit("mha", 3, 0)) == "n=0: must be a positive integer"  # ratio has no --n
    assert _line(["fit", "--model", "gated1", "--K", "1"], capsys) == (  # was "K=1: ..."
        "--K 1: must be an integer from K* = 2 (the truth's channels per head) to 16"
    )


def test_identcheck_errors_read_as_flags_too(capsys):
    argv = ["fit", "--model", "gated1", "--phi", "sigmoid(z + b)", "--param", "b=oops"]
    assert _line(argv, capsys) == "--param 'b=oops': value 'oops' is not a number (use e.g. 1, -0.5, 1e-3, 2/3)"
    # was "set params={'b': VALUE}" (confirm's table did not know params)
    assert _line(["confirm", "sigmoid(z + b)", "--out", "X"], capsys) == (
        "phi='sigmoid(z + b)': 'b' has no value: set --param b=VALUE (the variable is z)"
    )
    argv = ["reproduce", "--preset", "local", "--param", "b=1", "--out", "X"]
    assert _line(argv, capsys) == "--preset local runs its own grid: --param cannot be combined with it"


@pytest.mark.parametrize(
    "phi, line",
    [
        ("foo(z)", "--phi 'foo(z)': unknown function 'foo'; known: "),
        ("sigmoid(z+b)", "--phi 'sigmoid(z+b)': 'b' has no value: set --param b=VALUE (the variable is z)"),
        ("1/z", "--phi '1/z': phi is not continuous and real on the probed domain z in [-3, 3] (it fails for z = 0)"),
    ],
)
def test_identcheck_errors_about_phi_keep_their_parameter_through_numeric(phi, line, capsys):
    """truth.check_phi / check_phi_range and models re-raise identcheck's error with its param, value
    and reason (was plain text: 'phi: phi='foo(z)': …', which the command line could not read as --phi)."""
    assert _line(["fit", "--model", "gated1", "--n", "100", "--phi", phi], capsys).startswith(line)
    with pytest.raises(IdentcheckError) as inner:
        parse_activation(phi).check_domain(3)
    with pytest.raises(NumericError) as outer:
        fit("gated1", 3, 100, truth=load_truth().with_phi(phi))
    assert (outer.value.param, outer.value.value) == (inner.value.param, inner.value.value) == ("phi", phi)
    assert outer.value.reason.startswith(inner.value.reason)


@pytest.mark.parametrize("phi", ["foo(z)", "sigmoid(z+b)"])
def test_the_models_phi_error_keeps_its_parameter(phi):
    with pytest.raises(IdentcheckError) as inner:
        parse_activation(phi)
    with pytest.raises(NumericError) as outer:
        Model("gated1", phi)
    assert (outer.value.param, outer.value.value, outer.value.parts) == ("phi", phi, inner.value.parts)


def test_a_truth_files_phi_is_named_by_the_file(tmp_path, capsys):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(load_truth().to_dict() | {"phi": "foo(z)"}))
    assert _line(["fit", "--model", "gated1", "--truth", str(path)], capsys).startswith(
        f"truth {str(path)!r}: phi='foo(z)': unknown function 'foo'"
    )


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("json_flag", [[], ["--json"]], ids=["text", "json"])
def test_a_closed_stdout_ends_the_program_quietly_with_141(json_flag, buffered):
    """numeric fit … | head: nothing on stderr, exit 141 (identcheck.cli.common.closed_stdout_quiet);
    buffered, the fit's short report fails only at program()'s flush."""
    argv = ["fit", "--model", "mha", "--n", "100", *json_flag]
    assert run_with_stdout_closed("numeric", argv, buffered) == (141, "")
    assert run_with_stdout_closed("numeric", ["fit", "--help"], buffered) == (141, "")  # argparse's SystemExit
