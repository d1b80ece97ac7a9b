"""The scan of a condition on φ (type1, type2, type1-full): :class:`~identcheck.scan.family.Family`
made fast, and its "for all p" reading.

For a family φ_p the condition's term set and probes do not depend on p: only the placeholders
φ^(m)(s) do. So everything is built once — φ(z; p), φ', φ'' in sympy with p symbolic,
F_m(z, p) = lambdify(φ^(m)) in numpy, the condition at the first valid grid value — and per grid
value the condition is that one with its activation rebound (:meth:`PhiFamily.condition_at`),
after φ_p's domain check (:meth:`~identcheck.parse.activation.Activation.check_domain`).

**For all p** (:meth:`PhiFamily.symbolic_reading`): each relation family's hypothesis
(:mod:`~identcheck.families`) is tried with p symbolic — φ'' ≡ 0, zφ'/φ, φ''/φ or φ''/(zφ') free
of z, φ(−z) − sφ(z) a polynomial in z. A hypothesis sympy proves this way holds for every p
where φ is defined, and the family's identity follows from it for every φ
(:mod:`~identcheck.pde`); it is reported only when a full check at a grid value names the same
family as its witness and proves it.
"""

from __future__ import annotations

import copy

import numpy as np
import sympy as sp

from ..errors import IdentcheckError
from ..parse.activation import Activation
from ..parse.grammar import Z, parse_text
from ..util.budget import SIMPLIFY_SECONDS
from ..util.budget import run as budgeted
from .family import Family
from .params import number, split_params
from .report import ForAll

__all__ = ["PhiFamily"]


class PhiFamily(Family):
    """φ with its scanned parameters symbolic, the condition and probes built once."""

    def __init__(self, phi, params, condition, dim, seed, points_per_term, options):
        if isinstance(phi, str):
            axes, fixed = split_params(phi.strip(), params)
            self.symbols = tuple(sp.Symbol(a.name, real=True) for a in axes)
            expr = parse_text(phi.strip(), dict(fixed) | {a.name: s for a, s in zip(axes, self.symbols)})
            first = sp.diff(expr, Z)
            self.derivatives = (expr, first, sp.diff(first, Z))
            self.numpy = tuple(sp.lambdify((Z, *self.symbols), d, modules=["scipy", "numpy"]) for d in self.derivatives)
        super().__init__(phi, params, condition, dim, seed, points_per_term, options)
        self.bound = max(c.l1 for p in self.probes for c in p.components)

    def _first_condition(self):
        """The condition at the first grid value where φ parses; the only one built."""
        built = super()._first_condition(enough=1)
        self._built = {}
        return built

    def activation_at(self, values) -> Activation:
        subs = dict(zip(self.symbols, values))
        derivatives = tuple(d.xreplace(subs) for d in self.derivatives)
        shown = ", ".join(f"{k}={number(v)}" for k, v in self.params_at(values).items())
        text = f"{self.text} [{shown}]"
        if any(d.has(sp.zoo, sp.oo, -sp.oo, sp.nan) for d in derivatives):
            raise IdentcheckError(param="phi", value=text, reason="not finite (it contains an infinity or 0/0)")
        floats = [float(v) for v in values]
        functions = tuple(_bind(f, floats) for f in self.numpy)
        return Activation(text=text, expr=derivatives[0], derivatives=derivatives, _numpy=functions)

    def condition_at(self, values):
        """The condition built once, with φ_p in place of its activation (after φ_p's domain check)."""
        activation = self.activation_at(values)
        activation.check_domain(self.bound)
        condition = copy.copy(self.condition)
        condition.activation = activation
        return condition

    def symbolic_reading(self, values) -> ForAll | None:
        """A family hypothesis proved with the scanned parameters symbolic, when it explains the scan."""
        hypotheses = _symbolic_families(self.derivatives)
        if not hypotheses:
            return None
        found = self.exact_check(values, certify=False)
        point = None if found is None else found[0]
        for family, hypothesis in hypotheses:
            if point is not None and point.family is not None and point.family.startswith(family) and point.proved:
                return ForAll(family, hypothesis, tuple(a.name for a in self.axes))
        return None


def _bind(function, values):
    def evaluate(z):
        z = np.asarray(z, dtype=float)
        return np.broadcast_to(np.asarray(function(z, *values)), z.shape)

    return evaluate


def _constant_in_z(expr):
    value, _ = budgeted(sp.simplify, expr, seconds=SIMPLIFY_SECONDS)
    if value is None or value.has(Z) or value.has(sp.nan, sp.zoo) or value == 0:
        return None
    return value


def _symbolic_families(derivatives) -> list[tuple[str, str]]:
    """The family hypotheses sympy proves for φ(z; p) with p symbolic: (family, hypothesis)."""
    phi, d1, d2 = derivatives
    out = []
    zero, _ = budgeted(sp.simplify, d2, seconds=SIMPLIFY_SECONDS)
    if zero == 0:
        out.append(("zero second derivative", "phi'' = 0"))
    for family, ratio, shown in (
        ("Euler/homogeneity", Z * d1 / phi, "z*phi' = ({})*phi"),
        ("heat type", d2 / phi, "phi'' = ({})*phi"),
        ("Gaussian type", d2 / (Z * d1), "phi'' = ({})*z*phi'"),
    ):
        if zero != 0 or family == "Euler/homogeneity":
            value = _constant_in_z(ratio)
            if value is not None:
                out.append((family, shown.format(value)))
    for s in (1, -1):
        difference = phi.subs(Z, -Z) - s * phi
        q, _ = budgeted(sp.expand, difference, seconds=1.0)
        if q is None or not q.is_polynomial(Z):
            q, _ = budgeted(sp.simplify, difference, seconds=SIMPLIFY_SECONDS)
        if q is not None and q.is_polynomial(Z):
            out.append(("symmetry", f"phi(-z) = {s}*phi(z) + ({sp.expand(q)})"))
            break
    return out
