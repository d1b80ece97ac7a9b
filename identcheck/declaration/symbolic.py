r"""The declared model's per-atom functions, symbolically (sympy): what numeric turns into array
code (``lambdify``/codegen, once) and what the model-level check differentiates.

For one atom of part p with parameters θ = (gate's, expert's η, variance ν), input x = (x1 … xd):

- the gate **score** s(x; θ) and **factor** g(x; θ) (:mod:`.gates`): softmax exp(β1ᵀx + β0),
  sigmoid and normalised sigmoid σ(β1ᵀx + β0), Laplace exp(−‖W − x‖ + β), quadratic exp(xᵀMx)
  (xᵀMx = Σ_i M_ii x_i² + 2 Σ_{i<j} M_ij x_i x_j, M's free entries the upper triangle), constant ω;
  a normalised gate's weight is w_i = g_i / Σ_j g_j (:func:`gate_weights`), a top-K gate's also
  masked to the K atoms with the largest ``selection`` score β1ᵀx (array code, not sympy);
- the **expert** h(x; η), from identcheck's expert grammar (``relu`` as ``Max(0, ·)``, whose
  derivative sympy writes as Heaviside: the almost-everywhere derivative);
- for a mixture of densities the Gaussian **density** N(y | h, ν) = exp(−(y − h)²/(2ν)) / √(2πν);
- the atom's **term** F = g · h (regression) or g · N(y | h, ν) (density): the per-atom function of
  the Taylor expansion f_G − f_{G*} (docs/declaration.md, "Symbolic form");
- a **nested** part (:mod:`.nested`): the inner mixture inner(x) = Σ_i w_i(x) h_i(x) over its N
  components, each component's parameters their own symbols (``a_c1_2``: component 1, entry 2;
  label ``a[1]⁽²⁾``), the reference component's shift-invariant gate parameters zero (M_N = 0:
  no symbols), substituted for ``inner`` in the outer expert; ``tied`` marks the parameters that
  are one per group.

:func:`model_function` assembles the whole regression function or density for given atom counts,
each atom's symbols renamed ``NAME__PART_I`` (:meth:`AtomFunctions.indexed`; a tied parameter
``NAME__PART_gG``, one per group G), and :func:`truth_values` gives the truth's values in those
symbols. Nothing here is evaluated numerically: numeric lambdifies these expressions once, before
a fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy as sp

from ..errors import IdentcheckError
from .gates import GATES, GateParameter
from .model import Atom, Declaration, Gate, Part, as_number, as_tuple
from .nested import INNER, Inner

__all__ = ["AtomFunctions", "atom_functions", "gate_weights", "model_function", "part_layout", "truth_values"]

Y = sp.Symbol("y", real=True)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class AtomFunctions:
    """One atom's symbolic functions (see the module's docstring). ``params`` is the flat
    parameter vector θ, ``labels`` one label per entry; ``names`` the declared parameter each
    entry belongs to, ``entries`` where in its value: (name, component or None, index) with index
    () for a scalar, (j,) for a vector's entry, (j, l) for a symmetric matrix's (j ≤ l); ``tied``
    whether the entry is one per group. A nested part's ``inner`` is its inner mixture's value,
    ``inner_weights`` and ``inner_experts`` the components' w_i and h_i."""

    part: str
    x: tuple
    y: sp.Symbol | None
    params: tuple
    labels: tuple
    names: tuple
    score: sp.Expr | None
    selection: sp.Expr | None
    factor: sp.Expr
    normalised: bool
    expert: sp.Expr
    density: sp.Expr | None
    term: sp.Expr
    entries: tuple = ()
    tied: tuple = ()
    inner: sp.Expr | None = None
    inner_weights: tuple = ()
    inner_experts: tuple = ()

    def values(self, atom: Atom) -> dict:
        """``{symbol: exact value}`` for a declared atom (a decimal as written: 0.4 → 2/5)."""
        out = {}
        for symbol, (name, component, index) in zip(self.params, self.entries):
            value = atom[name] if component is None else as_tuple(atom[name])[component]
            for i in index:
                value = as_tuple(value)[i]
            out[symbol] = _exact(as_number(value))
        return out

    def indexed(self, index: int, group: int | None = None) -> dict:
        """``{symbol: the symbol of atom index (0-based)}``: θ's symbols renamed ``NAME__PART_I``;
        with its ``group`` (0-based), a tied parameter's ``NAME__PART_gG``, shared by the group."""
        tied = self.tied if group is not None else (False,) * len(self.params)
        shared = "" if group is None else f"g{group + 1}"  # a tied parameter's suffix (none without a group)
        return {
            s: sp.Symbol(f"{s.name}__{self.part}_{shared if one else index + 1}", **s.assumptions0)
            for s, one in zip(self.params, tied)
        }


