"""The families' identities proved for general parameters, symbolically in x, M and a.

With ū(x; M, a) = exp(xᵀMx)·φ(aᵀx), z = aᵀx, w_jk = 1 if j = k else 2, Q = xᵀMx:

=====================  ===========================  =============================================================
family                 hypothesis on φ              identity (for all x, symmetric M, a)
=====================  ===========================  =============================================================
Euler/homogeneity      zφ'(z) = kφ(z)               Σ_j a_j ∂ū/∂a_j − k·ū = 0            (k = 1: the PDE (5))
heat type              φ'' = cφ, c ≠ 0              ∂ū/∂M_jk − (w_jk/c)·∂²ū/∂a_j∂a_k = 0
Gaussian type          φ'' = c·z·φ'                 ∂²ū/∂a_j∂a_k − (c/w_jk)·Σ_l a_l ∂²ū/∂M_jk∂a_l = 0
zero second derivative φ'' = 0                      ∂²ū/∂a_j∂a_k = 0
symmetry               φ(−z) = s·φ(z) + q(z)        ū(M, −a) − s·ū(M, a) − exp(Q)·q(aᵀx) = 0  (q = 0: a, −a collide)
polynomial             φ of degree k                ū(M, b) = Σ_{|t| ≤ k} (b − a)^t/t! ∂^t_a ū(M, a)
                                                    (direct proof only)
=====================  ===========================  =============================================================

Each proof has two exact steps, both checked exactly (:func:`~certify.is_exact_zero`):

1. *reduction, for every φ*: with φ an undefined function (placeholders φ^(m)), the left side
   minus exp(Q)·H(aᵀx) expands to 0, where H(z) is the hypothesis written as H ≡ 0
   (e.g. H = zφ' − kφ). This is pure calculus: ∂/∂a_j of φ(aᵀx) is x_j·φ'(aᵀx), ∂/∂M_jk of
   exp(Q) is w_jk·x_j·x_k·exp(Q).
2. *hypothesis, for this φ*: H(z) ≡ 0 in z.

Together: the identity holds for all x, M, a. A third, *direct* step substitutes φ into the
identity and asks sympy for 0 — a confirmation, reported, not needed for the proof. "proved"
is printed only when steps 1 and 2 both returned exact zeros.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, field

import sympy as sp

from .errors import IdentcheckError
from .families import phi_properties
from .families.proofs import is_exact_zero
from .parse.activation import Z, parse_activation
from .results import hypothesis_text
from .terms.type1 import MAX_DIM, phi_placeholder, substitute_phi
from .util.markdown import proof_markdown
from .util.written import with_written_numbers

__all__ = ["FamilyProof", "prove_pde"]


@dataclass(frozen=True, slots=True)
class FamilyProof:
    """One family's identity for φ: whether its hypothesis holds, and the proof steps."""

    family: str
    hypothesis: str
    holds: bool
    identity: str = ""
    steps: tuple = field(default=())  # (what, expression shown, exact zero?)
    proved: bool = False
    note: str = ""
    written_numbers: tuple = field(
        default=(), compare=False, repr=False
    )  # for the text only: Activation.written_numbers

    def shown(self, text: str) -> str:
        """``text`` with φ's decimal constants as written (``1.702*z``, not ``851*z/500``); the JSON stays exact."""
        return with_written_numbers(text, self.written_numbers)

    @property
    def hypothesis_shown(self) -> str:
        """The hypothesis as a reader writes it (``phi(-z) = 1 - phi(z)``), constants as written."""
        return self.shown(hypothesis_text(self.hypothesis, plain=True))

    def to_dict(self) -> dict:
        return {
            "family": self.family,
            "hypothesis": self.hypothesis,
            "holds": self.holds,
            "identity": self.identity,
            "steps": [{"step": what, "expression": shown, "exact_zero": ok} for what, shown, ok in self.steps],
            "proved": self.proved,
            "note": self.note,
        }

    def _repr_markdown_(self) -> str:
        """Jupyter's rendering (:func:`identcheck.util.markdown.proof_markdown`)."""
        return proof_markdown(self)

    def to_text(self) -> str:
        if not self.holds:
            return f"{self.family}: {self.hypothesis} not shown for this phi ({self.note})"
        lines = [f"{self.family}: {self.hypothesis_shown}", f"  identity: {self.shown(self.identity)}"]
        for what, shown, ok in self.steps:
            lines.append(f"  {what}: {self.shown(shown)}  ->  {'exact 0' if ok else 'not reduced to 0'}")
        lines.append(
            "  PROVED for all x, symmetric M, a" if self.proved else f"  not proved: {self.note or 'a step failed'}"
        )
        return "\n".join(lines)


