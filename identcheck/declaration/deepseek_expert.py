r"""The DeepSeekMoE declaration with the user's expert in one part: the model that
``numeric confirm --condition deepseek-* --expert EXPR`` fits and that
``identcheck catalog --experts --model-level`` checks (docs/confirm.md, docs/model.md).

**The model.** The shipped declaration ``deepseek-tanh`` (arXiv 2505.10860's model (1), Gaussian
mixture, softmax-routed and constant-gated shared parts, X ~ U[−3, 3], d = 1):

    f(y | x) = ½ Σ_i ω_i N(y | h1(x, κ_i), τ_i) + ½ Σ_i softmax_i(β1ᵢᵀx + β0ᵢ) N(y | h2(x, η_i), ν_i),

with the user's expert put in as h2 (``deepseek-routed``, ``deepseek-weak``: :data:`PART_FOR`) or
h1 (``deepseek-shared``); the other part keeps the declaration's tanh expert and truth (for
``deepseek-shared`` the routed gate made to vary in x: β1 = (1, 0), β0 = (−1, 0) — the printed
β1 = (5, 5) normalises to a gate constant in x, whose denominator couples the model-level check's
cells). The expert's part holds the given atoms with gates that vary in x (routed: β1 = 1, −½, …
and β0 = ¼, −¼, … relative to the last atom; shared: weights ω_i ∝ 1 + i/2), variance 0.4, and
fits one atom more. The loss is the declaration's D1 with the user's parameters as the expert
term (exponent 1 on a cell of one atom, 2 on larger cells).

:func:`expert_declaration_data` gives the declaration as TOML data (:func:`declaration_toml`
writes it as a file ``identcheck model`` reads), :func:`expert_declaration` the parsed
:class:`~identcheck.declaration.Declaration`; :func:`generic_atoms` draws a generic truth from a
seed. Bad input is an :class:`~identcheck.errors.IdentcheckError` naming ``expert`` (or
``condition``), with nothing built.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import tomllib
from typing import Any, Sequence

import numpy as np

from ..errors import IdentcheckError
from ..parse.expert import Expert, parse_expert
from .model import Declaration
from .reader import parse_declaration
from .shipped import example_path

__all__ = [
    "BASE",
    "PART_FOR",
    "RESERVED",
    "VARIANCE",
    "declaration_toml",
    "expert_declaration",
    "expert_declaration_data",
    "generic_atoms",
    "parse_base_expert",
]

#: The shipped declaration the user's expert is put into.
BASE = "deepseek-tanh"
#: condition → the part that holds the user's expert
PART_FOR = {"deepseek-routed": "routed", "deepseek-shared": "shared", "deepseek-weak": "routed"}
#: The variance of the expert's true atoms.
VARIANCE = 0.4
_BETA1 = (1.0, -0.5, 0.75, -1.0)
_BETA0 = (0.25, -0.25, 0.5, -0.5)
#: Names the declaration's gates and variances use: an expert's parameter may not take them.
RESERVED = ("x", "y", "beta0", "beta1", "omega", "nu", "tau")


def _fail(expert: str, reason: str):
    raise IdentcheckError(param="expert", value=expert, reason=reason)


def _base() -> dict:
    return tomllib.loads(example_path(BASE).read_text(encoding="utf-8"))


def parse_base_expert(expert_text: str) -> Expert:
    """The expert parsed at the base declaration's input dimension (d = 1), with a name that the
    declaration's gate or variance uses refused (:data:`RESERVED`)."""
    dim = _base()["inputs"]["dim"]
    try:
        expert = parse_expert(expert_text, dim)
    except IdentcheckError as exc:
        _fail(expert_text, str(exc.reason if getattr(exc, "reason", None) else exc))
    clash = sorted(set(expert.names) & set(RESERVED))
    if clash:
        _fail(expert_text, f"its parameter {clash[0]!r} is a name the declaration's gate or variance uses")
    return expert


def generic_atoms(expert: Expert, seed: int, count: int = 2) -> list[tuple]:
    """``count`` atoms of the expert's flat parameters: each entry ±U[½, 3/2] from ``seed``, the
    atoms distinct."""
    rng = np.random.default_rng([seed, 0xE4])
    size = len(expert.params)
    return [tuple(rng.choice((-1.0, 1.0), size) * rng.uniform(0.5, 1.5, size)) for _ in range(count)]


