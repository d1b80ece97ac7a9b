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

and φ's own (type-1 and type-2 terms): :mod:`.phi` (the hypotheses, proved by sympy), heat and
Gaussian type, zero second derivative, polynomial, a = 0 (:mod:`.type1`), :mod:`.ode` (φ's linear
ODEs, guessed then proved), type-2's (:mod:`.type2`), and the relations of an expert's set
members with their reach (:mod:`.reach`).

The names below are importable from the package as before the split (``from identcheck.families
import templates_for``); each is imported on first use (:mod:`identcheck.lazy`), so importing a
family module loads no other.
"""

from ..lazy import lazy_package

_API = dict.fromkeys(
    ("ODE", "PhiProperties", "Template", "ode_templates_for", "phi_properties", "templates_for"), ".type1"
)
lazy_package(__name__, _API)

__all__ = sorted(_API)
