"""The model-level identifiability check: the Taylor terms of a per-atom function, the basis of
their span with every relation proved, the coefficient systems of Voronoi cells and their
decision, r̄(m) and the per-parameter exponents (docs/model.md).

>>> import sympy as sp
>>> from identcheck.model import atom_function, check_atom, gaussian_density
>>> y, mu = sp.symbols("y mu", real=True)
>>> nu = sp.Symbol("nu", positive=True)
>>> atom = atom_function(gaussian_density(y, mu, nu), [y], [mu, nu], {"mu": 0, "nu": 1}, box={"y": (-6, 6)})
>>> result = check_atom(atom, max_order=4, max_cell=2)
>>> result.cell(2).rbar, result.cell(2).proved
(4, True)
"""

from .atom import MAX_CELL, MAX_ORDER, AtomFunction, atom_function, gaussian_density
from .basis import SpanBasis, build_basis
from .decide import INCONCLUSIVE, NON_TRIVIAL, TRIVIAL, SystemDecision, decide_system
from .declared import DeclaredCheck, check_declaration, declared_atoms
from .grading import Grading, complete_equations, find_grading
from .joint import joint_independence
from .relation import AT_ATOM, EVERY_THETA, ModelRelation
from .system import CoefficientSystem, cell_expansion, coefficient_polynomials, coefficient_system
from .taylor import Derivatives, multi_indices
from .text import verdict_text
from .verdict import CellResult, ExactFitted, ModelVerdict, check_atom

__all__ = [
    "AT_ATOM",
    "EVERY_THETA",
    "INCONCLUSIVE",
    "MAX_CELL",
    "MAX_ORDER",
    "NON_TRIVIAL",
    "TRIVIAL",
    "AtomFunction",
    "CellResult",
    "CoefficientSystem",
    "DeclaredCheck",
    "Derivatives",
    "ExactFitted",
    "Grading",
    "ModelRelation",
    "ModelVerdict",
    "SpanBasis",
    "SystemDecision",
    "atom_function",
    "build_basis",
    "cell_expansion",
    "check_atom",
    "check_declaration",
    "coefficient_polynomials",
    "coefficient_system",
    "complete_equations",
    "decide_system",
    "declared_atoms",
    "find_grading",
    "gaussian_density",
    "joint_independence",
    "multi_indices",
    "verdict_text",
]
