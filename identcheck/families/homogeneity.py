"""A scale/homogeneity relation: h(x; t^w·θ) = t^c·h(x; θ) gives Σ_j w_j θ_j ∂h/∂θ_j = c·h.

The hypothesis rescales some parameters (weights w_j, most often 1) and multiplies h by t^c;
differentiating at t = 1 gives the relation, which holds for every θ and so may itself be
differentiated in any parameter. Where the conditions offer its structure:

- **type-1** (φ = C·z^k, i.e. zφ' = kφ proved for φ: :mod:`.phi`): ū is homogeneous of degree k
  in a, Σ_j a_j ∂ū/∂a_j − k·ū = 0 with its first derivatives (:func:`type1_templates`); across
  components with one M and a₂ = λa₁: ∂^t ū(θ₂) = λ^(k−m) ∂^t ū(θ₁), m = |t| in a (:func:`rescaled`).
- **type-2** (the same φ): per channel k·φ(f^k) − Σ_{i,l} a_{i,k,l} ∂u_{i,k}/∂a_l·φ'(f^k)/E = 0
  (:func:`euler_parts`), proved with φ abstract (:func:`apply_euler`); and on the φ-free factors
  the linear expert's ∂u/∂M_jl, linear in a: Σ_m a_m ∂²u/∂M_jl∂a_m = ∂u/∂M_jl (degree 1).
- **an expert** h(x; θ) (the DeepSeekMoE sets): a relation Σ_u w_u θ_u ∂h/∂θ⁽ᵘ⁾ = 0 among one
  atom's first derivatives, w_u small integers, is the rescaling θ_u → t^{w_u}·θ_u leaving h
  unchanged (ReLU's positive homogeneity is w = (−1, 1, …, 1)); and the scale relation
  ∂²h/∂c∂θ = ∂h/∂θ / c where θ enters h only through a part homogeneous of degree 1 in c:
  h = c·f(x; θ, …) + g with g free of θ — all of h (e2*tanh(e1ᵀx)) or one unit of a sum (an MLP's
  c1·tanh(w1ᵀx + b1), a skip connection's c·tanh(vᵀx + b)) — i.e. ∂(c·∂h/∂c − h)/∂θ ≡ 0
  (:func:`expert_name`). Each name is given only when sympy proves the hypothesis for h's general
  parameters.

A hypothesis is decided once per (h, family, parameters) and cached (:func:`_identity`): refuted
first by a value at rational points (30 digits), then proved by ``expand``, then by ``simplify``
under the budget (:data:`~identcheck.util.budget.SIMPLIFY_SECONDS`, inside the check's pool); what the
budget leaves undecided is not named (and not cached, so a later check with time left decides it).

The names in the JSON stay those each condition has always shown (:data:`EULER`, :data:`LINEAR_EXPERT`,
:data:`EXPERT_EULER`, :data:`SCALE`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import numpy as np
import sympy as sp

from ..terms.type1 import _PhiDerivative
from ..util.budget import SIMPLIFY_SECONDS, run
from .base import Family, match_output

__all__ = [
    "EULER",
    "EXPERT_EULER",
    "FAMILY",
    "LINEAR_EXPERT",
    "SCALE",
    "apply_euler",
    "euler_parts",
    "euler_relation",
    "expert_name",
    "rescaled",
    "rescaling_holds",
    "scale_holds",
    "type1_templates",
]

FAMILY = Family("scale/homogeneity", "h(x; t^w*theta) = t^c*h(x; theta): sum_j w_j theta_j dh/dtheta_j = c*h")
EULER = "Euler/homogeneity"  # φ = C·z^k (type-1, type-2)
LINEAR_EXPERT = "linear-expert PDE (holds for every phi)"  # type-2's φ-free factors: ∂u/∂M linear in a
EXPERT_EULER = "Euler/homogeneity (a rescaling of the parameters leaves h unchanged)"
SCALE = "scale (∂²h/∂c∂θ = ∂h/∂θ / c)"
EULER_WEIGHT = 12  # largest integer weight w_u read as a homogeneity degree


def euler_relation(weighted: dict, degree) -> dict:
    """Σ_j w_jθ_j ∂h/∂θ_j − c·h = 0 on derivative keys: ``weighted`` maps each ∂h/∂θ_j's key to
    w_j·θ_j (an expression), ``degree`` is c; h's key is ``()``."""
    return {**weighted, (): -degree}


