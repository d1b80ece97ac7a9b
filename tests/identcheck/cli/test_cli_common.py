"""What both command lines share: one output-path policy, and a close match for a mistyped
flag or command — tested through the helper and through every command that writes or parses."""

import os

import pytest

from identcheck.cli.main import main as identcheck_main
from identcheck.errors import IdentcheckError
from identcheck.util.outputs import check_output_path
from numeric.cli.main import main as numeric_main
from numeric.errors import NumericError

# --- the policy, through the helper -------------------------------------------------------------


def test_a_new_leaf_under_an_existing_parent_and_an_existing_folder_are_accepted(tmp_path):
    check_output_path(tmp_path / "new", "--out", folder=True)  # a new leaf folder
    check_output_path(tmp_path, "--out", folder=True)  # an existing (empty) folder
    check_output_path(tmp_path / "b.png", "--plot", suffix=".png")  # a new file in an existing folder
    assert list(tmp_path.iterdir()) == []  # checking writes nothing


@pytest.mark.parametrize("folder", [True, False])
def test_a_missing_parent_is_refused_in_one_line_naming_the_flag(tmp_path, folder):
    path = tmp_path / "no" / "such" / ("x" if folder else "x.png")
    with pytest.raises(NumericError) as refused:
        check_output_path(path, "--out", folder=folder, error=NumericError)
    message = str(refused.value)
    assert (
        message.startswith(f"--out {str(path)!r}: folder {str(path.parent)!r} does not exist") and "\n" not in message
    )
    assert not (tmp_path / "no").exists()


def test_a_default_folder_may_have_its_parents_created(tmp_path):
    check_output_path(tmp_path / "out" / "reproduce", "--out", folder=True, default=True)  # accepted
    with pytest.raises(IdentcheckError, match="does not exist"):  # the same path typed by the user is not
        check_output_path(tmp_path / "out" / "reproduce", "--out", folder=True)


def test_a_file_where_a_folder_goes_and_a_folder_where_a_file_goes_are_refused(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(IdentcheckError, match="is a file, not a folder"):
        check_output_path(tmp_path / "f", "--out", folder=True)
    with pytest.raises(IdentcheckError, match="is a folder; give a file name"):
        check_output_path(tmp_path, "--out")
    with pytest.raises(IdentcheckError, match="give a .png file name"):
        check_output_path(tmp_path / "b.pdf", "--plot", suffix=".png")


def test_an_unwritable_parent_is_refused(tmp_path, monkeypatch):
    """What the policy asks os.access: a folder it says is not writable is refused, for a new leaf, an
    existing folder and a file (simulated, so the test runs as root too, where chmod would not bite)."""
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda path, mode: False if os.fspath(path) == str(locked) else real_access(path, mode)
    )
    with pytest.raises(IdentcheckError, match="is not writable"):
        check_output_path(locked / "x", "--out", folder=True)
    with pytest.raises(IdentcheckError, match="folder is not writable"):
        check_output_path(locked, "--out", folder=True)
    with pytest.raises(IdentcheckError, match="is not writable"):
        check_output_path(locked / "b.png", "--plot", suffix=".png")
    check_output_path(tmp_path / "free", "--out", folder=True)  # a writable parent passes


# --- every output flag of both command lines follows it: missing parent → one line, exit 2 ------


@pytest.mark.parametrize(
    "main, argv, flag",
    [
        (identcheck_main, ["scan", "sigmoid(z + b)", "--param", "b=-2:2:5", "--plot", "{missing}.png"], "--plot"),
        (identcheck_main, ["catalog", "--out", "{missing}.md"], "--out"),
        (numeric_main, ["reproduce", "--quick", "--out", "{missing}"], "--out"),
        (numeric_main, ["confirm", "tanh(z)", "--quick", "--out", "{missing}"], "--out"),
        (numeric_main, ["merge", "{missing}", "{tmp}"], "OUT"),
    ],
    ids=["scan --plot", "catalog --out", "reproduce --out", "confirm --out", "merge OUT"],
)
def test_every_output_path_with_a_missing_parent_is_one_line_exit_2(main, argv, flag, capsys, tmp_path):
    missing = tmp_path / "no" / "dir" / "x"  # numeric reproduce/confirm used to create the whole path
    assert main([a.format(missing=missing, tmp=tmp_path) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert (
        len(lines) == 1 and f"{flag} '{missing}" in lines[0] and f"folder '{missing.parent}' does not exist" in lines[0]
    )
    assert not (tmp_path / "no").exists()


# --- a mistyped flag or command gets its close match, in both command lines ----------------------


@pytest.mark.parametrize(
    "main, argv, line",
    [
        (
            identcheck_main,
            ["check", "--condtion", "type2", "z"],
            "identcheck: error: unknown flag --condtion (did you mean --condition?); see identcheck check --help",
        ),
        (
            identcheck_main,
            ["scan", "sigmoid(z + b)", "--parm", "b=0:1:3"],
            "identcheck: error: unknown flag --parm (did you mean --param?); see identcheck scan --help",
        ),
        (
            identcheck_main,
            ["chek", "z"],
            "identcheck: error: 'chek' is not a command (did you mean check?); "
            "commands: check, positions, prove-pde, scan, catalog, replay, model",
        ),
        (
            numeric_main,
            ["fit", "--modle", "gated1"],
            "numeric: error: unknown flag --modle (did you mean --model?); see numeric fit --help",
        ),
        (
            numeric_main,
            ["confirm", "tanh(z)", "--quik"],
            "numeric: error: unknown flag --quik (did you mean --quick?); see numeric confirm --help",
        ),
        (
            numeric_main,
            ["fitt"],
            "numeric: error: 'fitt' is not a command (did you mean fit?); "
            "commands: fit, reproduce, merge, rates, plot, ratio, confirm",
        ),
        (numeric_main, ["rates", "x", "--zzzzzz"], "numeric: error: unknown flag --zzzzzz; see numeric rates --help"),
        (numeric_main, ["--hlep"], "numeric: error: unknown flag --hlep (did you mean --help?); see numeric --help"),
    ],
)
def test_a_mistyped_flag_or_command_gets_did_you_mean(main, argv, line, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == line


def test_argparse_prefixes_and_values_after_double_dash_still_work(capsys):
    assert identcheck_main(["check", "--cond", "mha", "--json"]) == 0  # an unambiguous prefix, as argparse allows
    capsys.readouterr()
    assert identcheck_main(["check", "--", "--z"]) in (0, 2)  # after --, a PHI that looks like a flag is not a flag
    assert "unknown flag" not in capsys.readouterr().err
