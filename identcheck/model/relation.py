r"""A linear relation among one atom's Taylor terms, proved exactly, and its family name.

A relation writes one derivative through earlier ones (term order, :mod:`.taylor`):

    ∂^κ F(θ) = Σ_β c_β ∂^β F(θ).

It is found numerically (:mod:`.basis`), its coefficients read as exact rationals, and then
**proved** by sympy: G_κ − Σ_β c_β G_β ≡ 0 (G = ∂F/F, the ratios of :mod:`.taylor`), by
``cancel`` (at most QUICK_SECONDS), ``expand``, ``cancel``, then ``simplify`` within
:data:`~identcheck.util.budget.PROOF_SECONDS`.
Two strengths:

- **every θ** (``holds="every θ"``): the same constant coefficients make it an identity in θ —
  the Gaussian heat relation ∂²N/∂μ² = 2 ∂N/∂ν, the chain rule of a gated ridge expert
  ∂F/∂η1 = ∂²F/∂β1∂η0. Such a relation may be differentiated: ∂_j of it is a relation of the next
  order, used without a numeric test (``derived`` relations);
- **at θ*** (``holds="at the atom"``): the coefficients depend on θ* (the linear expert's PDE
  a·∂F/∂a = F reads ∂F/∂a = F/a*). Valid where the expansion is taken; not differentiated.

Names come from identcheck's relation families (:mod:`identcheck.families`) by the shape of the
multi-indices, the relation itself being proved either way: ∂_j²-type against ∂_l (heat type),
two derivatives against one (x-multiplied derivative: the bias shift of a gated ridge expert),
first-order terms against F (Euler/homogeneity), ∂^κ F = 0 (a zero derivative); otherwise
"proved, unnamed". A relation that could not be proved is kept with ``proved=False`` and makes
everything resting on it evidence.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction

import sympy as sp

from ..families.heat import FAMILY as HEAT
from ..families.homogeneity import EULER
from ..families.xmultiplied import X_MULTIPLIED
from ..util.budget import PROOF_SECONDS, Outcome, run

__all__ = ["EVERY_THETA", "AT_ATOM", "UNNAMED", "ZERO", "ModelRelation", "name_relation", "prove_relation", "rational"]

EVERY_THETA = "every θ"
AT_ATOM = "at the atom"
UNNAMED = "proved, unnamed"
ZERO = "zero derivative"
RATIONAL_DENOMINATOR = 4096
RATIONAL_TOL = 1e-9
REFUTE_TOL = 1e-8  # a float value of the identity above this (relative) refutes it before sympy is asked
REFUTE_DIGITS = 50  # the float screen's precision (a screened refutation is confirmed by evalf to 30 digits)
QUICK_SECONDS = 1.0  # CPU seconds, at most, for the first cancel of a proof


@dataclass(frozen=True, slots=True)
class ModelRelation:
    """∂^``term`` F = Σ c·∂^β F over ``combination`` ((β, c) pairs, exact c).

    ``holds`` is :data:`EVERY_THETA` or :data:`AT_ATOM`; ``proved`` whether sympy reduced it to 0
    (``timed_out`` when its budget ran out first); ``family`` its name; ``labels`` the parameter
    names the multi-indices refer to."""

    term: tuple
    combination: tuple
    holds: str
    proved: bool
    family: str
    labels: tuple
    timed_out: bool = False

    def text(self) -> str:
        """``d²F/dη0² = 2·dF/dν`` style, in the atom's parameter names."""
        right = " + ".join(f"({sp.sstr(c)})·{derivative_label(b, self.labels)}" for b, c in self.combination) or "0"
        return f"{derivative_label(self.term, self.labels)} = {right}"

    def to_dict(self) -> dict:
        return {
            "text": self.text(),
            "term": list(self.term),
            "combination": [[list(b), sp.sstr(c)] for b, c in self.combination],
            "holds": self.holds,
            "proved": self.proved,
            "timed_out": self.timed_out,
            "family": self.family,
        }


def derivative_label(kappa: tuple, labels: tuple) -> str:
    """``F``, ``dF/db``, ``d3F/db2 de`` for a multi-index."""
    order = sum(kappa)
    if order == 0:
        return "F"
    parts = [f"d{name}" + (str(k) if k > 1 else "") for name, k in zip(labels, kappa) if k]
    return f"d{order if order > 1 else ''}F/{' '.join(parts)}"


def rational(value: float) -> sp.Rational | None:
    """The float as p/q (q ≤ 4096) when within 1e-9 (relative, at least absolute) of it, else None."""
    fraction = Fraction(value).limit_denominator(RATIONAL_DENOMINATOR)
    if abs(float(fraction) - value) > RATIONAL_TOL * max(1.0, abs(value)):
        return None
    return sp.Rational(fraction.numerator, fraction.denominator)


def _cancels(expr: sp.Expr) -> bool:
    return sp.cancel(sp.together(expr)) == 0


def _is_zero(expr: sp.Expr) -> bool:
    """``cancel`` first, within QUICK_SECONDS (on a difference of unexpanded derivatives it is often
    far cheaper than ``expand``), then ``expand``, then ``cancel`` without that limit, then ``simplify``."""
    quick, timed_out = run(_cancels, expr, seconds=QUICK_SECONDS, default=False)
    if quick:
        return True
    if sp.expand(expr) == 0:
        return True
    if timed_out and _cancels(expr):
        return True
    return sp.simplify(expr) == 0


def _exceeds(difference: sp.Expr, point: dict, floats: bool) -> bool:
    """Whether ``difference`` at ``point`` is above REFUTE_TOL: with ``floats`` the point substituted
    as REFUTE_DIGITS-digit Floats (evaluated as the expression is rebuilt: a fast screen), else
    exactly and evaluated by ``evalf`` to 30 digits (what a refutation rests on)."""
    try:
        if floats:
            value = complex(difference.xreplace({s: sp.Float(v, REFUTE_DIGITS) for s, v in point.items()}))
        else:
            value = complex(difference.xreplace(point).evalf(30))
    except (TypeError, ZeroDivisionError):
        return False
    return abs(value) > REFUTE_TOL


def prove_relation(difference: sp.Expr, symbols, seconds: float = PROOF_SECONDS) -> Outcome:
    """Whether ``difference`` (G_κ − Σ c_β G_β) is identically 0: refuted at random rational points
    in float first, then proved by sympy within ``seconds``."""
    rng = random.Random(7)
    for _ in range(3):
        point = {s: sp.Rational(rng.randint(-40, 40), rng.randint(11, 53)) for s in symbols}
        point = {s: (abs(v) + sp.Rational(1, 3) if s.is_positive else v) for s, v in point.items()}
        if _exceeds(difference, point, floats=True) and _exceeds(difference, point, floats=False):
            return Outcome(False)
    proved, timed_out = run(_is_zero, difference, seconds=seconds, default=False)
    return Outcome(bool(proved), timed_out)


def name_relation(term: tuple, combination) -> str:
    """The family name of a proved relation, read from the shape of its multi-indices."""
    betas = [b for b, _ in combination]
    if not betas:
        return ZERO
    order = sum(term)
    if order == 1 and all(sum(b) <= 1 for b in betas) and any(sum(b) == 0 for b in betas):
        return EULER
    if len(betas) == 1:
        difference = tuple(k - b for k, b in zip(term, betas[0]))
        negative = [d for d in difference if d < 0]
        positive = sorted(d for d in difference if d > 0)
        if negative == [-1] and positive == [2]:
            return HEAT.name
        if negative == [-1] and positive == [1, 1]:
            return X_MULTIPLIED
    return UNNAMED
