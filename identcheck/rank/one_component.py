"""One component for every parameter (type-1 and mha, K = 1): the reduction to one-variable families.

**Lemma** (docs/method.md §4, "One component, for every parameter"). Every distinct type-1 term of
one component is exp(xᵀMx)·c·x^α·φ^(m)(aᵀx), with (m, |α|) in a set D and *every* monomial x^α of
degree |α| present for each (m, |α|) ∈ D (checked on the term set: :func:`shapes`). Let φ be
real-analytic on an open interval J ∋ 0. If each one-variable family

    F_s = {z^i φ^(m)(z) : (m, i + s) ∈ D},   s = 0, 1, …, max |α|,

is linearly independent on one open interval I ⊂ J, then for every d ≥ 2 (s = 0 alone: d = 1),
every symmetric M and every a ≠ 0, the component's terms are linearly independent on every
non-empty open set V ⊆ {x : aᵀx ∈ J}.

*Proof.* (1) exp(xᵀMx) > 0: dividing by it, M is gone. (2) Take A ∈ GL(d) with Aᵀa = e1 and
write x = Ay: aᵀx = y1, and {x^α : |α| = k} and {y^β : |β| = k} span the same space (the
homogeneous polynomials of degree k), with as many elements; so the terms' span and count are
those of {y^β φ^(m)(y1)}, on the open set A⁻¹V. (3) A relation Σ c_{β,m} y1^{β1} y'^{β'} φ^(m)(y1) = 0
on A⁻¹V is, for each fixed y1, a polynomial in y' = (y2, …, yd) vanishing on an open set: each
coefficient of y'^{β'} vanishes, i.e. Σ c_{(i,β'),m} z^i φ^(m)(z) = 0 on an open interval of z ∈ J —
a relation of F_s, s = |β'|. (4) The functions of F_s are analytic on J: a relation on a
sub-interval holds on J, hence on I, where F_s is independent: all c are 0. ∎

Each F_s is certified once by the interval test (:mod:`~identcheck.rank.interval`) on sample points
in I = [−ρ, ρ], ρ = min(1, r/2) for φ's nearest real singular point r; a family contained in another
needs no test of its own. Without φ's analyticity decided, nothing is claimed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import numpy as np
import sympy as sp

from ..terms.compile import arb_precision, phi_functions
from ..terms.type1 import _PhiDerivative
from .interval import certify_full_column_rank

__all__ = ["FamilyProof", "OneComponent", "prove_one_component", "shapes"]

POINTS_PER_TERM = 4


def shapes(term_set) -> tuple[tuple[int, tuple], ...] | None:
    """The families F_s as (s, ((i, m), …)), for s = 0 … max |α|, or None when the term set is not of
    the lemma's form (two terms with the same (α, m), or a degree with a monomial missing)."""
    seen: dict[tuple[int, int], set] = {}
    for term in term_set.terms:
        atoms = list(term.reduced.atoms(_PhiDerivative))
        if len(atoms) != 1:
            return None
        monomial = sp.Poly(term.reduced / atoms[0], *term_set.x)
        if len(monomial.monoms()) != 1:
            return None
        alpha = monomial.monoms()[0]
        pairs = seen.setdefault((term.phi_order, sum(alpha)), set())
        if alpha in pairs:
            return None
        pairs.add(alpha)
    d = term_set.dim
    if any(len(alphas) != math.comb(k + d - 1, d - 1) for (_, k), alphas in seen.items()):
        return None
    top = max(k for _, k in seen)
    return tuple((s, tuple(sorted((k - s, m) for m, k in seen if k >= s))) for s in range(top + 1))


def family_text(family) -> str:
    """``'{φ, z²φ, zφ′}'``."""
    powers = {0: "", 1: "z", 2: "z²", 3: "z³", 4: "z⁴"}
    return "{" + ", ".join(f"{powers.get(i, f'z^{i}')}φ{chr(0x2032) * m}" for i, m in family) + "}"


@dataclass(frozen=True, slots=True)
class FamilyProof:
    """One family's interval test: ``covers`` the s whose F_s it contains (a sub-family needs no test)."""

    family: tuple
    covers: tuple
    proved: bool
    sigma_min_lower_bound: float
    digits: int

    def to_dict(self) -> dict:
        return {
            "family": family_text(self.family),
            "covers": list(self.covers),
            "proved": self.proved,
            "sigma_min_lower_bound": self.sigma_min_lower_bound,
        }  # not the digits: chosen from float64's σ_min, they may differ on another machine