def euler_parts(value_key, degree, derivatives) -> list:
    """c·h − Σ_j θ_j ∂h/∂θ_j = 0 as (key, coefficient) parts: ``value_key`` is h's key,
    ``derivatives`` the (∂h/∂θ_j's key, θ_j's value) pairs."""
    return [(value_key, degree)] + [(key, -theta) for key, theta in derivatives]


def type1_templates(b, degree, a, component) -> None:
    """Type-1, one component: Σ_j a_j ∂ū/∂a_j − k·ū = 0 and its first derivatives (``b``: a
    :class:`~identcheck.families.base.Builder`; ``a``: the a-symbols)."""
    relation = euler_relation({(f"a{j + 1}",): a[j] for j in range(len(a))}, degree)
    for derived in b.with_derivatives(relation):
        b.add(EULER, f"z*phi' = {degree}*phi", [(component, derived)])


def rescaled(b, degree, lam, c1, c2, keys) -> None:
    """Type-1, two components with one M and a₂ = λa₁: ∂^t ū(θ₂) = λ^(k−m) ∂^t ū(θ₁), m the
    number of a's in t (ū(M, λa) = λ^k ū(M, a), differentiated)."""
    for key in keys:
        m = sum(1 for n in key if n.startswith("a"))
        b.add(EULER, f"phi(l*z) = l**{degree}*phi(z)", [(c2, {key: 1}), (c1, {key: -(lam ** (degree - m))})])


def apply_euler(expr, k, outputs, seen):
    """Rewrite φ(w) → P_j, φ'(w) → k·P_j/w and φ''(w) → k(k − 1)·P_j/w² for every argument w
    equal to a channel output f^j, with P_j a plain symbol standing for φ(f^j)
    (:func:`_value_symbol`); None when some argument is not a channel output.

    The Euler hypothesis zφ'(z) = kφ(z), proved by sympy (:func:`~identcheck.families.phi.phi_properties`),
    gives the first; differentiated, zφ'' = (k − 1)φ', so z²φ'' = k(k − 1)φ, the second. Both
    hold wherever w ≠ 0. If the rewritten expression is identically 0 with the P_j free, it is
    0 for P_j = φ(f^j) (substitution is a homomorphism), so the relation holds wherever no f^j
    vanishes — f^j is a nonzero analytic function of x (else w/w is not a rational function sympy
    reduces), so that set is dense — and, the terms being continuous, everywhere.
    """
    replacements = {}
    for atom in expr.atoms(_PhiDerivative):
        w = atom.args[0]
        if w not in seen:
            seen[w] = match_output(w, outputs)
        if seen[w] is None or seen[w][1] != 1:
            return None
        f = outputs[seen[w][0]]
        replacements[atom] = _value_symbol(seen[w][0]) * (1, k / f, k * (k - 1) / f**2)[atom.order]
    return expr.xreplace(replacements)


@lru_cache(maxsize=None)
def _value_symbol(j: int) -> sp.Symbol:
    """A plain symbol standing for φ(f^j) in :func:`apply_euler`'s output: an identity with it free
    holds for every value it stands for (sympy then never looks inside f^j's long expression)."""
    return sp.Symbol(f"phi_of_f{j + 1}")


