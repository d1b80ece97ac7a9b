"""Every dataclass's annotations resolve (typing.get_type_hints): no forward reference to a name the
module never imports — ruff's F821 catches the same in CI (an unresolved
name, such as ProbeResult's IntervalCertificate once was, raises NameError here)."""

import dataclasses
import importlib
import pkgutil
import typing

import pytest

import identcheck
import numeric


def _dataclasses():
    for package in (identcheck, numeric):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if info.name.endswith(".__main__"):  # runs the CLI
                continue
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if dataclasses.is_dataclass(value) and isinstance(value, type) and value.__module__ == module.__name__:
                    yield pytest.param(value, id=f"{module.__name__}.{value.__name__}")


@pytest.mark.parametrize("cls", list(_dataclasses()))
def test_annotations_resolve(cls):
    hints = typing.get_type_hints(cls)
    assert set(hints) >= {f.name for f in dataclasses.fields(cls)}