def _atom_table(expert: Expert, values, names_of_part: dict) -> dict:
    """The declaration's truth entry for flat parameter ``values`` (expert.params order)."""
    out: dict[str, Any] = {}
    position = 0
    for name in expert.names:
        if name in expert.vectors:
            out[name] = [float(v) for v in values[position : position + expert.dim]]
            position += expert.dim
        else:
            out[name] = float(values[position])
            position += 1
    return out | names_of_part


def expert_declaration_data(condition: str, expert_text: str, atoms: Sequence[Sequence[float]]) -> dict:
    """The declaration (TOML data) of the module docstring with the expert's part holding ``atoms``
    (each the expert's flat parameters, identcheck's order)."""
    if condition not in PART_FOR:
        raise IdentcheckError(
            param="condition", value=condition, reason=f"no declaration holds its expert (choose {', '.join(PART_FOR)})"
        )
    data = _base()
    dim = data["inputs"]["dim"]
    expert = parse_base_expert(expert_text)
    part = PART_FOR[condition]
    spec = copy.deepcopy(data["parts"][part])
    variance = spec["variance"]
    k = len(atoms)
    entries = []
    gate: dict[str, Any]
    for i, values in enumerate(atoms):
        if part == "routed":
            gate = {"beta1": 0.0, "beta0": 0.0} if i == k - 1 else {"beta1": _BETA1[i % 4], "beta0": _BETA0[i % 4]}
            gate = {key: ([v] * dim if key == "beta1" and dim > 1 else v) for key, v in gate.items()}
        else:
            gate = {"omega": (1 + i / 2) / sum(1 + j / 2 for j in range(k))}
        entries.append(_atom_table(expert, values, gate | {variance: VARIANCE}))
    if part == "shared":  # the routed truth's gate made to vary in x (the printed beta1 = (5, 5) normalises to 0)
        for other, beta1 in zip(data["parts"]["routed"]["truth"], (1.0, 0.0)):
            other["beta1"], other["beta0"] = beta1, 0.0 if beta1 == 0.0 else -1.0
    spec["expert"] = expert_text
    spec["truth"] = entries
    spec["fitted"] = k + 1
    data["parts"][part] = spec
    functions = data.get("functions", {})
    if "phi" in functions and "phi(" not in data["parts"]["shared" if part == "routed" else "routed"]["expert"]:
        functions.pop("phi")
    loss = data["loss"]["parts"][part]
    gate_cells = [c for c in loss["cells"] if c in ("beta1",)]
    loss["cells"] = gate_cells + list(expert.names) + [variance]
    loss["terms"] = [t for t in loss["terms"] if t["params"] in (["beta1"],)] + [
        {"params": list(expert.names), "exact": 1, "over": 2},
        {"params": [variance], "exact": 1, "over": 2},
    ]
    data["name"] = f"{BASE}-{part}-confirm"
    return data


def expert_declaration(condition: str, expert_text: str, atoms: Sequence[Sequence[float]]) -> Declaration:
    """:func:`expert_declaration_data` parsed; a declaration that cannot hold the expert is refused
    naming ``expert``."""
    data = expert_declaration_data(condition, expert_text, atoms)
    try:
        return parse_declaration(data)
    except IdentcheckError as exc:
        _fail(expert_text, f"the declaration cannot hold it ({exc})")
        raise  # unreachable: _fail raises


def _value(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):  # numpy's floats too, written as Python's float repr
        value = float(value)
        if not math.isfinite(value):
            raise ValueError(f"no TOML for {value!r}")
        return repr(value)
    if isinstance(value, str):
        if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
            raise ValueError(f"no TOML for {value!r}: a lone surrogate is not a Unicode scalar value")
        # a JSON string is a TOML basic string but for DEL (U+007F), which TOML requires escaped
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else json.dumps(key)


def _table(data: dict, path: tuple, lines: list) -> None:
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    for key, value in data.items():
        if key not in tables:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in tables.items():
        lines += ["", "[" + ".".join(_key(k) for k in (*path, key)) + "]"]
        _table(value, (*path, key), lines)


def declaration_toml(data: dict) -> str:
    """``data`` (a declaration's TOML data, as :func:`expert_declaration_data` gives) as TOML text that
    :func:`tomllib.loads` reads back equal: tables as sections, arrays of tables inline."""
    lines: list[str] = []
    _table(data, (), lines)
    return "\n".join(lines) + "\n"
