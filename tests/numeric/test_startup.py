"""Start-up (docs/performance.md, Start-up): importing numeric or its command line loads no heavy library; a command
loads what it needs when it runs, and still runs with one BLAS thread in numpy's and scipy's BLAS.
Every case runs in a fresh interpreter (sys.modules and threadpoolctl read there)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("sympy", "numpy", "scipy", "scipy.optimize", "flint", "matplotlib")
#: the machine's thread settings left out, so that the limit the command sets is what is seen
ENV = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}


def _run(code: str) -> dict:
    probe = (
        f"{code}\nimport json, sys\nprint(json.dumps({{'loaded': [m for m in {HEAVY!r} if m in sys.modules], "
        "**globals().get('report', {})}), file=sys.__stdout__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=ENV, capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


QUIET = (
    "import contextlib, io\nquiet = contextlib.ExitStack()\n"
    "quiet.enter_context(contextlib.redirect_stdout(io.StringIO()))\n"
    "quiet.enter_context(contextlib.redirect_stderr(io.StringIO()))\n"
)


@pytest.mark.parametrize(
    "code",
    [
        "import numeric",
        "import numeric.cli.main",
        QUIET + "from numeric.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
        QUIET + "from numeric.cli.main import main\ntry:\n    main(['confirm', '--help'])\n"
        "except SystemExit:\n    pass",
        # a bad flag
        QUIET + "from numeric.cli.main import main\nassert main(['fit', '--model', 'mha', '--n', '0']) == 2",
        "from numeric import NumericError, MODELS, OPTIMIZERS",  # light names stay light
    ],
    ids=["import", "import cli", "--help", "confirm --help", "bad flag", "light names"],
)
def test_nothing_heavy_loads_before_a_command_needs_it(code):
    assert _run(code)["loaded"] == []


def test_a_command_runs_with_one_blas_thread_in_numpys_and_scipys_blas():
    """The limit applies to the BLAS libraries loaded when it is set: the command line loads numpy's
    and scipy's before it (they are no longer loaded at import). The fit is a spy that reads
    threadpoolctl; after the command the libraries are back at their own thread count."""
    code = (
        QUIET
        + """import sys, types, threadpoolctl
def blas():
    return sorted((i["filepath"], i["num_threads"]) for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas")
fake = types.ModuleType("numeric.fitting.attention_fit")
inside = []
def fit(*args, **kwargs):
    inside.extend(blas())
    raise ValueError("spy")
fake.fit = fit
sys.modules["numeric.fitting.attention_fit"] = fake
from numeric.cli.main import main
assert main(["fit", "--model", "mha", "--K", "2", "--n", "200"]) == 1  # the spy's "internal error"
report = {"inside": inside, "after": blas()}
"""
    )
    report = _run(code)
    inside, after = report["inside"], report["after"]
    assert len(inside) >= 2 and {n for _, n in inside} == {1}  # numpy's and scipy's, one thread each
    assert [path for path, _ in inside] == [path for path, _ in after]
    if (os.cpu_count() or 1) > 1:
        assert max(n for _, n in after) > 1  # the limit, not the machine, made it one


def test_the_lazy_api_gives_the_functions_even_after_their_modules_loaded():
    code = (
        "import numeric.fitting.attention_fit, numeric.losses.measure\nimport numeric\n"
        "from numeric import fit, measure_loss\n"
        "assert callable(fit) and numeric.fit is fit and numeric.measure_loss is measure_loss\n"
        "assert sorted(numeric.__all__) == sorted(numeric._API) and set(numeric.__all__) <= set(dir(numeric))"
    )
    assert "numpy" in _run(code)["loaded"]


def test_the_command_lines_names_are_the_librarys():
    """numeric/cli/choices.py holds the names the parser offers; the registries take them from there."""
    from numeric import fit
    from numeric.cli import choices
    from numeric.fitting import optimizers
    from numeric.model import attention as models

    assert models.MODELS is choices.MODELS and optimizers.OPTIMIZERS is choices.OPTIMIZERS
    assert sys.modules["numeric.fitting.attention_fit"].OPTIMIZERS is choices.OPTIMIZERS and callable(fit)