def atom_functions(declaration: Declaration, part: str | Part) -> AtomFunctions:
    """The per-atom functions of ``part`` (a part or its name) of ``declaration``."""
    part = declaration.part(part) if isinstance(part, str) else part
    expert = part.expert.parsed
    x = expert.x
    params, labels, names, entries, values = _symbols(GATES[part.gate.kind].parameters, len(x))
    score, selection, factor = _gate(part.gate, x, values)
    for name, symbols, labelled in _expert_symbols(expert, part.expert.names):
        params += symbols
        labels += labelled
        names += [name] * len(symbols)
        entries += [(name, None, (j,) if name in expert.vectors else ()) for j in range(len(symbols))]
    h, inner = expert.h, None
    weights = experts = ()
    if part.inner is not None:
        inner, weights, experts, more = _inner(part.inner, x)
        for extended, added in zip((params, labels, names, entries), more):
            extended += added
        h = h.xreplace({sp.Symbol(INNER, real=True): inner})
    density = variance = None
    term = factor * h
    if declaration.noise.density:
        variance = sp.Symbol(part.variance, positive=True)
        params.append(variance)
        labels.append(part.variance)
        names.append(part.variance)
        entries.append((part.variance, None, ()))
        density = sp.exp(-((Y - h) ** 2) / (2 * variance)) / sp.sqrt(2 * sp.pi * variance)
        term = factor * density
    return AtomFunctions(
        part=part.name,
        x=x,
        y=Y if declaration.noise.density else None,
        params=tuple(params),
        labels=tuple(labels),
        names=tuple(names),
        score=score,
        selection=selection,
        factor=factor,
        normalised=GATES[part.gate.kind].normalised,
        expert=h,
        density=density,
        term=term,
        entries=tuple(entries),
        tied=tuple(name in part.tied for name in names),
        inner=inner,
        inner_weights=weights,
        inner_experts=experts,
    )


def _inner(inner: Inner, x):
    """(inner(x), (w_1 … w_N), (h_1 … h_N), (params, labels, names, entries)) of a nested part's
    ``inner`` mixture."""
    pinned, reference = inner.pinned, inner.gate.reference
    parameters = GATES[inner.gate.kind].parameters
    by_component = [
        _symbols(parameters, len(x), i, zero=pinned if i == reference else ()) for i in range(inner.components)
    ]
    factors = [_gate(inner.gate, x, values)[2] for *_, values in by_component]
    expert = inner.expert.parsed
    renamed = []
    for i in range(inner.components):
        rename: dict[sp.Symbol, sp.Symbol] = {}
        for name, symbols, _ in _expert_symbols(expert, inner.expert.names):
            rename |= {s: _component_symbol(s, name, i) for s in symbols}
        renamed.append(rename)
    experts = tuple(expert.h.xreplace(rename) for rename in renamed)
    total = sp.Add(*factors)
    weights = tuple(f / total for f in factors) if GATES[inner.gate.kind].normalised else tuple(factors)
    params, labels, names, entries = [], [], [], []
    for parameter in parameters:  # the gate's, by parameter then component
        for symbols, labelled, named, where, _ in by_component:
            chosen = [k for k, n in enumerate(named) if n == parameter.name]
            params += [symbols[k] for k in chosen]
            labels += [labelled[k] for k in chosen]
            names += [named[k] for k in chosen]
            entries += [where[k] for k in chosen]
    for name, symbols, labelled in _expert_symbols(expert, inner.expert.names):  # the expert's
        for i, rename in enumerate(renamed):
            params += [rename[s] for s in symbols]
            labels += [_component_label(label, name, i) for label in labelled]
            names += [name] * len(symbols)
            entries += [(name, i, (j,) if name in expert.vectors else ()) for j in range(len(symbols))]
    value = sp.Add(*(w * e for w, e in zip(weights, experts)))
    return value, weights, experts, (params, labels, names, entries)


