"""Read a model declaration from TOML (stdlib ``tomllib``) into a :class:`~.model.Declaration`.

The format is docs/declaration.md. Reading validates at the boundary, one refusal per line naming
the key (:mod:`.keys`): an unknown key or gate, an expert the grammar refuses, a truth parameter
the part does not have, a missing atom or parameter, a variance ≤ 0 or below the floor, a weight
ω ≤ 0 in a density, weights or shares that do not sum to one in a density (|Σ − 1| >
:data:`SUM_TOLERANCE`), a fitted count below the truth's, a top-K above the atoms, a reference atom
that does not exist, and the loss's own refusals (:mod:`.read_loss`). Expert text goes through
identcheck's expert grammar (never ``eval`` or ``sympify``), with ``relu`` accepted for simulation
(:meth:`.Declaration.refusal`).

Declared functions (``[functions]``, :mod:`.functions`) are written out in the experts before the
grammar reads them; a nested part's inner mixture and groups are read by :mod:`.read_nested`;
further named losses (``[losses.NAME]``) like ``[loss]``.

After validation a shift-invariant gate's truth is normalised to its reference atom, and a
shift-invariant inner gate's to its reference component (:mod:`.normalise`), with a note.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..errors import IdentcheckError
from ..parse.expert import parse_expert
from ..util.limits import MAX_DIM
from .atoms import MAX_ATOMS, read_atoms
from .functions import expand, read_functions
from .gates import GATES, TOP_K_OF
from .keys import Table, fail, identifier, suggestion
from .model import Atom, Declaration, ExpertSpec, Gate, Inputs, Noise, Part, as_number
from .nested import INNER, Inner
from .normalise import normalise
from .read_loss import read_loss
from .read_nested import MAX_COMPONENTS, check_fitted, check_names, read_groups, read_nested_truth

__all__ = ["SUM_TOLERANCE", "parse_declaration", "read_declaration"]

#: |Σ weights − 1| allowed for weights and shares that must sum to one (TOML decimals: 0.1 + 0.2 + 0.7)
SUM_TOLERANCE = 1e-9
NOISES = ("gaussian-mixture", "gaussian-regression")
INPUTS = ("uniform", "normal")


def read_declaration(path, functions: dict | None = None) -> Declaration:
    """The declaration in the TOML file ``path``; a file that is not TOML is refused in one line.
    ``functions`` replaces declared functions' texts (``{"phi": "tanh(z)"}``: the same model with
    another φ)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise IdentcheckError(param="model_file", value=str(path), reason=f"cannot be read ({exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IdentcheckError(param="model_file", value=str(path), reason=f"not TOML ({exc})") from None
    return parse_declaration(data, functions)


def parse_declaration(data, functions: dict | None = None) -> Declaration:
    """The declaration in ``data``: TOML text, or the mapping ``tomllib`` reads from it;
    ``functions`` as in :func:`read_declaration`."""
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
    declared = read_functions(top.table("functions", {}), functions)
    table = top.table("parts")
    if not table.data:
        fail("parts", reason="missing: declare at least one part, [parts.NAME]")
    called: set[str] = set()
    parts = tuple(
        _part(table.table(key), identifier(key, table.key(key)), inputs, noise, dict(declared), called)
        for key in sorted(table.data)
    )
    table.done()
    for function, text in declared:
        if function not in called:
            fail(f"functions.{function}", text, "declared, but no expert calls it")
    if noise.density:
        _sums_to_one([p.share for p in parts], "parts.*.share", "the parts' shares")
    parts, notes = normalise(parts)
    loss = read_loss(top.table("loss"), parts, inputs)
    others = top.table("losses", {})
    losses = tuple(
        (identifier(key, others.key(key)), read_loss(others.table(key), parts, inputs)) for key in sorted(others.data)
    )
    others.done()
    top.done()
    return Declaration(name, inputs, noise, parts, shares, loss, notes, description, source, declared, losses)


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


def _expert(table: Table, inputs: Inputs, functions: dict, called: set, bound=()) -> ExpertSpec:
    """The ``expert`` of ``table``, declared functions written out, read by the expert grammar."""
    text = table.text("expert")
    expanded, used = expand(text, functions, table.key("expert"))
    called |= used
    try:
        parsed = parse_expert(expanded, inputs.dim, simulation=True)
    except IdentcheckError as exc:
        fail(table.key("expert"), text, exc.reason)
    spec = ExpertSpec(text, parsed, tuple(name for name in bound if name in parsed.names))
    present = parsed.h.free_symbols
    for name in spec.names:
        own = [s for s in parsed.params if s.name == name or (name in parsed.vectors and s.name.startswith(name + "_"))]
        if own and not present.intersection(own):
            fail(table.key("expert"), text, f"the expression does not depend on {name!r}: declared, but unused")
    return spec


def _gate_kind(table: Table) -> str:
    kind = table.raw("kind")
    if kind not in GATES:
        fail(table.key("kind"), kind, f"unknown gate{suggestion(kind, GATES)}; known: {', '.join(GATES)}")
    return kind


def _part(table: Table, name: str, inputs: Inputs, noise: Noise, functions: dict, called: set) -> Part:
    gate_table = table.table("gate")
    kind = _gate_kind(gate_table)
    expert = _expert(table, inputs, functions, called, bound=(INNER,) if table.has("inner") else ())
    if INNER in expert.parsed.names and not table.has("inner"):
        fail(
            table.key("expert"),
            expert.text,
            f"uses {INNER!r}, the value of an inner mixture: declare [parts.{name}.inner]",
        )
    inner = _inner(table.table("inner"), inputs, functions, called, expert) if table.has("inner") else None
    variance = None
    if noise.density:
        variance = identifier(table.text("variance", "nu"), table.key("variance"))
    clash = set(GATES[kind].names) | ({variance} if variance else set())
    for used in expert.names + (inner.parameters if inner else ()):
        if used in clash or re.fullmatch(r"(beta1|W|M)_\d+", used):
            fail(
                table.key("expert"),
                expert.text,
                f"uses {used!r}, which names a gate parameter or the variance; rename it",
            )
    share = None
    if noise.density:
        share = table.number("share", 1.0)
        if not 0 < share <= 1:
            fail(table.key("share"), share, "a part's share of the density must be in (0, 1]")
    part = Part(name, Gate(kind), expert, (), 0, share, variance, inner)  # its shapes and parameters, for reading
    floor = noise.variance_floor if noise.density else None
    groups = None
    if inner is None and not table.has("groups"):
        truth = read_atoms(table, "truth", part.shapes, inputs.dim, variance, floor)
    else:
        grouping = read_groups(table.table("groups"), part.parameters) if table.has("groups") else None
        components = inner.components if inner else 0
        truth, groups = read_nested_truth(table, part.shapes, part.per_component, components, inputs.dim, grouping)
        if variance is not None:
            assert floor is not None  # a density's noise has its variance floor (_noise)
            _variances(truth, table.key("truth"), variance, floor)
    fitted = table.integer("fitted", high=MAX_ATOMS)
    if fitted < len(truth):
        fail(table.key("fitted"), fitted, f"below the truth's {len(truth)} atoms (a fit needs at least as many)")
    if groups is not None:
        check_fitted(table.key("fitted"), fitted, groups)
    gate = _gate(gate_table, kind, len(truth), fitted)
    table.done()
    if kind == "constant" and noise.density:
        for index, atom in enumerate(truth):
            if as_number(atom["omega"]) <= 0:  # (-0.5, 1.5) sums to one, and is no density
                fail(f"{table.key('truth')}[{index}].omega", atom["omega"], "a weight must be positive")
        _sums_to_one([atom["omega"] for atom in truth], table.key("truth") + "[*].omega", "the truth's weights omega")
    return Part(name, gate, expert, truth, fitted, share, variance, inner, groups)


def _inner(table: Table, inputs: Inputs, functions: dict, called: set, outer: ExpertSpec) -> Inner:
    if INNER not in outer.parsed.names:
        key = table.path.rsplit(".", 1)[0] + ".expert"
        fail(key, outer.text, f"does not use {INNER!r}, the value of the inner mixture declared beside it")
    components = table.integer("components", low=2, high=MAX_COMPONENTS)
    gate_table = table.table("gate")
    kind = _gate_kind(gate_table)
    if kind == "top-k":
        fail(gate_table.key("kind"), kind, "an inner mixture's gate weighs every component; top-k is for parts")
    gate = _gate(gate_table, kind, components, components)
    expert = _expert(table, inputs, functions, called)
    if INNER in expert.parsed.names:
        fail(table.key("expert"), expert.text, f"an inner mixture's expert cannot use {INNER!r} (one level of nesting)")
    table.done()
    check_names(
        table.key("expert"),
        expert.text,
        [("outer expert", outer.names), ("inner gate", GATES[kind].names), ("inner expert", expert.names)],
    )
    return Inner(components, gate, expert)


def _variances(truth: tuple[Atom, ...], key: str, variance: str, floor: float) -> None:
    for index, atom in enumerate(truth):
        where = f"{key}[{index}].{variance}"
        value = as_number(atom[variance])  # a variance's shape is "scalar"
        if value <= 0:
            fail(where, value, "a variance must be positive")
        if value < floor:
            fail(where, value, f"below noise.variance_floor={floor}")


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
