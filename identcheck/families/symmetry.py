"""A sign symmetry: h(x; −θ) = s·h(x; θ) + q with s = ±1 and q a polynomial.

Differentiated |t| times in θ, every member ∂^t h satisfies ∂^t h(x; −θ) = s·(−1)^|t|·∂^t h(x; θ)
+ (−1)^|t|·∂^t q: on two atoms θ₂ = −θ₁ the same member of both is tied wherever ∂^t q ≡ 0, and
where it is not, q's derivatives are polynomials the other members may cancel. Where the
conditions offer its structure:

- **type-1** (φ(−z) = sφ(z) + q(z) proved for φ, :mod:`.phi`): with one M and a₂ = −a₁,
  ∂^t ū(θ₂) = (−1)^m s ∂^t ū(θ₁) wherever q^(m) ≡ 0 (m = |t| in a); and when q = q₁z (softplus,
  SiLU), for m = 0 and |t| ≤ 1: ∂^t ū(θ₂) − s ∂^t ū(θ₁) + Σ_j a₁ⱼ (∂^t∂_{a_j} ū(θ₂) + s ∂^t∂_{a_j}
  ū(θ₁)) = 0 (:func:`type1_templates`). For any polynomial q (tanh(z) + c·z²: q = 2cz²), each
  difference D_t = ∂^t ū(θ₂) − (−1)^m s ∂^t ū(θ₁) = (−1)^m exp(xᵀMx)·c_t x^α q^(m)(a₁ᵀx) is
  exp(xᵀMx) times a polynomial, and every relation Σ λ_t D_t = 0 among them is read exactly
  from those polynomials (:func:`exact_templates`, :func:`~identcheck.families.polynomial.polynomial_null_space`).
- **type-2** (the same φ): on a head with a_{i,2} = −a_{i,1} for every gate, f² = −f¹ and each
  channel-2 term is a fixed multiple of its channel-1 counterpart wherever q^(m) ≡ 0
  (:func:`type2_parts`); proved with φ kept abstract after the rewrite :func:`apply_parity`.
- **an expert** h(x; θ) on a sign pair of atoms θ₂ = −θ₁: sympy finds s and q for h's general
  parameters (:func:`expert_parity`), and a relation is named when every member's coefficients on
  the two atoms cancel under the rewrite (:func:`expert_name`) — tanh's ∂h/∂η[1] − ∂h/∂η[2] = 0,
  sigmoid's ∂h/∂η1[1] + ∂h/∂η1[2] = 0 (σ(−z) = 1 − σ(z): q = −η2), softplus's eight-member
  relation (softplus(−z) = softplus(z) − z: q = η2(η1ᵀx + η0)).

Type-1 and type-2 name it :data:`SYMMETRY` (as they always have); an expert's relation
:data:`EXPERT_SIGN`.
"""

from __future__ import annotations

import sympy as sp

from ..parse.activation import Z
from ..terms.type1 import _PhiDerivative
from ..terms.type2 import on_channel
from ..util.budget import SIMPLIFY_SECONDS, run
from .base import Family, Template, match_output
from .polynomial import polynomial_null_space

__all__ = [
    "EXPERT_SIGN",
    "FAMILY",
    "SYMMETRY",
    "apply_parity",
    "expert_name",
    "expert_parity",
    "exact_templates",
    "type1_templates",
    "type2_parts",
]

FAMILY = Family("sign symmetry", "h(x; -theta) = s*h(x; theta) + q, s = +-1, q a polynomial")
SYMMETRY = "symmetry"  # φ(−z) = sφ(z) + q(z) (type-1, type-2)
EXPERT_SIGN = "atoms tied by a sign symmetry (h(x; −θ) = ±h(x; θ) + q, q a polynomial)"


def type1_templates(b, symmetry, keys, a1, c1, c2) -> None:
    """Type-1, components c1, c2 with one M and a₂ = −a₁ (``b``: a
    :class:`~identcheck.families.base.Builder`; ``keys``: every derivative key of the set)."""
    s, q = symmetry
    hyp = f"phi(-z) = {s}*phi(z) + ({q})"
    for key in sorted(keys, key=lambda k: sp.diff(q, Z, sum(1 for n in k if n.startswith("a"))) != 0):
        m = sum(1 for n in key if n.startswith("a"))
        if sp.diff(q, Z, m) == 0:
            b.add(SYMMETRY, hyp, [(c2, {key: 1}), (c1, {key: -((-1) ** m) * s})])
        elif m == 0 and len(key) <= 1 and q.is_polynomial(Z) and sp.degree(q, Z) == 1 and q.subs(Z, 0) == 0:
            # q = q1·z: e·x^α·q(aᵀx) is itself a combination of the a-derivatives
            rel_c2, rel_c1 = {key: 1}, {key: -s}
            for j in range(len(a1)):
                rel_c2[b.key(key + (f"a{j + 1}",))] = a1[j]
                rel_c1[b.key(key + (f"a{j + 1}",))] = s * a1[j]
            b.add(SYMMETRY, hyp, [(c2, rel_c2), (c1, rel_c1)])