def _expert_symbols(expert, names):
    """(name, its symbols, their labels) of each of the expert's parameters ``names``, in order."""
    out, at = [], 0
    for name in expert.names:
        size = expert.dim if name in expert.vectors else 1
        if name in names:
            out.append((name, list(expert.params[at : at + size]), list(expert.labels[at : at + size])))
        at += size
    return out


def _component_symbol(symbol: sp.Symbol, name: str, component: int) -> sp.Symbol:
    """``a_2`` of component i → ``a_c{i}_2``; ``e`` → ``e_c{i}``."""
    rest = symbol.name[len(name) :]
    return sp.Symbol(f"{name}_c{component + 1}{rest}", **symbol.assumptions0)


def _component_label(label: str, name: str, component: int) -> str:
    return f"{name}[{component + 1}]{label[len(name) :]}"


def gate_weights(functions: AtomFunctions, count: int, groups: tuple | None = None) -> tuple:
    """The gate weights w_1 … w_count of ``count`` atoms, in the atoms' indexed symbols
    (:meth:`AtomFunctions.indexed`; ``groups``: each atom's group, for tied parameters); a top-K
    gate's before its mask."""
    groups = groups or (None,) * count
    factors = [functions.factor.xreplace(functions.indexed(i, groups[i])) for i in range(count)]
    if not functions.normalised:
        return tuple(factors)
    total = sp.Add(*factors)
    return tuple(f / total for f in factors)


def part_layout(part: Part, count=None) -> tuple:
    """Each atom's group in :func:`model_function`'s order (None: no groups): ``count`` atoms
    (default the truth's), or for a part with groups the atoms per group (default the truth's
    group sizes), atoms numbered group by group."""
    if part.groups is None:
        return (None,) * (len(part.truth) if count is None else count)
    sizes = part.groups.sizes() if count is None else tuple(count)
    return tuple(g for g, size in enumerate(sizes) for _ in range(size))


def model_function(declaration: Declaration, counts: dict | None = None) -> sp.Expr:
    """The regression function g(x) or the density f(y | x) with ``counts[part]`` atoms per part
    (default: the truth's; a part with groups: a tuple of atoms per group), in the atoms' indexed
    symbols; a free share is the symbol ``share__PART``. A top-K gate is refused: its mask is not a
    sympy expression."""
    total = []
    for part in declaration.parts:
        if part.gate.kind == "top-k":
            raise IdentcheckError(
                param=f"parts.{part.name}.gate.kind",
                value="top-k",
                reason="a top-K selection is no sympy expression; build it from atom_functions and its selection",
            )
        functions = atom_functions(declaration, part)
        groups = part_layout(part, (counts or {}).get(part.name))
        weights = gate_weights(functions, len(groups), groups)
        # a density's per-atom density (atom_functions gives one exactly when the noise is a density), else the expert
        inner = functions.density if functions.density is not None else functions.expert
        mixture = sp.Add(
            *(w * inner.xreplace(functions.indexed(i, g)) for i, (w, g) in enumerate(zip(weights, groups)))
        )
        if declaration.noise.density:
            share = sp.Symbol(f"share__{part.name}", positive=True)  # a free share
            if declaration.shares == "fixed":
                assert part.share is not None  # the reader gives every part of a density its share
                share = _exact(part.share)
            mixture = share * mixture
        total.append(mixture)
    return sp.Add(*total)


