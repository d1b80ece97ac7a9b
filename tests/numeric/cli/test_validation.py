"""Validation lives in the library, whose errors name parameters; the CLI maps them to its flags."""

import ast
from pathlib import Path

import pytest

from identcheck import IdentcheckError, check
from numeric import NumericError, fit, load_truth
from numeric.cli.main import build_parser, main
from numeric.confirm import confirm
from numeric.confirm.ratio import ratio_table
from numeric.experiments.store import read_records
from numeric.experiments.sweep import Grid, run_grid

PACKAGE = Path(__file__).resolve().parents[3] / "numeric"
#: The command-line modules: the only ones that may spell a flag.
CLI_MODULES = {"cli/main.py", "cli/parser.py", "confirm/cli.py", "cli/flags.py"}


def _error_texts(path: Path):
    """The string pieces of every ``NumericError(...)`` raised in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "NumericError":
            for piece in ast.walk(node):
                if isinstance(piece, ast.Constant) and isinstance(piece.value, str):
                    yield node.lineno, piece.value


def test_library_errors_never_name_a_cli_flag():
    found = [
        (p.name, line, text)
        for p in sorted(PACKAGE.rglob("*.py"))
        if p.relative_to(PACKAGE).as_posix() not in CLI_MODULES
        for line, text in _error_texts(p)
        if "--" in text
    ]
    assert found == []
    assert any("--" in text for _, text in _error_texts(PACKAGE / "cli" / "main.py"))  # the scan does see strings


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: confirm("tanh(z)", seed=-1), "seed=-1: must be >= 0"),
        (lambda: confirm("tanh(z)", jobs=0), "jobs=0: must be from 1 to 64"),
        (lambda: confirm("tanh(z)", mc=5), "mc=5: must be from 1,000 to 2,000,000"),
        (lambda: confirm("tanh(z)", condition="type3"), "condition='type3': choose type1 or type2"),
        (lambda: ratio_table("mha", load_truth(), [10, 1e300]), "ns[1]=1e+300: must be from 1 to 1e+06"),
        (lambda: ratio_table("mha", load_truth(), [10], r=9), "r=9: must be from 1 to 4"),
        (lambda: ratio_table("mha", load_truth(), [10], mc=10), "mc=10: must be from 1,000"),
        (lambda: fit("mha", 3, 0), "n=0: must be a positive integer"),
        (
            lambda: read_records("/nonexistent/store"),
            "folder '/nonexistent/store': no fit store here (run a grid into it first)",
        ),
    ],
)
def test_library_errors_name_the_parameter(call, message):
    with pytest.raises(NumericError) as error:
        call()
    assert str(error.value).startswith(message)


def test_confirm_checks_its_arguments_before_writing(tmp_path):
    out = tmp_path / "never"
    for kwargs in ({"seed": -1}, {"jobs": 65}, {"mc": 10**7}):
        with pytest.raises(NumericError):
            confirm("tanh(z)", out=out, **kwargs)
    assert not out.exists()


@pytest.mark.parametrize(
    "argv, line",
    [
        (["fit", "--model", "mha", "--n", "0"], "numeric: error: --n 0: must be a positive integer"),
        (
            ["ratio", "--model", "gated1", "--ns", "10", "1e300"],
            "numeric: error: --ns 1e+300: must be from 1 to 1e+06 (beyond, n^-(r+1) underflows against the weights)",
        ),
        (
            ["reproduce", "--shard", "2/2", "--sizes", "300", "600", "--out", "X"],
            "numeric: error: --shard 2/2: need 0 <= I < M",
        ),
        (["confirm", "tanh(z)", "--seed", "-1", "--out", "X"], "numeric: error: --seed -1: must be >= 0"),
        (["confirm", "tanh(z)", "--jobs", "65", "--out", "X"], "numeric: error: --jobs 65: must be from 1 to 64"),
        (
            ["rates", "no/such/folder"],
            "numeric: error: folder 'no/such/folder': no fit store here "
            "(run `numeric reproduce --out no/such/folder` first)",
        ),
    ],
)
def test_cli_errors_name_the_flags(argv, line, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip() == line
    assert list(tmp_path.iterdir()) == []


def test_identcheck_messages_pass_unchanged(capsys, tmp_path):
    with pytest.raises(IdentcheckError) as refused:
        check("abs(z)")
    assert main(["confirm", "abs(z)", "--out", str(tmp_path / "never")]) == 2
    assert capsys.readouterr().err.strip() == f"numeric: error: {refused.value}"


def test_plot_checks_every_quantity_before_writing_a_figure(tmp_path, capsys):
    run_grid(Grid(models=("mha",), Ks=(2,), sizes=(300, 600), reps=2), tmp_path, progress=False)
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["plot", str(tmp_path), "--quantity", "voronoi", "bogus"]) == 2
    assert capsys.readouterr().err.startswith("numeric: error: --quantity 'bogus': unknown")
    assert sorted(p.name for p in tmp_path.iterdir()) == before


COUNTS = [  # (argv before the flag, flag): every integer flag that counts something
    (["fit", "--model", "mha"], "--n"),
    (["fit", "--model", "mha"], "--K"),
    (["reproduce"], "--reps"),
    (["reproduce"], "--jobs"),
    (["reproduce", "--sizes"], None),
    (["reproduce"], "--K"),
    (["ratio", "--model", "mha"], "--mc"),
    (["ratio", "--model", "mha"], "--K"),
]


@pytest.mark.parametrize("argv, flag", COUNTS, ids=lambda v: " ".join(v) if isinstance(v, list) else str(v))
def test_a_count_flag_refuses_0_before_any_work(argv, flag):
    """The converter refuses 0 (else the library would refuse it later, in its own words)."""
    words = [*argv, "0"] if flag is None else [*argv, flag, "0"]
    with pytest.raises(NumericError, match=r"must be a positive integer"):
        build_parser().parse_args(words)
    one = [*argv, "1"] if flag is None else [*argv, flag, "1"]
    build_parser().parse_args(one)  # 1 passes the converter


@pytest.mark.parametrize("command", [["fit", "--model", "mha"], ["reproduce"]])
def test_seed_0_is_valid_and_a_negative_seed_is_refused(command):
    assert build_parser().parse_args([*command, "--seed", "0"]).seed == 0
    with pytest.raises(NumericError, match=r"^--seed -1: must be >= 0$"):
        build_parser().parse_args([*command, "--seed", "-1"])


# --- inputs the converters refuse before the library sees them ------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["ratio", "--model", "gated1", "--phi", "log(z)"],
        ["ratio", "--model", "gated1", "--path", "recombination", "--phi", "log(z)"],
        ["fit", "--model", "gated1", "--n", "100", "--phi", "log(z)"],
        ["reproduce", "--quick", "--phi", "sqrt(z)", "--out", "{tmp}/s"],
    ],
    ids=["ratio", "ratio recombination", "fit", "reproduce"],
)
def test_a_phi_not_smooth_on_the_data_is_refused_by_every_command(argv, capsys, tmp_path):
    """`numeric ratio --phi 'log(z)'` printed numpy warnings and a table of nan (exit 0); every command
    now runs the domain check `numeric confirm` and truth files use (Activation.check_domain)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a numpy RuntimeWarning would end the command as an internal error
        assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert (
        len(lines) == 1
        and "is not continuous and real on the probed domain" in lines[0]
        and "(it fails for z in [" in lines[0]
    )
    assert list(tmp_path.iterdir()) == []


def test_with_phi_checks_the_range_as_a_truth_file_does():
    with pytest.raises(NumericError, match=r"\|a\.x\| reaches"):
        load_truth().with_phi("log(z)")
    assert load_truth().with_phi("log(z + 5)").phi == "log(z + 5)"  # smooth on the data's range


def test_a_fit_with_fewer_points_than_parameters_says_so(capsys):
    result = fit("gated1", 3, 5)
    assert result.n_params == 36 and result.underdetermined
    data = result.to_dict()
    assert data["n_params"] == 36 and data["underdetermined"] is True
    assert fit("gated1", 3, 40).underdetermined is False
    assert main(["fit", "--model", "gated1", "--n", "5", "--json"]) == 0
    captured = capsys.readouterr()
    assert '"underdetermined": true' in captured.out
    assert captured.err.strip() == (
        "numeric: warning: --n 5 is below the 36 parameters of gated1 K=3: the fit is "
        "underdetermined (it can interpolate the data; its losses say nothing about rates)"
    )
