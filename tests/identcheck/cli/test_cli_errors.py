"""Errors carry param/value/reason (identcheck.errors); the command line spells each parameter as
the flag of the command that ran, found in its argparse parser (identcheck.cli.common.render_error)
— no table of messages.

The command-line lines below are the ones the former table of messages (a regex per flag) printed,
one test per entry of that table: the messages did not change when it went.
"""

import argparse
import os
import pickle
import subprocess
import sys

import pytest

from identcheck import IdentcheckError
from identcheck.catalog.activations import catalog_rows
from identcheck.check import make_condition
from identcheck.cli.common import command_parser, flag_of, render_error
from identcheck.cli.main import main
from identcheck.cli.parser import build_parser
from identcheck.errors import InputError, Param
from identcheck.parse.activation import parse_activation
from identcheck.parse.expert import parse_expert
from identcheck.parse.grammar import parse_param
from identcheck.scan.params import exact

# --- the structured fields, at a sample of raise sites, against the call that raised ---------------

SITES = [  # (call, param, value, reason)
    (lambda: parse_param("b=oops"), "param", "b=oops", "value 'oops' is not a number (use e.g. 1, -0.5, 1e-3, 2/3)"),
    (lambda: parse_param("1b=2"), "param", "1b=2", "'1b' is not a valid parameter name"),
    (lambda: catalog_rows(jobs=0), "jobs", 0, "must be an integer from 1 to 64"),
    (lambda: make_condition("z", "type2", n_gates=9), "n_gates", 9, "must be an integer from 2 to 4 for type-2"),
    (lambda: make_condition("z", "type2", n_channels=7), "n_channels", 7, "must be an integer from 1 to 4 for type-2"),
    (
        lambda: make_condition("z", "type1", mixed_products=True),
        "mixed_products",
        True,
        "applies to type2 only, not type1",
    ),
    (lambda: make_condition("z", dim=9), "dim", 9, "must be an integer from 1 to 6"),
    (lambda: make_condition("z", seed=-2), "seed", -2, "must be a non-negative integer"),
    (lambda: exact("width", -1, True), "width", -1, "must be positive"),
    (lambda: parse_expert("e2*gelu(dot(e1, x))", dim=0), "dim", 0, "must be an integer from 1 to 6"),
]


@pytest.mark.parametrize("call, param, value, reason", SITES, ids=[f"{s[1]}={s[2]!r}" for s in SITES])
def test_a_raise_site_carries_param_value_and_reason(call, param, value, reason):
    with pytest.raises(IdentcheckError) as refused:
        call()
    error = refused.value
    assert (error.param, error.value, error.reason) == (param, value, reason)
    assert type(error.value) is type(value)  # the value as given, not its text
    assert str(error) == f"{param}={value!r}: {reason}"  # what a Python user reads, as before


def test_a_mapping_entry_names_its_key_and_a_reason_names_other_parameters():
    with pytest.raises(IdentcheckError) as refused:
        make_condition(None, "mha", params={"b": 1})
    error = refused.value
    assert (error.param, error.subject.key, error.subject.text) == ("params", "b", "1")  # the value given
    assert str(error) == "params={'b': 1}: condition 'mha' takes no phi and no constants: the expert is linear"
    with pytest.raises(IdentcheckError) as refused:
        parse_activation("sigmoid(z + c)")
    error = refused.value
    assert (error.param, error.value) == ("phi", "sigmoid(z + c)")
    assert error.reason == "'c' has no value: set params={'c': VALUE} (the variable is z)"
    assert Param("params", key="c", shown="VALUE") in error.parts


def test_the_fields_survive_pickling_as_a_worker_sends_them():
    error = IdentcheckError(param="ns", index=3, value=1e300, reason="too large")
    again = pickle.loads(pickle.dumps(error))
    assert (again.param, again.value, again.subject.index, str(again)) == ("ns", 1e300, 3, "ns[3]=1e+300: too large")


def test_a_plain_message_has_no_parameter_and_mixing_the_forms_is_refused():
    error = IdentcheckError("params: nothing to scan")
    assert (str(error), error.param, error.value, error.reason) == ("params: nothing to scan",) + (None, None) + (
        "params: nothing to scan",
    )
    with pytest.raises(TypeError):
        IdentcheckError("jobs=0: bad", param="jobs", reason="bad")
    with pytest.raises(TypeError):
        IdentcheckError(param="jobs", value=0)  # no reason


# --- the command line: each entry of the former table, typed by a user → the flag they typed ------

