"""Read a model declaration from TOML (stdlib ``tomllib``) into a :class:`~.model.Declaration`.

The format is docs/declaration.md. Reading validates at the boundary, one refusal per line naming
the key (:mod:`.keys`): an unknown key or gate, an expert the grammar refuses, a truth parameter
the part does not have, a missing atom or parameter, a variance ≤ 0 or below the floor, weights
or shares that do not sum to one in a density (|Σ − 1| > :data:`SUM_TOLERANCE`), a fitted count
below the truth's, a top-K above the atoms, a reference atom that does not exist, and the loss's
own refusals (:mod:`.read_loss`). Expert text goes through identcheck's expert grammar (never
``eval`` or ``sympify``), with ``relu`` accepted for simulation (:meth:`.Declaration.refusal`).

After validation a shift-invariant gate's truth is normalised to its reference atom
(:mod:`.normalise`), with a note.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..errors import IdentcheckError
from ..parse.expert import parse_expert
from ..util.limits import MAX_DIM
from .atoms import MAX_ATOMS, read_atoms
from .gates import GATES, TOP_K_OF
from .keys import Table, fail, identifier, suggestion
from .model import Declaration, ExpertSpec, Gate, Inputs, Noise, Part
from .normalise import normalise
from .read_loss import read_loss

__all__ = ["SUM_TOLERANCE", "parse_declaration", "read_declaration"]

#: |Σ weights − 1| allowed for weights and shares that must sum to one (TOML decimals: 0.1 + 0.2 + 0.7)
SUM_TOLERANCE = 1e-9
NOISES = ("gaussian-mixture", "gaussian-regression")
INPUTS = ("uniform", "normal")


def read_declaration(path) -> Declaration:
    """The declaration in the TOML file ``path``; a file that is not TOML is refused in one line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IdentcheckError(param="model_file", value=str(path), reason=f"cannot be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IdentcheckError(param="model_file", value=str(path), reason=f"not TOML ({exc})") from None
    return parse_declaration(data)


def parse_declaration(data) -> Declaration:
    """The declaration in ``data``: TOML text, or the mapping ``tomllib`` reads from it."""
    if isinstance(data, str):
        try:
            data = tomllib.loads(data)
        except tomllib.TOMLDecodeError as exc:
            raise IdentcheckError(param="declaration", reason=f"not TOML ({exc})") from None
    top = Table(data, "")
    name = top.text("name")
    description = top.text("description", "")
    source = top.text("source", "")
    inputs = _inputs(top.table("inputs"))
    noise = _noise(top.table("noise"))
    shares = top.text("shares", "fixed" if noise.density else "sum")
    allowed = ("fixed", "free") if noise.density else ("sum",)
    if shares not in allowed:
        fail("shares", shares, f"a {noise.kind} model's parts are {' or '.join(allowed)}")
    table = top.table("parts")
    if not table.data:
        fail("parts", reason="missing: declare at least one part, [parts.NAME]")
    parts = tuple(_part(table.table(key), identifier(key, table.key(key)), inputs, noise) for key in sorted(table.data))
    table.done()
    if noise.density:
        _sums_to_one([p.share for p in parts], "parts.*.share", "the parts' shares")
    parts, notes = normalise(parts)
    loss = read_loss(top.table("loss"), parts, inputs)
    top.done()
    return Declaration(name, inputs, noise, parts, shares, loss, notes, description, source)


def _inputs(table: Table) -> Inputs:
    kind = table.text("kind", choices=INPUTS)
    dim = table.integer("dim", 1, high=MAX_DIM)
    low = high = None
    if kind == "uniform":
        low, high = table.number("low", -1.0), table.number("high", 1.0)
        if not low < high:
            fail(table.key("high"), high, f"must be above inputs.low={low}")
    table.done()
    return Inputs(kind, dim, low, high)


def _noise(table: Table) -> Noise:
    kind = table.text("kind", choices=NOISES)
    if kind == "gaussian-regression":
        sigma = table.number("sigma")
        if sigma <= 0:
            fail(table.key("sigma"), sigma, "the noise standard deviation must be positive")
        table.done()
        return Noise(kind, sigma=sigma)
    floor = table.number("variance_floor")
    if floor <= 0:
        fail(table.key("variance_floor"), floor, "must be positive (the Gaussian likelihood is unbounded as ν → 0)")
    table.done()
    return Noise(kind, variance_floor=floor)


def _part(table: Table, name: str, inputs: Inputs, noise: Noise) -> Part:
    gate_table = table.table("gate")
    kind = gate_table.raw("kind")
    if kind not in GATES:
        fail(gate_table.key("kind"), kind, f"unknown gate{suggestion(kind, GATES)}; known: {', '.join(GATES)}")
    text = table.text("expert")
    try:
        parsed = parse_expert(text, inputs.dim, simulation=True)
    except IdentcheckError as exc:
        fail(table.key("expert"), text, exc.reason)
    expert = ExpertSpec(text, parsed)
    variance = None
    if noise.density:
        variance = identifier(table.text("variance", "nu"), table.key("variance"))
    clash = set(GATES[kind].names) | ({variance} if variance else set())
    for used in expert.names:
        if used in clash or re.fullmatch(r"(beta1|W|M)_\d+", used):
            fail(table.key("expert"), text, f"uses {used!r}, which names a gate parameter or the variance; rename it")
    share = None
    if noise.density:
        share = table.number("share", 1.0)
        if not 0 < share <= 1:
            fail(table.key("share"), share, "a part's share of the density must be in (0, 1]")
    shapes = {p.name: p.shape for p in GATES[kind].parameters}
    shapes |= {n: "vector" if n in expert.vectors else "scalar" for n in expert.names}
    if variance:
        shapes[variance] = "scalar"
    floor = noise.variance_floor if noise.density else None
    truth = read_atoms(table, "truth", shapes, inputs.dim, variance, floor)
    fitted = table.integer("fitted", high=MAX_ATOMS)
    if fitted < len(truth):
        fail(table.key("fitted"), fitted, f"below the truth's {len(truth)} atoms (a fit needs at least as many)")
    gate = _gate(gate_table, kind, len(truth), fitted)
    table.done()
    if kind == "constant" and noise.density:
        _sums_to_one([atom["omega"] for atom in truth], table.key("truth") + "[*].omega", "the truth's weights omega")
    return Part(name, gate, expert, truth, fitted, share, variance)


def _gate(table: Table, kind: str, atoms: int, fitted: int) -> Gate:
    weights = reference = top_k = fitted_top_k = of = None
    if kind == "constant":
        weights = table.text("weights", "free", choices=("fixed", "free"))
        if weights == "fixed" and fitted != atoms:
            fail(table.key("weights"), weights, f"fixed weights are the truth's: fit {atoms} atoms, not {fitted}")
    if kind == "top-k":
        of = table.text("of", "softmax", choices=TOP_K_OF)
        top_k = table.integer("top_k", high=MAX_ATOMS)
        if top_k > atoms:
            fail(table.key("top_k"), top_k, f"above the truth's {atoms} atoms")
        fitted_top_k = table.integer("fitted_top_k", top_k, high=MAX_ATOMS)
        if fitted_top_k > fitted:
            fail(table.key("fitted_top_k"), fitted_top_k, f"above the {fitted} fitted atoms")
        if fitted_top_k < top_k:
            fail(table.key("fitted_top_k"), fitted_top_k, f"below the truth's top_k={top_k}")
    if kind in ("softmax", "laplace", "quadratic-softmax") or (kind == "top-k" and of == "softmax"):
        given = table.raw("reference", "last")
        if given == "last":
            reference = atoms - 1
        elif given == "first":
            reference = 0
        elif isinstance(given, int) and not isinstance(given, bool) and 1 <= given <= atoms:
            reference = given - 1
        else:
            fail(table.key("reference"), given, f"the reference atom is 'first', 'last' or 1 … {atoms}")
    table.done()
    return Gate(kind, weights, reference, top_k, fitted_top_k, of)


def _sums_to_one(values, key: str, what: str) -> None:
    total = sum(values)
    if abs(total - 1) > SUM_TOLERANCE:
        fail(key, reason=f"{what} sum to {total:.12g}, not 1 (a density's weights must)")
