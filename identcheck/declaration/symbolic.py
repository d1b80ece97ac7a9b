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
  the Taylor expansion f_G − f_{G*} (docs/declaration.md, "Symbolic form").

:func:`model_function` assembles the whole regression function or density for given atom counts,
each atom's symbols renamed ``NAME__PART_I`` (:meth:`AtomFunctions.indexed`). Nothing here is
evaluated numerically: numeric lambdifies these expressions once, before a fit.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from ..errors import IdentcheckError
from .gates import GATES
from .model import Atom, Declaration, Part

__all__ = ["AtomFunctions", "atom_functions", "gate_weights", "model_function"]

Y = sp.Symbol("y", real=True)
_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class AtomFunctions:
    """One atom's symbolic functions (see the module's docstring). ``params`` is the flat
    parameter vector θ, ``labels`` one label per entry; ``names`` the declared parameter each
    entry belongs to."""

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

    def values(self, atom: Atom) -> dict:
        """``{symbol: exact value}`` for a declared atom (a decimal as written: 0.4 → 2/5)."""
        flat = []
        for name in dict.fromkeys(self.names):
            value = atom[name]
            if isinstance(value, tuple) and value and isinstance(value[0], tuple):  # symmetric: upper triangle
                flat += [value[i][j] for i in range(len(value)) for j in range(i, len(value))]
            elif isinstance(value, tuple):
                flat += list(value)
            else:
                flat.append(value)
        return {symbol: _exact(v) for symbol, v in zip(self.params, flat)}

    def indexed(self, index: int) -> dict:
        """``{symbol: the symbol of atom index (0-based)}``: θ's symbols renamed ``NAME__PART_I``."""
        return {s: sp.Symbol(f"{s.name}__{self.part}_{index + 1}", **s.assumptions0) for s in self.params}


def atom_functions(declaration: Declaration, part: str | Part) -> AtomFunctions:
    """The per-atom functions of ``part`` (a part or its name) of ``declaration``."""
    part = declaration.part(part) if isinstance(part, str) else part
    expert = part.expert.parsed
    x = expert.x
    gate_symbols, gate_labels, gate_names, values = _gate_symbols(part, len(x))
    score, selection, factor = _gate(part, x, values)
    params, labels, names = list(gate_symbols), list(gate_labels), list(gate_names)
    params += list(expert.params)
    labels += list(expert.labels)
    names += [n for n in expert.names for _ in range(len(x) if n in expert.vectors else 1)]
    density = variance = None
    term = factor * expert.h
    if declaration.noise.density:
        variance = sp.Symbol(part.variance, positive=True)
        params.append(variance)
        labels.append(part.variance)
        names.append(part.variance)
        density = sp.exp(-((Y - expert.h) ** 2) / (2 * variance)) / sp.sqrt(2 * sp.pi * variance)
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
        expert=expert.h,
        density=density,
        term=term,
    )


def gate_weights(functions: AtomFunctions, count: int) -> tuple:
    """The gate weights w_1 … w_count of ``count`` atoms, in the atoms' indexed symbols
    (:meth:`AtomFunctions.indexed`); a top-K gate's before its mask."""
    factors = [functions.factor.xreplace(functions.indexed(i)) for i in range(count)]
    if not functions.normalised:
        return tuple(factors)
    total = sp.Add(*factors)
    return tuple(f / total for f in factors)


def model_function(declaration: Declaration, counts: dict | None = None) -> sp.Expr:
    """The regression function g(x) or the density f(y | x) with ``counts[part]`` atoms per part
    (default: the truth's), in the atoms' indexed symbols; a free share is the symbol
    ``share__PART``. A top-K gate is refused: its mask is not a sympy expression."""
    total = []
    for part in declaration.parts:
        if part.gate.kind == "top-k":
            raise IdentcheckError(
                param=f"parts.{part.name}.gate.kind",
                value="top-k",
                reason="a top-K selection is no sympy expression; build it from atom_functions and its selection",
            )
        functions = atom_functions(declaration, part)
        count = (counts or {}).get(part.name, len(part.truth))
        weights = gate_weights(functions, count)
        inner = functions.density if declaration.noise.density else functions.expert
        mixture = sp.Add(*(w * inner.xreplace(functions.indexed(i)) for i, w in enumerate(weights)))
        if declaration.noise.density:
            free = sp.Symbol(f"share__{part.name}", positive=True)
            mixture = (_exact(part.share) if declaration.shares == "fixed" else free) * mixture
        total.append(mixture)
    return sp.Add(*total)


def _gate_symbols(part: Part, dim: int):
    """The gate's parameter symbols, labels, declared names, and a name → value-expression map."""
    symbols, labels, names, values = [], [], [], {}
    for parameter in GATES[part.gate.kind].parameters:
        name = parameter.name
        if parameter.shape == "scalar":
            symbol = sp.Symbol(name, real=True)
            symbols.append(symbol)
            labels.append(name)
            names.append(name)
            values[name] = symbol
        elif parameter.shape == "vector":
            vector = tuple(sp.Symbol(f"{name}_{i + 1}", real=True) for i in range(dim))
            symbols += vector
            labels += [f"{name}⁽{str(i + 1).translate(_SUPERSCRIPT)}⁾" for i in range(dim)]
            names += [name] * dim
            values[name] = vector
        else:
            pairs = [(i, j) for i in range(dim) for j in range(i, dim)]
            entries = {(i, j): sp.Symbol(f"{name}_{i + 1}{j + 1}", real=True) for i, j in pairs}
            symbols += entries.values()
            labels += [f"{name}⁽{f'{i + 1}{j + 1}'.translate(_SUPERSCRIPT)}⁾" for i, j in pairs]
            names += [name] * len(entries)
            values[name] = entries
    return symbols, labels, names, values


def _gate(part: Part, x, values):
    """(score, selection, factor) of the part's gate."""
    kind = part.gate.kind
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
    exponential = kind == "softmax" or (kind == "top-k" and part.gate.of == "softmax")
    factor = sp.exp(score) if exponential else 1 / (1 + sp.exp(-score))
    return score, (slope if kind == "top-k" else None), factor


def _exact(value: float) -> sp.Rational:
    fraction = Fraction(repr(float(value)))
    return sp.Rational(fraction.numerator, fraction.denominator)