@dataclass(frozen=True, slots=True)
class OneComponent:
    """The lemma's outcome: ``dims`` is ``"every d"``, ``"d = 1"`` (F_0 alone proved) or None (nothing
    proved); ``domain`` the interval J of aᵀx it covers (None: ℝ); ``why_not`` when not claimed."""

    dims: str | None
    families: tuple
    analyticity: str
    domain: tuple | None = None
    why_not: str | None = None

    @property
    def statement(self) -> str:
        if self.dims is None:
            return f"K = 1: not proved for every parameter ({self.why_not})"
        ends = [{-math.inf: "−∞", math.inf: "∞"}.get(v, f"{v:.6g}".replace("-", "−")) for v in self.domain or ()]
        where = "" if self.domain is None else f", on x with aᵀx in ({ends[0]}, {ends[1]})"
        return f"K = 1: proved for every (M, a ≠ 0), {self.dims}{where}"

    def to_dict(self) -> dict:
        return {
            "statement": self.statement,
            "dims": self.dims,
            "domain": None if self.domain is None else [v if math.isfinite(v) else None for v in self.domain],
            "families": [f.to_dict() for f in self.families],
            "analyticity": self.analyticity,
            "why_not": self.why_not,
        }


def _float64(family: tuple, activation, z: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.column_stack([z**i * activation.numpy_derivative(m)(z) for i, m in family])


def _arb(family: tuple, activation, z: np.ndarray, digits: int):
    """The rows at ``z`` as balls containing z^i φ^(m)(z) (z float64: exact; φ's arb derivatives, rigorous)."""
    phi = phi_functions(tuple(activation.derivatives))
    with arb_precision(digits):
        rows = []
        for value in z:
            x = flint.arb(float(value))
            rows.append([x**i * phi[m]([[x]])[0][0] for i, m in family])
        return flint.arb_mat(rows)


def _certify(family: tuple, activation, rho: float) -> tuple[bool, float, int]:
    z = np.linspace(-rho, rho, POINTS_PER_TERM * len(family))
    values = _float64(family, activation, z)
    if not np.all(np.isfinite(values)):
        return False, 0.0, 0
    cert = certify_full_column_rank(values, lambda rows, digits: _arb(family, activation, z[list(rows)], digits))
    return cert.proved, cert.sigma_min_lower_bound, cert.digits


def prove_one_component(term_set, activation, singularities) -> OneComponent:
    """Certify the families of :func:`shapes` for ``activation`` (``singularities``: its
    :class:`~identcheck.parse.analyticity.Singularities`) and state what the lemma gives."""
    analyticity = singularities.describe()
    found = shapes(term_set)
    if found is None:
        return OneComponent(None, (), analyticity, why_not="the term set is not of the lemma's form")
    if not singularities.decided:
        return OneComponent(None, (), analyticity, why_not=analyticity)
    domain = None if singularities.empty else singularities.neighbours(0.0)
    if domain is None and not singularities.empty:
        return OneComponent(None, (), analyticity, why_not="z = 0 is a singular point of φ")
    rho = 1.0 if domain is None else min(1.0, -domain[0] / 2, domain[1] / 2)
    families = [family for _, family in found]
    maximal = [f for f in dict.fromkeys(families) if not any(set(f) < set(g) for g in families)]
    proofs = []
    for family in maximal:
        covers = tuple(s for s, f in found if set(f) <= set(family))
        proofs.append(FamilyProof(family, covers, *_certify(family, activation, rho)))
    proved = {s for p in proofs if p.proved for s in p.covers}
    failed = next((p for p in proofs if not p.proved), None)
    why = None if failed is None else f"{family_text(failed.family)} not certified independent"
    if proved >= {s for s, _ in found}:
        return OneComponent("every d", tuple(proofs), analyticity, domain)
    if 0 in proved:
        return OneComponent("d = 1", tuple(proofs), analyticity, domain, why_not=why)
    return OneComponent(None, tuple(proofs), analyticity, domain, why_not=why)