def expert_name(expert, atoms, members) -> str | None:
    """:data:`EXPERT_EULER` or :data:`SCALE` when the relation (``members``:
    :func:`~identcheck.families.base.structure`) has that shape on one atom and sympy proves the
    hypothesis for h's general parameters; else None."""
    if not members or any(m.atom is None for m in members) or len({m.atom for m in members}) != 1:
        return None
    value = dict(zip((p.name for p in expert.params), atoms[members[0].atom].values))
    symbol = {p.name: p for p in expert.params}
    if len(members) >= 3 and all(m.kind == "d" for m in members):
        weights: list | tuple | None = _weights([m.coefficient / value[m.names[0]] for m in members])
        if weights is not None and rescaling_holds(
            expert.h, tuple(sorted(((symbol[m.names[0]], w) for w, m in zip(weights, members)), key=str))
        ):
            return EXPERT_EULER
    if all(m.kind == "prod" for m in members):  # S2: the Euler relation times a combination of members
        weights = euler_weights(expert.h, tuple(expert.params), tuple(expert.x))
        if weights is not None and _times_euler(
            [w * value[p.name] for w, p in zip(weights, expert.params)], [p.name for p in expert.params], members
        ):
            return EXPERT_EULER
    if len(members) == 2 and {m.kind for m in members} == {"d", "dd"}:
        d, dd = sorted(members, key=lambda m: m.kind)
        if d.names[0] in dd.names and dd.names[0] != dd.names[1]:
            c = dd.names[1] if dd.names[0] == d.names[0] else dd.names[0]
            if dd.coefficient == -d.coefficient * value[c] and scale_holds(expert.h, symbol[c], symbol[d.names[0]]):
                return SCALE
    return None


def euler_weights(h, params: tuple, x: tuple) -> tuple | None:
    """The integer weights w (the smallest in size ±1) of the one rescaling θ_u → t^{w_u}·θ_u that
    leaves h unchanged: the null direction of [θ_u ∂h/∂θ_u] at rational points (30 digits), read as
    small integers (:func:`_euler_candidate`), then Σ_u w_u θ_u ∂h/∂θ_u ≡ 0 proved by sympy
    (:func:`rescaling_holds`); None when there is none (or more)."""
    weights = _euler_candidate(h, params, x)
    if weights is None or not rescaling_holds(h, tuple(zip(params, weights))):
        return None
    return weights


@lru_cache(maxsize=64)
def _euler_candidate(h, params: tuple, x: tuple) -> tuple | None:
    """:func:`euler_weights`' numerical part (no budget: cached whatever it finds)."""
    columns = [p * sp.diff(h, p) for p in params]
    rng = np.random.default_rng(len(params))
    rows = []
    for _ in range(len(params) + 4):
        at = {v: sp.Rational(int(k), 16) for v, k in zip(params + x, rng.integers(3, 16, len(params) + len(x)))}
        try:
            rows.append([complex(c.xreplace(at).evalf(30)) for c in columns])
        except (TypeError, ValueError, ZeroDivisionError):
            return None
    singular, vectors = np.linalg.svd(np.array(rows))[1:]
    if not np.all(np.isfinite(singular)) or singular[0] == 0 or singular[-1] > 1e-12 * singular[0]:
        return None
    if len(singular) > 1 and singular[-2] < 1e-6 * singular[0]:
        return None  # more than one direction: not read as one rescaling
    direction = vectors[-1].conj()
    direction = direction / direction[np.argmax(np.abs(direction) > 1e-9)]
    ratios = [Fraction(float(v.real)).limit_denominator(EULER_WEIGHT) for v in direction]
    if any(abs(float(r) - v.real) > 1e-8 or abs(v.imag) > 1e-8 for r, v in zip(ratios, direction)):
        return None
    weights = _weights([sp.Rational(r.numerator, r.denominator) for r in ratios])
    return None if weights is None else tuple(weights)