class _Symbols:
    def __init__(self, dim: int):
        self.dim = dim
        self.x = sp.symbols(f"x1:{dim + 1}", real=True)
        self.a = sp.symbols(f"a1:{dim + 1}", real=True)
        self.m = {(j, k): sp.Symbol(f"M{j + 1}{k + 1}", real=True) for j in range(dim) for k in range(j, dim)}
        self.Q = sp.expand(sum(self.M(j, k) * self.x[j] * self.x[k] for j in range(dim) for k in range(dim)))
        self.z = sum(ai * xi for ai, xi in zip(self.a, self.x))

    def M(self, j, k):
        return self.m[(min(j, k), max(j, k))]

    def u_bar(self, a=None):
        a = self.a if a is None else a
        return sp.exp(self.Q) * phi_placeholder(0)(sum(ai * xi for ai, xi in zip(a, self.x)))


def _w(j, k):
    return 1 if j == k else 2


def _phi(m):
    return phi_placeholder(m)(Z)


def prove_pde(phi, dim: int = 2, params=None) -> list[FamilyProof]:
    """Prove, for general parameters, every family identity whose hypothesis φ satisfies.

    Families whose hypothesis fails are returned with ``holds=False`` and the reason.

    Examples
    --------
    >>> [(p.family, p.proved) for p in prove_pde("exp(z)", dim=1) if p.holds]
    [('heat type', True)]
    """
    if isinstance(dim, bool) or not isinstance(dim, int) or not 1 <= dim <= MAX_DIM:
        raise IdentcheckError(param="dim", value=dim, reason=f"must be an integer from 1 to {MAX_DIM}")
    activation = parse_activation(phi, params)
    derivatives = tuple(activation.derivatives)
    props = phi_properties(derivatives)
    s = _Symbols(dim)
    u = s.u_bar()
    a, x = s.a, s.x
    out = []

    k = props.euler
    out.append(
        _family(
            s,
            derivatives,
            "Euler/homogeneity" + (" (k = 1: the paper's PDE (5))" if k == 1 else ""),
            f"z*phi'(z) = {k}*phi(z)" if k is not None else "z*phi'(z) = k*phi(z) for a constant k",
            k is not None,
            None if k is None else sum(a[j] * sp.diff(u, a[j]) for j in range(dim)) - k * u,
            None if k is None else f"sum_j a_j du/da_j - {k}*u = 0",
            None if k is None else Z * _phi(1) - k * _phi(0),
            "sympy did not reduce z*phi'/phi to a constant",
        )
    )
    c = props.heat
    pairs = [(j, kk) for j in range(dim) for kk in range(j, dim)]
    out.append(
        _family(
            s,
            derivatives,
            "heat type",
            f"phi'' = {c}*phi" if c is not None else "phi'' = c*phi for a constant c != 0",
            c is not None,
            None
            if c is None
            else [sp.diff(u, s.M(j, kk)) - sp.Rational(_w(j, kk)) / c * sp.diff(u, a[j], a[kk]) for j, kk in pairs],
            None if c is None else f"du/dM_jk - (w_jk/{c})*d2u/da_j da_k = 0 for every j <= k",
            None if c is None else _phi(2) - c * _phi(0),
            "sympy did not reduce phi''/phi to a nonzero constant",
            factors=None if c is None else [-sp.Rational(_w(j, kk)) / c * x[j] * x[kk] for j, kk in pairs],
        )
    )
    g = props.gaussian
    out.append(
        _family(
            s,
            derivatives,
            "Gaussian type",
            f"phi'' = {g}*z*phi'" if g is not None else "phi'' = c*z*phi' for a constant c != 0",
            g is not None,
            None
            if g is None
            else [
                sp.diff(u, a[j], a[kk]) - g / _w(j, kk) * sum(a[l] * sp.diff(u, s.M(j, kk), a[l]) for l in range(dim))
                for j, kk in pairs
            ],
            None if g is None else f"d2u/da_j da_k - ({g}/w_jk)*sum_l a_l d2u/dM_jk da_l = 0 for every j <= k",
            None if g is None else _phi(2) - g * Z * _phi(1),
            "sympy did not reduce phi''/(z*phi') to a nonzero constant",
            factors=None if g is None else [x[j] * x[kk] for j, kk in pairs],
        )
    )
    out.append(
        _family(
            s,
            derivatives,
            "zero second derivative",
            "phi'' = 0",
            props.zero_second,
            [sp.diff(u, a[j], a[kk]) for j, kk in pairs] if props.zero_second else None,
            "d2u/da_j da_k = 0 for every j <= k",
            _phi(2),
            "sympy did not reduce phi'' to 0",
            factors=[x[j] * x[kk] for j, kk in pairs],
        )
    )
    sym = props.symmetry
    if sym is not None:
        sign, q = sym
        minus = s.u_bar(tuple(-ai for ai in a))
        identity = minus - sign * u - sp.exp(s.Q) * q.subs(Z, s.z)
        text = f"u(M, -a) - ({sign})*u(M, a) - exp(x'Mx)*({q})|z=a'x = 0" + (" (a and -a collide)" if q == 0 else "")
        hypothesis = phi_placeholder(0)(-Z) - sign * _phi(0) - q
        out.append(
            _family(
                s, derivatives, "symmetry", f"phi(-z) = {sign}*phi(z) + ({q})", True, identity, text, hypothesis, ""
            )
        )
    else:
        out.append(
            FamilyProof(
                "symmetry",
                "phi(-z) = s*phi(z) + q(z), s = +-1, q a polynomial",
                False,
                note="sympy found no s = +-1 with phi(-z) - s*phi(z) a polynomial",
            )
        )
    out.append(_polynomial(s, derivatives, props.degree))
    if activation.written_numbers:  # the reports show φ's decimal constants as written
        out = [dataclasses.replace(proof, written_numbers=activation.written_numbers) for proof in out]
    return out


