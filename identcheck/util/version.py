"""The project's version, written once: ``version`` in pyproject.toml, read back from the package metadata.

One distribution, ``identcheck``, ships both packages, so ``identcheck.__version__`` and
``numeric.__version__`` are the same string. It is read the first time it is asked for
(:func:`~identcheck.util.lazy.lazy_package`): :mod:`importlib.metadata` costs ~15 ms of start-up,
which ``import identcheck`` and ``identcheck --help`` do not pay.

Fallback, only when the distribution is not installed (the source tree on ``sys.path``): the
``version`` of the pyproject.toml beside the package, if it is this project's; else
:data:`UNKNOWN`, a PEP 440 version that sorts below every release and says it is not one.
"""

from __future__ import annotations

DISTRIBUTION = "identcheck"
#: the version when neither the metadata nor the source tree's pyproject.toml says it
UNKNOWN = "0+unknown"

__all__ = ["DISTRIBUTION", "UNKNOWN", "project_version"]


def project_version() -> str:
    """The installed distribution's version; without an installed distribution, the source tree's."""
    from importlib import metadata

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return _source_tree_version() or UNKNOWN


def _source_tree_version() -> str | None:
    """``[project] version`` of the pyproject.toml two folders above this file, if it is this project's."""
    import tomllib
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(path.read_text(encoding="utf-8")).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    version = project.get("version")
    return version if project.get("name") == DISTRIBUTION and isinstance(version, str) else None