def exact_templates(term_set, symmetry, probe):
    """Type-1, every pair of components with one M and a₂ = −a₁: the relations Σ λ_t D_t = 0 (module
    docstring), one template per basis vector of their exact null space (with q^(m) ≡ 0 a D_t is 0
    itself: the term-by-term ties of :func:`type1_templates`, found again)."""
    s, q = symmetry
    hypothesis = f"phi(-z) = {s}*phi(z) + ({q})"
    n = len(term_set.terms)
    comps = probe.components
    for c1 in range(len(comps)):
        for c2 in range(c1 + 1, len(comps)):
            if comps[c1].M != comps[c2].M or any(v2 != -v1 for v1, v2 in zip(comps[c1].a, comps[c2].a)):
                continue
            if all(v == 0 for v in comps[c1].a):
                continue
            first = term_set.numeric_params(comps[c1].M, comps[c1].a)
            second = term_set.numeric_params(comps[c2].M, comps[c2].a)
            differences, signs = [], []
            for term in term_set.terms:
                m = term.phi_order
                flipped = term.reduced.xreplace(second).replace(
                    lambda e: isinstance(e, _PhiDerivative),
                    lambda e: (-1) ** e.order * (s * type(e)(-e.args[0]) + sp.diff(q, Z, e.order).subs(Z, -e.args[0])),
                )
                sign = -((-1) ** m) * s
                difference = sp.expand(flipped + sign * term.reduced.xreplace(first))
                if difference.has(_PhiDerivative):  # the arguments did not match exactly: no reading
                    return
                differences.append(difference)
                signs.append(sign)
            for vector in polynomial_null_space(differences, term_set.x):
                coefficients = [(c2 * n + i, v) for i, v in enumerate(vector) if v != 0]
                coefficients += [(c1 * n + i, signs[i] * v) for i, v in enumerate(vector) if v != 0]
                yield Template(SYMMETRY, hypothesis, tuple(sorted(coefficients, key=lambda cv: cv[0])))


def type2_parts(pairs, symmetry):
    """Type-2, a head with a_{i,2} = −a_{i,1} for every gate: (hypothesis, parts) per mirrored pair
    (``pairs``: (key on channel 2, ratio of the φ-free factors, φ-order))."""
    sign, q = symmetry
    for key, ratio, order in pairs:
        if sp.diff(q, Z, order) == 0:  # φ^(m)(−z) = s(−1)^m φ^(m)(z) wherever q^(m) ≡ 0
            yield f"phi(-z) = {sign}*phi(z) + ({q})", [(key, 1), (on_channel(key, 0), -sign * (-1) ** order * ratio)]


def apply_parity(expr, symmetry, outputs, seen):
    """Rewrite φ^(m)(w) with w = −f^k (exactly) as (−1)^m (s φ^(m)(f^k) + q^(m)(f^k)); w = f^k → φ^(m)(f^k).

    Returns (rewritten expression, whether any argument was −f^k). ``seen`` caches the
    comparison per argument.
    """
    sign, q = symmetry
    replacements = {}
    flipped = False
    for atom in expr.atoms(_PhiDerivative):
        w = atom.args[0]
        if w not in seen:
            seen[w] = match_output(w, outputs)
        match = seen[w]
        if match is None:
            continue
        k, orientation = match
        if orientation == 1:
            replacements[atom] = type(atom)(outputs[k])
        else:
            flipped = True
            # φ(−z) = sφ(z) + q(z), differentiated m times: φ^(m)(−f) = (−1)^m (s φ^(m)(f) + q^(m)(f))
            f = outputs[k]
            replacements[atom] = (-1) ** atom.order * (sign * type(atom)(f) + sp.diff(q, Z, atom.order).subs(Z, f))
    return expr.xreplace(replacements), flipped


_PARITY: dict = {}  # (h, params, x) → expert_parity's answer, kept only when no budget ran out


