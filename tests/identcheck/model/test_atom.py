"""Input validation at the boundary: one line naming the parameter."""

import pytest
import sympy as sp

from identcheck.errors import IdentcheckError
from identcheck.model.atom import atom_function, exact

x, b, e = sp.symbols("x b e", real=True)


@pytest.mark.parametrize(
    "args, message",
    [
        ((sp.exp(b * x) * e, [x], [b, e], {"b": 1}), "truth=['b']: missing ['e']"),
        ((sp.exp(b * x) * e, [x], [b, e], {"b": 1, "e": 0}), "F is 0 there"),
        ((sp.exp(b * x), [x], [b, e], {"b": 1, "e": 1}), "params=['e']: not used by the function"),
        ((sp.Max(0, b * x) * e, [x], [b, e], {"b": 1, "e": 1}), "not smooth"),
        ((sp.exp(b * x) * e * sp.Symbol("c"), [x], [b, e], {"b": 1, "e": 1}), "neither variables nor parameters"),
        ((sp.exp(b * x) * e, [x], [b, e], {"b": 1, "e": 1, "z": 2}), "truth=['z']: not parameters of the atom"),
    ],
)
def test_bad_atoms(args, message):
    with pytest.raises(IdentcheckError, match=message.replace("[", r"\[").replace("]", r"\]")) as error:
        atom_function(*args)
    assert "\n" not in str(error.value)


def test_box_needs_low_below_high():
    with pytest.raises(IdentcheckError, match="needs low < high"):
        atom_function(sp.exp(b * x) * e, [x], [b, e], [1, 1], box={"x": (1, 1)})


def test_floats_are_read_as_written():
    assert exact(0.4) == sp.Rational(2, 5) and exact(3) == 3


def test_a_tube_is_checked():
    y = sp.Symbol("y", real=True)
    with pytest.raises(IdentcheckError, match="not a variable"):
        atom_function(sp.exp(b * x) * e, [x], [b, e], [1, 1], tube=(y, x, 1))
    with pytest.raises(IdentcheckError, match="half-width must be positive"):
        atom_function(sp.exp(b * x) * e * y, [x, y], [b, e], [1, 1], tube=(y, x, 0))
    with pytest.raises(IdentcheckError, match="function of the other variables"):
        atom_function(sp.exp(b * x) * e * y, [x, y], [b, e], [1, 1], tube=(y, y, 1))
