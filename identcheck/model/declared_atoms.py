r"""From a declared model (:mod:`identcheck.declaration`) to the atoms the model-level check takes.

A declared part's per-atom term (:func:`~identcheck.declaration.atom_functions`) is
gate factor × expert (regression) or gate factor × N(y | h, ν) (density). The check wants the
atom's weight p_i > 0 apart from F (:mod:`.atom`), so the part's gate must factor it out:

- ``constant``: ω_i·F, F = h or N(y | h, ν): p = ω;
- ``softmax``: exp(β1ᵀx + β0)·N(…) = e^{β0}·F with F = exp(β1ᵀx)·N(…): p = e^{β0}; the
  denominator cleared with the fitted atoms adds −exp(β1ᵀx)·f_{G*} per atom, whose coefficients
  repeat the pure-β1 equations (:mod:`.examples`, docs/model.md). That argument is the density's:
  in a regression (least squares) the cleared per-atom function is exp(β1ᵀx)·(h(x; η) − g*(x)),
  whose order-0 terms are dependent across the true atoms (Σ_j p*_j F(θ*_j) = 0), and taking
  exp(β1ᵀx)·h instead would read a relation tying F to an expert derivative (h linear in a scale
  e2) as the weight absorbing a move, which the denominator does not allow: refused.

Refused, one line each, naming the key (:data:`REFUSED`): a declaration that identcheck's
checks refuse (``relu``: :meth:`~identcheck.declaration.Declaration.refusal`); the gates with no
weight to factor out or no smooth F — ``sigmoid`` (its weights are the gate values
σ(β1ᵀx + β0): no positive factor separates, so a cell's mass is no unknown of its own),
``normalized-sigmoid`` (the same after clearing the denominator), ``laplace``
(exp(−‖W − x‖ + β) is not differentiable in W where W = x, inside the input box), ``top-k`` (a
selection: not smooth in β1 where two scores tie) and an outer ``quadratic-softmax`` (no intercept:
no weight factors out); a softmax gate in a regression (:data:`SOFTMAX_REGRESSION`).

**Nested parts** are taken as they are: the inner mixture is part of F (atom_functions substitutes
it).

Each true atom of a part gives one :class:`~identcheck.model.atom.AtomFunction` at its truth,
sampled on the declared input box (a normal input: [−3, 3]^d) and, for a density, y in the tube
h*(x) ± 6 standard deviations around the true expert (:mod:`.atom`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import sympy as sp

from ..declaration import Declaration, atom_functions
from ..errors import IdentcheckError
from ..parse.grammar import lambdify_modules
from .atom import AtomFunction, atom_function

__all__ = ["NORMAL_BOX", "REFUSED", "SOFTMAX_REGRESSION", "SPREAD", "WEIGHTS", "declared_atoms"]

#: the gate parameter that is the weight, and its neutral value
WEIGHTS = {"constant": ("omega", 1), "softmax": ("beta0", 0)}
#: why the check refuses a gate, in one line each
REFUSED = {
    "sigmoid": "a sigmoid gate's weights are its values sigmoid(beta1.x + beta0): no positive weight factors out "
    "of F, so a cell's mass is no unknown of its own (the check takes constant and softmax gates)",
    "normalized-sigmoid": "sigmoid(beta1.x + beta0) does not factor as a positive weight times F (beta0 does not "
    "separate from beta1.x), so a cell's mass is no unknown of its own (the check takes constant and softmax gates)",
    "laplace": "exp(-|W - x| + beta) is not differentiable in W where W = x, inside the input box: no Taylor "
    "expansion in W (the check takes constant and softmax gates)",
    "top-k": "a top-K selection is not smooth in beta1 where two scores tie, inside the input box (the check "
    "takes constant and softmax gates)",
    "quadratic-softmax": "an outer quadratic softmax exp(x.M.x) has no intercept: no weight factors out (the "
    "check takes constant and softmax gates)",
}
SOFTMAX_REGRESSION = (
    "a softmax-gated regression: with the denominator cleared, F = exp(beta1.x)*(h - g*) has order-0 terms dependent "
    "across the true atoms, so the per-cell systems do not decouple (the check takes softmax gates in a density)"
)
NORMAL_BOX = 3
SPREAD = 6


def declared_atoms(declaration: Declaration, part: str) -> tuple[AtomFunction, ...]:
    """The :class:`~identcheck.model.atom.AtomFunction` of each true atom of ``part``."""
    refusal = declaration.refusal()
    if refusal is not None:
        raise IdentcheckError(refusal)
    spec = declaration.part(part)
    where = f"parts.{spec.name}"
    if spec.gate.kind not in WEIGHTS:
        raise IdentcheckError(param=f"{where}.gate.kind", value=spec.gate.kind, reason=REFUSED[spec.gate.kind])
    functions = atom_functions(declaration, spec)
    weight_name, neutral = WEIGHTS[spec.gate.kind]
    (weight,) = [s for s, name in zip(functions.params, functions.names) if name == weight_name]
    term = functions.term.xreplace({weight: neutral})
    if sp.simplify(functions.term / term).free_symbols - {weight}:
        raise IdentcheckError(param=f"{where}.gate", reason="the term does not factor as weight × F")
    if spec.gate.kind == "softmax" and not declaration.noise.density:
        raise IdentcheckError(param=f"{where}.gate.kind", value="softmax", reason=SOFTMAX_REGRESSION)
    params = tuple(s for s in functions.params if s != weight)
    variables = tuple(functions.x) + ((functions.y,) if functions.y is not None else ())
    out = []
    for index, atom in enumerate(spec.truth):
        values = functions.values(atom)
        truth = {s.name: values[s] for s in params}
        box, tube = _region(declaration, functions, values)
        out.append(atom_function(term, variables, params, truth, box, f"{spec.name}[{index + 1}]", tube))
    return tuple(out)


def _region(declaration: Declaration, functions, values) -> tuple:
    """(box, tube): the input box; for a density y's range and the tube y = h*(x) ± 6√ν*."""
    inputs = declaration.inputs
    low, high = (inputs.low, inputs.high) if inputs.kind == "uniform" else (-NORMAL_BOX, NORMAL_BOX)
    assert low is not None and high is not None  # a uniform input has both ends (the reader's check)
    box = {x.name: (low, high) for x in functions.x}
    if functions.y is None:
        return box, None
    expression = functions.expert.xreplace(values)
    expert = sp.lambdify(functions.x, expression, modules=lambdify_modules(expression))
    grid = np.linspace(float(low), float(high), 41)
    mesh = np.meshgrid(*([grid] * len(functions.x)))
    h = np.broadcast_to(np.asarray(expert(*mesh), dtype=float), mesh[0].shape)
    (variance,) = [values[s] for s in functions.params if s.name == declaration.part(functions.part).variance]
    spread = SPREAD * float(variance) ** 0.5
    box[functions.y.name] = (int(np.floor(h.min() - spread)), int(np.ceil(h.max() + spread)))
    return box, (functions.y, expression, Fraction(spread).limit_denominator(1000))
