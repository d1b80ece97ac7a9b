"""Results record where they were computed (identcheck.util.environment)."""

import platform

import numpy
import scipy
import sympy
from threadpoolctl import threadpool_info

from identcheck.util.environment import environment

from ..shared_checks import checked


def test_versions_are_those_of_the_imported_packages():
    env = environment()
    assert (env["numpy"], env["scipy"], env["sympy"]) == (numpy.__version__, scipy.__version__, sympy.__version__)
    assert env["python"] == platform.python_version()
    assert env["identcheck"]  # installed (the README's quick start installs the project)
    import flint

    assert env["python-flint"] == flint.__version__


def test_the_blas_in_use_is_threadpoolctls_report():
    reported = [i for i in threadpool_info() if i["user_api"] == "blas"]
    env = environment()
    assert [b["architecture"] for b in env["blas"]] == [i.get("architecture") for i in reported]
    assert all(
        b["library"] == i["internal_api"] and b["version"] == i["version"] for b, i in zip(env["blas"], reported)
    )
    assert env["blas"], "numpy and scipy bring a BLAS"


def test_a_check_records_its_environment_and_the_blas_threads_it_ran_with():
    data = checked("tanh(z)", "type1", 2, False).to_dict()
    assert list(data["environment"]) == list(environment())
    assert all(b["num_threads"] == 1 for b in data["environment"]["blas"])  # the check limits BLAS to one thread