TABLE = [  # (argv, the whole stderr line)
    (  # params={'b': VALUE} → --param b=VALUE, inside a reason
        ["check", "sigmoid(z + b)"],
        "phi='sigmoid(z + b)': 'b' has no value: set --param b=VALUE (the variable is z)",
    ),
    (  # ... and as the subject, with the value typed (was b=VALUE)
        ["prove-pde", "z", "--param", "b=1"],
        "--param b=1: phi='z' does not use 'b'",
    ),
    (  # param= → --param
        ["check", "sigmoid(z + b)", "--param", "b=oops"],
        "--param 'b=oops': value 'oops' is not a number (use e.g. 1, -0.5, 1e-3, 2/3)",
    ),
    (
        ["scan", "sigmoid(z + b)", "--param", "c=0:1:5"],
        "--param c: phi='sigmoid(z + b)' does not use 'c'",
    ),
    (["catalog", "--jobs", "0"], "--jobs 0: must be an integer from 1 to 64"),  # jobs= → --jobs (was --jobs=0)
    (["scan", "sigmoid(z + b)", "--param", "b=-1:1:5", "--width", "-1"], "--width -1: must be positive"),
    (  # include_zero=True → --include-zero
        ["check", "z", "--condition", "type2", "--include-zero"],
        "--include-zero: applies to type1 and mha only, not type2",
    ),
    (  # mixed_products=True → --mixed-products
        ["check", "z", "--condition", "type1", "--mixed-products"],
        "--mixed-products: applies to type2 only, not type1",
    ),
    (["check", "z", "--condition", "type2", "--gates", "9"], "--gates 9: must be an integer from 2 to 4 for type-2"),
    (["check", "z", "--condition", "type1", "--gates", "3"], "--gates 3: applies to type2 only, not type1"),
    (
        ["check", "z", "--condition", "type2", "--channels", "9"],
        "--channels 9: must be an integer from 1 to 4 for type-2",
    ),
    (  # mha refuses in its own words (no special case in cli.py: Condition.subject is None)
        ["check", "--condition", "mha", "tanh(z)"],
        "phi='tanh(z)': condition 'mha' takes no phi: the expert is linear (that is the point of the contrast)",
    ),
    (  # the value as typed (was --param b=VALUE)
        ["check", "--condition", "mha", "--param", "b=1e-3"],
        "--param b=1e-3: condition 'mha' takes no phi and no constants: the expert is linear",
    ),
]