def _times_euler(e, names, members) -> bool:
    """Σ c_uv ∂_u h·∂_v h = (Σ_u e_u ∂_u h)·(Σ_v g_v ∂_v h) for some g: the products' symmetric
    matrix C equals (e gᵀ + g eᵀ)/2, solved exactly for g."""
    index = {n: i for i, n in enumerate(names)}
    C = sp.zeros(len(names))
    for m in members:
        u, v = (index[n] for n in m.names)
        C[u, v] += m.coefficient if u == v else m.coefficient / 2
        if u != v:
            C[v, u] += m.coefficient / 2
    g = sp.symbols(f"g0:{len(names)}")
    equations = [(e[u] * g[v] + g[u] * e[v]) / 2 - C[u, v] for u in range(len(names)) for v in range(u, len(names))]
    return bool(sp.linsolve(equations, g))


def _weights(ratios) -> list | None:
    """The ratios as small integers up to a common factor (the smallest in size is ±1), or None."""
    unit = min(abs(r) for r in ratios)
    if unit == 0:
        return None
    weights = [r / unit for r in ratios]
    if all(w.is_integer and abs(w) <= EULER_WEIGHT for w in weights):
        return weights
    return None


def scale_holds(h, c, theta) -> bool:
    """θ enters h only through a part homogeneous of degree 1 in c, h = c·f(x; θ, …) + g with g free
    of θ: ∂(c·∂h/∂c − h)/∂θ ≡ 0 — the scale relation ∂h/∂θ = c·∂²h/∂c∂θ for every x and θ. Proved
    once per (h, c, θ) (:func:`_identity`)."""
    return _identity(("scale", h, c, theta), lambda: sp.diff(c * sp.diff(h, c) - h, theta))


def rescaling_holds(h, weighted: tuple) -> bool:
    """Σ_u w_u θ_u ∂h/∂θ_u ≡ 0 for ``weighted`` = ((θ_u, w_u), …): the rescaling θ_u → t^{w_u}·θ_u
    leaves h unchanged. Proved once per (h, weights) (:func:`_identity`)."""
    return _identity(("rescaling", h, weighted), lambda: sum(w * p * sp.diff(h, p) for p, w in weighted))


_PROVED: dict = {}  # (family, h, parameters…) → bool: decided hypotheses (a budget's timeout is not kept)
ZERO_POINTS = 2  # rational points at which a hypothesis is evaluated before sympy tries to prove it
NONZERO = 1e-15  # |value| at 30 digits above this (relative to its terms' size) refutes an identity


def _identity(key, build) -> bool:
    """Whether ``build()`` ≡ 0, decided once per ``key`` (h with the family's parameters) and cached."""
    if key in _PROVED:
        return _PROVED[key]
    proved, timed_out = _zero(build())
    if not timed_out:
        _PROVED[key] = proved
    return proved


def _zero(expr) -> tuple[bool, bool]:
    """(expr ≡ 0, timed out): refuted by a nonzero value at a rational point (:func:`_nonzero_at_a_point`),
    else proved by ``expand``, else by ``simplify`` under the budget; False when not proved."""
    if _nonzero_at_a_point(expr):
        return False, False
    if sp.expand(expr) == 0:
        return True, False
    value, timed_out = run(sp.simplify, expr, seconds=SIMPLIFY_SECONDS)
    return value == 0, timed_out


def _nonzero_at_a_point(expr) -> bool:
    """expr has a nonzero value (30 digits, relative to its terms' size) at one of :data:`ZERO_POINTS`
    rational points of its free symbols; a point where it is undefined says nothing."""
    symbols = sorted(expr.free_symbols, key=str)
    rng = np.random.default_rng(len(symbols))
    terms = sp.Add.make_args(expr)
    for _ in range(ZERO_POINTS):
        signs = rng.choice((-1, 1), len(symbols))
        at = {v: sp.Rational(int(s * k), 16) for v, s, k in zip(symbols, signs, rng.integers(3, 16, len(symbols)))}
        try:
            value = complex(expr.xreplace(at).evalf(30))
            scale = max([abs(complex(t.xreplace(at).evalf(30))) for t in terms] + [1.0])
        except (TypeError, ValueError, ZeroDivisionError):
            continue
        if np.isfinite(value) and np.isfinite(scale) and abs(value) > NONZERO * scale:
            return True
    return False
