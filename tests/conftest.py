import os

import numpy  # noqa: F401  (loaded before the BLAS limit below, which applies to the libraries loaded)
import pytest
import scipy.linalg  # noqa: F401  (scipy's own OpenBLAS)
from hypothesis import HealthCheck, settings
from threadpoolctl import threadpool_limits

# The suite multiplies small matrices: one BLAS thread (two threads on a busy 2-core machine ran
# the checks' 500 x 100 SVDs ~35x slower). Tests that care about threads set their own limits.
_ONE_BLAS_THREAD = threadpool_limits(limits=1)

settings.register_profile("dev", max_examples=25, deadline=None)
settings.register_profile(
    "ci", max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_addoption(parser):
    parser.addoption("--regen-golden", action="store_true", help="rewrite the golden report files")


@pytest.fixture
def regen_golden(request):
    return request.config.getoption("--regen-golden")
