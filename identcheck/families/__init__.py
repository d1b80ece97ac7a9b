"""Relation families: which property of φ or of the expert h makes which columns dependent.

A *family* (:mod:`.base`) has a name, a hypothesis about φ or h (checked exactly with sympy), a
way to propose its relations on a probe (exact coefficients on the probe's columns: templates, or
a name for a relation found in the null space) and a way to prove them. One module per family;
the general ones serve every condition that offers the structure they need:

- :mod:`.homogeneity`  a scale/homogeneity relation Σ w_j θ_j ∂h/∂θ_j = c·h (Euler for φ = C·z^k;
                       c·f(x; θ): ∂²h/∂c∂θ = ∂h/∂θ / c)
- :mod:`.symmetry`     a sign symmetry h(x; −θ) = ±h(x; θ) + q (φ odd or even; sign pairs of atoms)
- :mod:`.constant`     a product of members equal to a constant ((∂h/∂κ0)² = 1 for a linear expert)
- :mod:`.xmultiplied`  x-multiplied derivatives equal to other derivatives (∂h/∂η1⁽ᵘ⁾ = x_u·∂h/∂η0
                       for any f(η1ᵀx + η0); the ridge x-swap x_u·∂h/∂p⁽ᵛ⁾ = x_v·∂h/∂p⁽ᵘ⁾)

and φ's own, on type-1 and type-2 terms: :mod:`.phi` (the hypotheses about φ, proved by sympy),
:mod:`.heat`, :mod:`.gaussian`, :mod:`.zero_second`, :mod:`.polynomial`, :mod:`.at_zero`,
:mod:`.ode` (φ's linear ODEs, guessed then proved). Each condition's reader places them on its
columns: :mod:`.type1` (``templates_for``), :mod:`.type2` (templates and the exact prover of a
head), :mod:`.reach` (an expert's set members: relations proved, named, classified by reach).

The names below are importable from the package as before the split (``from identcheck.families
import templates_for``); each is imported on first use (:mod:`identcheck.util.lazy`): importing the
package imports none of its modules.
"""

from typing import TYPE_CHECKING

from ..util.lazy import lazy_package

if TYPE_CHECKING:  # for readers and type checkers; at run time __getattr__ imports them on first use
    from .base import Template
    from .ode import ODE, ode_templates_for
    from .phi import PhiProperties, phi_properties
    from .type1 import exact_templates_for, templates_for

_API = {
    **dict.fromkeys(("ODE", "ode_templates_for"), ".ode"),
    **dict.fromkeys(("PhiProperties", "phi_properties"), ".phi"),
    "Template": ".base",
    **dict.fromkeys(("exact_templates_for", "templates_for"), ".type1"),
}
lazy_package(__name__, _API)

__all__ = [
    "ODE",
    "PhiProperties",
    "Template",
    "exact_templates_for",
    "ode_templates_for",
    "phi_properties",
    "templates_for",
]
