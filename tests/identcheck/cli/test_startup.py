"""Start-up (docs/performance.md, Start-up): importing identcheck or its command line loads no heavy library; each
command loads what it needs when it runs. Every case runs in a fresh interpreter and reports the
heavy modules it ended with (sys.modules)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
HEAVY = ("sympy", "numpy", "scipy", "scipy.special", "scipy.optimize", "flint", "matplotlib", "matplotlib.pyplot")


def _loaded(code: str) -> list[str]:
    """The HEAVY modules loaded after running ``code`` in a fresh interpreter (in the repository root)."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))"
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "code",
    [
        "import identcheck",
        "import identcheck.cli.main",
        "from identcheck.cli.main import build_parser\nbuild_parser().format_help()",
        "from identcheck.cli.main import main\nimport contextlib, io\ntry:\n"
        "    with contextlib.redirect_stdout(io.StringIO()):\n        main(['check', '--help'])\n"
        "except SystemExit:\n    pass",
        # a bad flag
        "from identcheck.cli.main import main\nimport contextlib, io\n"
        "with contextlib.redirect_stderr(io.StringIO()):\n    main(['check', '--dim', 'x'])",
        "from identcheck import IdentcheckError, Verdict, __version__",  # light names stay light
    ],
    ids=["import", "import cli", "parser", "--help", "bad flag", "light names"],
)
def test_nothing_heavy_loads_before_a_command_needs_it(code):
    assert _loaded(code) == []


def test_a_command_loads_what_it_needs_and_no_more():
    """The check needs sympy, numpy and python-flint; not scipy (its pivoted QR was replaced by
    identcheck.families.echelon.pivoted_rows), not the optimizer, not matplotlib. (Also shows the probe sees imports:
    the
    lists above are empty because nothing loaded.)"""
    code = (
        "from identcheck.cli.main import main\nimport contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    main(['check', 'z', '--dim', '1'])"
    )
    assert _loaded(code) == ["sympy", "numpy", "flint"]


def test_the_lazy_api_gives_the_functions_even_after_their_modules_loaded():
    """``identcheck.check`` and ``identcheck.scan`` name a module and a function: the function wins,
    as when the package imported them eagerly."""
    code = (
        "import identcheck.check, identcheck.scan\nfrom identcheck.check import run\nimport identcheck\n"
        "from identcheck import check, scan\nassert callable(check) and callable(scan) and identcheck.check is check\n"
        "assert identcheck.scan is scan and check.__module__ == 'identcheck.check'\n"
        "assert sorted(identcheck.__all__) == sorted(set(dir(identcheck)) & set(identcheck.__all__))"
    )
    assert "sympy" in _loaded(code)


def test_the_program_freezes_the_collector_at_its_end_and_main_does_not():
    """``identcheck`` and ``python -m identcheck`` run :func:`identcheck.cli.main.program`: the output
    complete, the exit code kept, and the collector frozen for the exit (the interpreter's last
    collection over sympy's objects cost more than the check itself); ``main``, which tests call
    in one process, leaves it alone."""
    run = subprocess.run(
        [sys.executable, "-m", "identcheck", "check", "z", "--dim", "1", "--json"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0 and json.loads(run.stdout)[0]["verdict"] == "not identifiable"
    quiet = "import contextlib, gc, io, sys\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    code = (
        quiet
        + "    from identcheck.cli.main import main, program\n"
        + "    sys.argv = ['identcheck', 'check', 'z', '--dim', '1']\n"
    )
    as_main = subprocess.run(
        [sys.executable, "-c", code + "    code = main(sys.argv[1:])\nprint(code, gc.get_freeze_count())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    as_program = subprocess.run(
        [sys.executable, "-c", code + "    code = program()\nprint(code, gc.get_freeze_count())"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert as_main == ["0", "0"] and as_program[0] == "0" and int(as_program[1]) > 10_000


def test_a_condition_module_loads_when_the_condition_is_asked_for():
    """The registry imports a condition's module on first read (the condition
    registry loads lazily): a type-1 check from the command line reads type1 only, as the library
    call does — not type2 (passing every option flag at its default would
    read type2's default, which imports it), mha, type1-full or the DeepSeek modules."""
    code = (
        "from identcheck.cli.main import main\nimport contextlib, io, json, sys\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['check', 'z', '--dim', '1'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('identcheck.conditions.') or 'expert' in m)))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert json.loads(out.strip().splitlines()[-1]) == ["identcheck.conditions.base", "identcheck.conditions.type1"]