def _polynomial(s, derivatives, degree) -> FamilyProof:
    """φ of degree k: the Taylor expansion in a terminates, ū(M, b) = Σ_{|t| ≤ k} (b − a)^t/t! ∂^t_a ū(M, a).

    No reduction for an undefined φ exists (it is Taylor's theorem with a vanishing remainder), so
    the proof is the direct one: the identity with φ substituted expands to 0.
    """
    hypothesis = "phi is a polynomial of degree k"
    if degree is None:
        return FamilyProof("polynomial", hypothesis, False, note="sympy did not find phi polynomial in z")
    b = sp.symbols(f"b1:{s.dim + 1}", real=True)
    u = s.u_bar()
    taylor = sp.Integer(0)
    for order in range(degree + 1):
        for t in itertools.combinations_with_replacement(range(s.dim), order):
            term = u
            coefficient = sp.Integer(1)
            for j in t:
                term = sp.diff(term, s.a[j])
                coefficient *= b[j] - s.a[j]
            for _, group in itertools.groupby(t):
                coefficient /= sp.factorial(len(list(group)))
            taylor += coefficient * term
    identity = s.u_bar(b) - taylor
    all_orders = tuple(sp.diff(derivatives[0], Z, m) for m in range(degree + 1))
    concrete = sp.expand(substitute_phi(identity, all_orders) * sp.exp(-s.Q))
    outcome = is_exact_zero(concrete, (*s.x, *s.a, *b, *s.m.values()), thorough=False)
    proved = bool(outcome)
    steps = (
        ("direct (this phi)", f"u(M, b) - Taylor polynomial of degree {degree} in a around a, / exp(x'Mx)", proved),
    )
    return FamilyProof(
        "polynomial",
        f"phi has degree {degree}",
        True,
        f"u(M, b) = sum_(|t| <= {degree}) (b - a)^t / t! * d^t u/da^t (M, a) for all b",
        steps,
        proved,
        "" if proved else _why_not(outcome.timed_out, "the direct expansion did not return an exact 0"),
    )


def _family(
    s, derivatives, family, hypothesis_text, holds, identities, identity_text, hypothesis, why_not, factors=None
):
    """Steps 1–3 for one family; ``identities`` is one expression or a list (one per j ≤ k)."""
    if not holds:
        return FamilyProof(family, hypothesis_text, False, note=why_not)
    many = isinstance(identities, list)
    identities = identities if many else [identities]
    factors = factors if factors is not None else [1] * len(identities)
    # step 1: identity − exp(Q)·factor·H(aᵀx) ≡ 0 for an undefined φ
    reductions = [sp.expand(i - sp.exp(s.Q) * f * hypothesis.subs(Z, s.z)) for i, f in zip(identities, factors)]
    step1 = all(r == 0 for r in reductions)
    factor_text = f"({sp.sstr(factors[0])})*" if factors[0] != 1 else ""
    shown1 = f"identity - exp(x'Mx)*{factor_text}H(a'x), H(z) = {_plain(hypothesis)}, phi undefined" + (
        f" (shown for j = k = 1; all {len(identities)} pairs checked)" if many and len(identities) > 1 else ""
    )
    # step 2: H ≡ 0 for this φ
    concrete_h = substitute_phi(hypothesis, derivatives)
    outcome2 = is_exact_zero(concrete_h, (Z,))
    step2 = bool(outcome2)
    shown2 = f"H(z) = {sp.sstr(concrete_h)}"
    # step 3 (confirmation): the identity with φ substituted, divided by exp(Q)
    direct = all(
        bool(
            is_exact_zero(
                sp.expand(substitute_phi(i, derivatives) * sp.exp(-s.Q)), (*s.x, *s.a, *s.m.values()), thorough=False
            )
        )
        for i in identities
    )
    steps = (
        ("step 1 (every phi)", shown1, step1),
        ("step 2 (this phi)", shown2, step2),
        ("direct check", "identity with phi substituted, / exp(x'Mx)", direct),
    )
    proved = step1 and step2
    why = "" if proved else _why_not(outcome2.timed_out, "a reduction step did not return an exact 0")
    return FamilyProof(family, hypothesis_text, True, identity_text, steps, proved, why)


def _why_not(timed_out: bool, otherwise: str) -> str:
    return "the exact proof timed out (time budget, see identcheck.util.budget)" if timed_out else otherwise


def _plain(expr) -> str:
    text = sp.sstr(expr)
    for m in range(3):
        text = text.replace(f"Phi{m}(z)", "phi" + "'" * m + "(z)")
    return text.replace("Phi0(-z)", "phi(-z)")