def expert_parity(h: sp.Expr, params: tuple, x: tuple):
    """(s, q) with h(x; −θ) = s·h(x; θ) + q, q a polynomial in x and θ, proved by sympy (q = 0
    preferred); None when neither sign gives a polynomial within the budget. Decided once per
    expert; an answer a budget cut short is not kept (a later check with time left decides it)."""
    key = (h, params, x)
    if key in _PARITY:
        return _PARITY[key]
    flipped = h.xreplace({p: -p for p in params})
    found, cut = None, False
    for s in (1, -1):
        q, timed_out = run(_polynomial, flipped - s * h, params + x, seconds=SIMPLIFY_SECONDS)
        cut = cut or timed_out
        if q is not None and (found is None or q == 0):
            found = (s, q)
        if found is not None and found[1] == 0:
            break
    if not cut:
        _PARITY[key] = found
    return found


def _polynomial(expr, variables, depth=2):
    """expr as an expanded polynomial in ``variables``, or None: ``expand`` first, then the
    numerator over a common denominator with exponentials combined, cancelled; with logarithms
    (softplus; ``depth`` times at most), through the gradient: a polynomial gradient g integrates
    exactly along the segment from 0, q(v) = q(0) + ∫₀¹ g(tv)·v dt (the domain is connected)."""
    value = sp.expand(expr)
    if _is_polynomial(value, variables):
        return value
    numerator, denominator = sp.together(value).as_numer_denom()
    numerator, denominator = (sp.expand(sp.powsimp(sp.expand(e), combine="exp")) for e in (numerator, denominator))
    value = sp.expand(sp.cancel(numerator / denominator))
    if _is_polynomial(value, variables):
        return value
    if depth == 0 or not expr.has(sp.log):
        return None
    gradient = [_polynomial(sp.diff(expr, v), variables, depth - 1) for v in variables]
    if any(g is None for g in gradient):
        return None
    origin = sp.simplify(expr.xreplace({v: 0 for v in variables}))
    if not _is_polynomial(origin, variables):  # h undefined at the origin (log(e1ᵀx): zoo − zoo = nan)
        return None
    t = sp.Dummy("t")
    along = sum(g.xreplace({u: t * u for u in variables}) * v for g, v in zip(gradient, variables))
    value = sp.expand(origin + sp.integrate(sp.expand(along), (t, 0, 1)))
    return value if _is_polynomial(value, variables) else None


def _is_polynomial(value, variables) -> bool:
    """A polynomial in ``variables`` with finite real coefficients: sympy calls nan, zoo and ∞
    polynomials (constants), and a complex constant is no sign symmetry of a real h."""
    return not value.has(sp.nan, sp.zoo, sp.oo, -sp.oo, sp.I) and value.is_polynomial(*variables)


def expert_name(expert, atoms, members) -> str | None:
    """:data:`EXPERT_SIGN` when the relation (``members``: :func:`~identcheck.families.base.structure`)
    ties two atoms θ₂ = −θ₁ and, rewritten by h's sign symmetry, every member's coefficients cancel
    (the rest is q's derivatives, polynomials, which the proved relation cancels); else None."""
    if len(atoms) != 2 or any(v2 != -v1 for v1, v2 in zip(atoms[0].values, atoms[1].values)):
        return None
    if any(m.atom is None for m in members) or len({m.atom for m in members}) != 2:
        return None
    parity = expert_parity(expert.h, tuple(expert.params), tuple(expert.x))
    if parity is None:
        return None
    s, q = parity
    flat = {p.name: p for p in expert.params}
    total: dict = {}
    remainder = sp.Integer(0)  # q's part of the rewritten members of atom 2, at atom 1
    for m in members:
        if m.kind == "prod":  # a product rewrites without remainder only where q's derivatives vanish
            if any(sp.diff(q, flat[n]) != 0 for n in m.names):
                return None
            sign = 1
        else:
            sign = s * (-1) ** m.order
            if m.atom == 1:
                part = sp.diff(q, *(flat[n] for n in m.names)) * (expert.x[m.w - 1] if m.kind == "x" else 1)
                remainder += m.coefficient * (-1) ** m.order * part
        member = (m.kind, m.names, m.w)
        total[member] = total.get(member, 0) + (m.coefficient if m.atom == 0 else sign * m.coefficient)
    if any(v != 0 for v in total.values()):
        return None
    at = dict(zip(expert.params, atoms[0].values))
    return EXPERT_SIGN if sp.expand(remainder.xreplace(at)) == 0 else None