def truth_values(declaration: Declaration) -> dict:
    """``{indexed symbol: exact value}`` of the truth, in :func:`model_function`'s default layout
    (a part with groups: its atoms group by group, in the truth's order within a group)."""
    out: dict[sp.Symbol, sp.Rational] = {}
    for part in declaration.parts:
        functions = atom_functions(declaration, part)
        groups = part.groups.of if part.groups is not None else (None,) * len(part.truth)
        ordered = sorted(zip(groups, range(len(groups)), part.truth), key=lambda t: (t[0] or 0, t[1]))
        for index, (group, _, atom) in enumerate(ordered):
            out |= {functions.indexed(index, group)[s]: v for s, v in functions.values(atom).items()}
    return out


def _symbols(parameters: tuple[GateParameter, ...], dim: int, component: int | None = None, zero: tuple[str, ...] = ()):
    """Symbols for gate ``parameters`` (of one inner ``component``: named ``NAME_cI…``), with
    labels, declared names, entries and a name → value-expression map; the parameters in ``zero``
    are zeros, with no symbols (a pinned reference component)."""
    symbols: list[sp.Symbol] = []
    labels: list[str] = []
    names: list[str] = []
    entries: list[tuple[str, int | None, tuple[int, ...]]] = []
    values: dict[str, Any] = {}  # a scalar's expression, a vector's tuple, a matrix's {(j, l): entry}
    tag = "" if component is None else f"_c{component + 1}"
    for parameter in parameters:
        name = parameter.name
        shown = name if component is None else f"{name}[{component + 1}]"
        pairs: list[tuple[int, ...]]
        if parameter.shape == "scalar":
            pairs = [()]
        elif parameter.shape == "vector":
            pairs = [(j,) for j in range(dim)]
        else:
            pairs = [(j, l) for j in range(dim) for l in range(j, dim)]
        suffix = {(): ""} | {p: "_" + "".join(str(j + 1) for j in p) for p in pairs if p}
        made = {p: sp.S.Zero if name in zero else sp.Symbol(f"{name}{tag}{suffix[p]}", real=True) for p in pairs}
        if name not in zero:
            symbols += made.values()
            labels += [shown + (f"⁽{suffix[p][1:].translate(_SUPERSCRIPT)}⁾" if p else "") for p in pairs]
            names += [name] * len(pairs)
            entries += [(name, component, p) for p in pairs]
        if parameter.shape == "scalar":
            values[name] = made[()]
        elif parameter.shape == "vector":
            values[name] = tuple(made[p] for p in pairs)
        else:
            values[name] = {p: made[p] for p in pairs}
    return symbols, labels, names, entries, values


def _gate(gate: Gate, x, values):
    """(score, selection, factor) of a gate."""
    kind = gate.kind
    if kind == "constant":
        return None, None, values["omega"]
    if kind == "laplace":
        score = -sp.sqrt(sp.Add(*((w - xi) ** 2 for w, xi in zip(values["W"], x)))) + values["beta"]
        return score, None, sp.exp(score)
    if kind == "quadratic-softmax":
        entries = values["M"]
        score = sp.Add(*((1 if i == j else 2) * m * x[i] * x[j] for (i, j), m in entries.items()))
        return score, None, sp.exp(score)
    slope = sp.Add(*(b * xi for b, xi in zip(values["beta1"], x)))
    score = slope + values["beta0"]
    exponential = kind == "softmax" or (kind == "top-k" and gate.of == "softmax")
    factor = sp.exp(score) if exponential else 1 / (1 + sp.exp(-score))
    return score, (slope if kind == "top-k" else None), factor


def _exact(value: float) -> sp.Rational:
    fraction = Fraction(repr(float(value)))
    return sp.Rational(fraction.numerator, fraction.denominator)
