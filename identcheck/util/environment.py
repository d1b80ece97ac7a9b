"""Where a result was computed: the versions and the BLAS that produced it.

Float64 results (margins, the minor an interval proof picks, the basis of a null space) depend
in their last bits on the BLAS kernel and on numpy's CPU dispatch; exact results (verdicts,
rationals, proofs) do not. Every JSON result carries :func:`environment` so that a difference
between two machines can be traced to what differs between them.

``environment()`` is

    {"identcheck": "0.1.0", "python": "3.11.7", "numpy": "2.4.6", "scipy": "1.17.1",
     "sympy": "1.14.0", "python-flint": "0.9.0", "platform": "Linux-…-x86_64",
     "blas": [{"library": "openblas", "version": "0.3.31", "architecture": "Haswell",
               "threading_layer": "pthreads", "num_threads": 1, "prefix": "libscipy_openblas"}]}

with ``blas`` from threadpoolctl's report of the libraries loaded in this process (numpy and
scipy each bring their own OpenBLAS; scipy's only where it was loaded), and a version ``None`` for a
package not installed.
"""

from __future__ import annotations

import functools
import platform
from importlib import metadata

__all__ = ["environment", "PACKAGES"]

#: distributions whose versions are recorded (the project itself first)
PACKAGES = ("identcheck", "numpy", "scipy", "sympy", "python-flint")
BLAS_FIELDS = ("version", "architecture", "threading_layer", "num_threads", "prefix")


@functools.cache  # an installed distribution's version does not change while the process runs
def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def blas() -> list:
    """The BLAS libraries loaded in this process, as threadpoolctl reports them — those the
    computation could use: numpy's always; scipy's when the command loaded scipy.linalg (numeric
    does; an identcheck check needs no scipy)."""
    import numpy  # noqa: F401  (loads numpy's BLAS)
    from threadpoolctl import threadpool_info

    return [
        {"library": info.get("internal_api")} | {key: info.get(key) for key in BLAS_FIELDS}
        for info in threadpool_info()
        if info.get("user_api") == "blas"
    ]


def environment() -> dict:
    """The versions of Python and of :data:`PACKAGES`, the platform, and the BLAS in use."""
    versions = {name: _version(name) for name in PACKAGES}
    return {
        "identcheck": versions["identcheck"],
        "python": platform.python_version(),
        **{name: versions[name] for name in PACKAGES[1:]},
        "platform": platform.platform(),
        "blas": blas(),
    }