@pytest.mark.parametrize("argv, line", TABLE, ids=[" ".join(argv) for argv, _ in TABLE])
def test_the_former_table_entries_read_as_before(argv, line, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"identcheck: error: {line}\n"


NEW = [  # parameters the table did not know, now spelled as the flag typed
    (  # a scan of a condition that takes no expression (Condition.subject None): nothing to scan
        ["scan", "sigmoid(z + b)", "--condition", "mha", "--param", "b=0:1:3"],
        "--condition 'mha': takes no expression (it judges a fixed one): nothing to scan",
    ),
    (["prove-pde", "z", "--dim", "8"], "--dim 8: must be an integer from 1 to 6"),
    (["check", "z", "--points-per-term", "1"], "--points-per-term 1: must be an integer from 2 to 100"),
    (  # was "--param '--width=abc': ..." (the table rewrote parse_param's message twice), then --width='abc'
        ["scan", "sigmoid(z + b)", "--param", "b=-1:1:5", "--width", "abc"],
        "--width 'abc': value 'abc' is not a number (use e.g. 1, -0.5, 1e-3, 2/3)",
    ),
]


@pytest.mark.parametrize("argv, line", NEW, ids=[" ".join(argv) for argv, _ in NEW])
def test_other_parameters_read_as_their_flags(argv, line, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err == f"identcheck: error: {line}\n"


# --- the rendering, on the real parsers --------------------------------------------------------


def _check_parser():
    return command_parser(build_parser(), "check")


def test_a_parameter_the_parser_does_not_know_passes_unchanged():
    for error in (
        IdentcheckError(param="ladder", value=(30,), reason="need two precisions"),  # no flag for it
        IdentcheckError(param="phi", value="relu(z)", reason="not differentiable"),  # a positional
        IdentcheckError(param="include_zero", value=False, reason="odd"),  # a switch, not at the value it sets
        IdentcheckError("--param b: no phi uses 'b'"),  # a plain message
    ):
        assert render_error(error, _check_parser()) == str(error)
    assert render_error(ValueError("jobs=0: x"), _check_parser()) == "jobs=0: x"  # not an input error
    assert render_error(IdentcheckError(param="jobs", value=0, reason="x"), None) == "jobs=0: x"  # no command


def test_the_flag_is_found_by_dest_then_by_name():
    parser = _check_parser()
    assert flag_of(parser, "n_gates").option_strings == ["--gates"]  # dest
    assert flag_of(parser, "params").option_strings == ["--param"]  # dest
    assert flag_of(parser, "param").option_strings == ["--param"]  # no dest 'param': the flag of that name
    assert flag_of(parser, "points_per_term").option_strings == ["--points-per-term"]
    assert flag_of(parser, "phi") is None and flag_of(parser, "ladder") is None
    assert command_parser(build_parser(), "nonesuch") is None


def test_each_form_of_a_parameter_on_a_parser_of_its_own():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jobs", type=int)
    parser.add_argument("--ns", nargs="+", type=float)
    parser.add_argument("--param", dest="params", action="append")
    parser.add_argument("--plain", action="store_true", dest="quiet")
    cases = [  # one spelling for every flag: --flag VALUE (no --jobs=0 any more)
        (InputError(param="jobs", value=0, reason="r"), "--jobs 0: r"),
        (InputError(param="ns", index=2, value=1e300, reason="r"), "--ns 1e+300: r"),
        (InputError(param="params", key="b", shown="VALUE", reason="r"), "--param b=VALUE: r"),
        (InputError(param="quiet", value=True, reason="r"), "--plain: r"),
        (InputError(reason=("use ", Param("quiet", True), " or ", Param("seed", 3))), "use --plain or seed=3"),
    ]
    for error, line in cases:
        assert render_error(error, parser) == line


# --- a closed stdout (identcheck check z --json | head -c 10): quiet, exit 141 -------------------------


def run_with_stdout_closed(program: str, argv: list, buffered: bool) -> tuple:
    """(exit code, stderr) of ``python -m program argv`` whose stdout is a pipe nobody reads any more
    (its read end closed before the program starts: every write fails, no race with a reader).
    Buffered (no PYTHONUNBUFFERED), a short output fails only when flushed at the end."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"} | (
        {} if buffered else {"PYTHONUNBUFFERED": "1"}
    )
    read, write = os.pipe()
    os.close(read)
    try:
        run = subprocess.run(
            [sys.executable, "-m", program, *argv], stdout=write, stderr=subprocess.PIPE, text=True, env=env
        )
    finally:
        os.close(write)
    return run.returncode, run.stderr


@pytest.mark.parametrize("buffered", [True, False], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("argv", [["check", "z", "--dim", "1"], ["check", "z", "--dim", "1", "--json"]])
def test_a_closed_stdout_ends_the_program_quietly_with_141(argv, buffered):
    """Text (2 kB: buffered, it fails at program()'s flush) and --json (76 kB: it fails inside the
    command's print); each unbuffered too (every print fails)."""
    assert run_with_stdout_closed("identcheck", argv, buffered) == (141, "")
    assert run_with_stdout_closed("identcheck", [argv[0], "--help"], buffered) == (141, "")  # argparse's SystemExit
    run = subprocess.run([sys.executable, "-m", "identcheck", *argv], capture_output=True, text=True)
    assert (run.returncode, run.stderr, run.stdout[:1]) == (0, "", "[" if "--json" in argv else "φ")


# --- one spelling for every flag, `--flag VALUE: reason`, with the value as typed -------------------------

ONE_SPELLING = [  # (argv, the whole stderr line)
    (["catalog", "--jobs", "0"], "--jobs 0: must be an integer from 1 to 64"),
    (["check", "z", "--dim", "x"], "--dim 'x': not an integer"),  # argparse's converter, without its prefix
    (["check", "z", "--dim"], "--dim: expects a value"),  # argparse's own (was: argument --dim: expected one argument)
    (["scan", "sigmoid(z + b)", "--param"], "--param: expects a value"),
    (["check", "z", "--json=yes"], "--json 'yes': takes no value (a switch)"),  # (was: ignored explicit argument)
    (["positions", "z", "--seed", "-1"], "--seed -1: must be >= 0"),
    (  # a scanned range named as typed, and why (was "param b: COUNT=1 must be …")
        ["scan", "sigmoid(z + b)", "--param", "b=0:1:1"],
        "--param 'b=0:1:1': COUNT 1 must be an integer from 2 to 201 (the grid values from LO to HI)",
    ),
    (  # an expert is called an expert (was phi='tanh(dot(e1, x) + b)'), as typed
        ["scan", "--expert", "tanh(dot(e1, x) + b)", "--condition", "deepseek-weak", "--param", "c=0:1:3"],
        "--param c: --expert 'tanh(dot(e1, x) + b)' does not use 'c'",
    ),
    (  # (was "--param c: no phi uses 'c'")
        ["check", "--condition", "deepseek-weak", "--expert", "tanh(dot(e1, x))", "--param", "c=1"],
        "--param c=1: no expert uses 'c'",
    ),
    (["check", "z", "--param", "b=2/3"], "--param b=2/3: no phi uses 'b'"),  # (was --param b: …)
    (  # both: the name typed, not type1's
        ["check", "--condition", "both", "--expert", "a*x1"],
        "--expert 'a*x1': condition 'both' takes PHI, not an expert; "
        "--expert goes with a condition on experts (deepseek-shared, deepseek-routed, deepseek-weak)",
    ),
]
_EXPERTS = "(NAME: deepseek-shared, deepseek-routed, deepseek-weak)"
ONE_SPELLING += [  # scan reads PHI or --expert as check does, by the condition's subject (was: unknown flag --expert)
    (
        ["scan", "--condition", "deepseek-weak", "--param", "b=0:1:3"],
        "--condition 'deepseek-weak': give the expert to scan as --expert EXPR (e.g. --expert 'tanh(dot(e1, x) + b)')",
    ),
    (
        ["scan", "sigmoid(z + b)", "--expert", "tanh(dot(e1, x) + b)", "--param", "b=0:1:3"],
        "--expert 'tanh(dot(e1, x) + b)': condition 'type1' takes PHI, not an expert; "
        "--expert goes with a condition on experts (deepseek-shared, deepseek-routed, deepseek-weak)",
    ),
    (
        ["scan", "z + b", "--expert", "tanh(dot(e1, x) + b)", "--condition", "deepseek-routed", "--param", "b=0:1:3"],
        "--expert 'tanh(dot(e1, x) + b)': and PHI 'z + b': give one expert (e.g. --expert 'tanh(dot(e1, x) + b)')",
    ),
    (
        ["scan", "--param", "b=0:1:3"],
        "scan: give PHI, e.g. 'sigmoid(z + b)' (an expert: --condition NAME --expert EXPR)",
    ),
    (  # an expert typed as PHI for a condition on φ: what to type (was the φ error alone)
        ["scan", "e2*tanh(dot(e1, x) + b)", "--param", "b=0:1:3"],
        "phi='e2*tanh(dot(e1, x) + b)': 'e2' has no value: set --param e2=VALUE (the variable is z); "
        f"an expert in x is scanned with --condition NAME --expert EXPR {_EXPERTS}",
    ),
    (
        ["check", "e2*tanh(dot(e1, x))"],
        "phi='e2*tanh(dot(e1, x))': 'e2' has no value: set --param e2=VALUE (the variable is z); "
        f"an expert in x is checked with --condition NAME --expert EXPR {_EXPERTS}",
    ),
    (
        ["check", "e2*tanh(z)"],
        "phi='e2*tanh(z)': 'e2' has no value: set --param e2=VALUE (the variable is z)",
    ),  # no x: no hint
]
_AVAILABLE = "available: type1, type2, mha, type1-full, deepseek-shared, deepseek-routed, deepseek-weak"
ONE_SPELLING += [  # one unknown-condition message for every command (was three spellings), did-you-mean included
    (
        ["check", "z", "--condition", "typ1"],
        f"--condition 'typ1': unknown condition (did you mean type1?); {_AVAILABLE}, both",
    ),
    (
        ["scan", "sigmoid(z + b)", "--condition", "typ1", "--param", "b=0:1:3"],
        f"--condition 'typ1': unknown condition (did you mean type1?); {_AVAILABLE}",
    ),
    (["catalog", "--condition", "typ1"], f"--condition 'typ1': unknown condition (did you mean type1?); {_AVAILABLE}"),
]


@pytest.mark.parametrize("argv, line", ONE_SPELLING, ids=[" ".join(argv) for argv, _ in ONE_SPELLING])
def test_every_flag_is_spelled_one_way(argv, line, capsys):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == f"identcheck: error: {line}\n"


def test_a_grid_value_is_refused_by_the_errors_parameter_not_its_text():
    """softplus(βz)/β at β = 0 is 0/0: that value is reported with the error's reason (phi: …), the
    scan goes on; an error about an argument (here the condition) stops it."""
    from identcheck.scan import scan

    result = scan("softplus(beta*z)/beta", {"beta": (-1, 1, 3)}, dim=1, width=1)
    assert [g.reason for g in result.grid] == [None, "phi: not finite (it contains an infinity or 0/0)", None]
    with pytest.raises(IdentcheckError) as refused:
        scan("z + b", {"b": (0, 1, 3)}, condition="mha")
    assert (refused.value.param, refused.value.value) == ("condition", "mha")
