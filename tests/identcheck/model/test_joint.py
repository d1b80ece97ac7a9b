"""Condition (i) across atoms: a sign pair of an odd expert is one function, distinct truths are not."""

import sympy as sp

from identcheck.model.atom import atom_function
from identcheck.model.basis import build_basis
from identcheck.model.joint import joint_independence

x, c, w = sp.symbols("x c w", real=True)


def _basis(truth):
    return build_basis(atom_function(c * sp.tanh(w * x), [x], [c, w], truth), 2)


def test_a_sign_pair_is_dependent():
    """c·tanh(w x) at (1, 2) and (−1, −2) is the same function: the union of the bases is dependent."""
    assert joint_independence((_basis({"c": 1, "w": 2}), _basis({"c": -1, "w": -2}))).independent is False


def test_distinct_atoms_are_independent():
    assert joint_independence((_basis({"c": 1, "w": 2}), _basis({"c": 1, "w": -1}))).independent is True
