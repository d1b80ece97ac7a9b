r"""A softmax part beside constant-gate parts: the true denominator cleared.

DeepSeekMoE's model (arXiv 2505.10860, its (1)) mixes a constant-gate part with a softmax part,

    f_G(y | x) = λ Σ_k ω_k A(θ_k) + (1 − λ) R_G(y | x) / S_G(x),

A = N(y | h1(x; κ), τ), R_G = Σ_i p_i F(θ_i) with F = exp(β1ᵀx)·N(y | h2(x; η), ν), p_i = exp(β0_i),
S_G = Σ_i p_i exp(β1_iᵀx), and g_G = R_G / S_G the routed density. Multiplying by the **true**
denominator S* = S_{G*} (a fixed positive function of x), as the softmax-gated MoE proofs do (Nguyen,
Nguyen and Ho, arXiv 2305.03288, their Q_n), and writing S*·R_G/S_G = R_G − (S_G − S*)·g_G,

    S*·(f_G − f_{G*}) = λ S*·(A_G − A_{G*}) + (1 − λ)·[(R_G − R_{G*}) − (S_G − S*)·g_G].

Expanded cell by cell, each of the three brackets is a sum of fixed functions times the cells'
coefficients, with no product of different cells' moves:

- the constant-gate part's Taylor terms times S*: S*(x)·∂^κA(θ*_k), coefficients Σ_{V_k} ω_i Δθ_i^κ/κ!
  (and the mass difference at κ = 0);
- the softmax part's numerator terms ∂^κF(θ*_j), as for a softmax part alone;
- the denominator terms x^α exp(β1*_jᵀx)·g_G, coefficients −Σ_{V_j} p_i Δβ1_i^α/α! (:mod:`.denominator`).

Only g_G is not fixed; it tends to g* = g_{G*} uniformly on the compact input box, so in the
argument by contradiction (divide by the loss, pass to the limit) the limit function is the
combination, with the limits of the cells' coefficients, of S*·∂^κA, ∂^κF and x^α exp(β1*_jᵀx)·g* —
the union this module builds for :mod:`.joint`: every constant-gate atom's basis multiplied by S*,
the softmax atoms' bases, and the denominator terms (with g*, the softmax part's own density, and
the reference dropped as in :mod:`.denominator`). When that union is linearly independent the
coefficients of each cell must vanish separately: the per-cell systems are the model's. Multiplying
by S* does not change a part's relations (S* does not depend on θ), so its basis and its per-cell
system are the ones the atom check computed.

Clearing with the fitted S_G instead leaves S_G·(A_G − A_{G*}), whose expansion multiplies the
moves of the softmax cells with those of the constant-gate cells at orders ≥ 2: the true
denominator avoids them. Without the factor the union tested is not the expansion's, and the two
answers differ: a routed atom at the softmax's reference (β1* = 0, β0* = 0) whose expert is the
shared one has F = A, so the unscaled union is dependent, while S*·A = Σ_j p*_j exp(β1*_jᵀx)·A is
not in the span of the numerator terms unless every routed expert is A — and f_G = A + (1 − λ)·π2(x)·
(B2 − A) (two routed atoms, one shared) does determine the gate and the experts.

Two softmax parts or more (one S* each) are not expressed: :func:`cleared_bases` leaves the bases
as they are and :class:`~identcheck.model.declared.DeclaredCheck` calls such a model inconclusive.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from .basis import SpanBasis
from .denominator import DenominatorTerms

__all__ = ["cleared_bases"]


def cleared_bases(results: tuple, denominators: tuple[DenominatorTerms, ...]) -> tuple[tuple[SpanBasis, ...], tuple]:
    """The bases the joint test takes, and the parts multiplied by S*: with exactly one softmax part
    (``denominators``) among the parts of ``results`` (``((part, ModelVerdict), …)``), every other
    part's atoms are S*(x)·F (module docstring); otherwise each atom's basis as it is."""
    bases = tuple(v.basis for _, v in results)
    if len(denominators) != 1 or denominators[0].true_denominator is None:
        return bases, ()
    softmax = denominators[0]
    cleared = tuple(sorted({part for part, _ in results if part != softmax.part}))
    out = tuple(
        basis if part == softmax.part else _times(basis, softmax.true_denominator)
        for (part, _), basis in zip(results, bases)
    )
    return out, cleared


def _times(basis: SpanBasis, denominator: sp.Expr) -> SpanBasis:
    """``basis`` with its atom's F multiplied by ``denominator`` (in the atom's own x, matched by name)."""
    atom = basis.atom
    by_name = {v.name: v for v in atom.variables}
    missing = sorted(s.name for s in denominator.free_symbols if s.name not in by_name)
    if missing:
        raise ValueError(f"the softmax denominator's inputs {missing} are not variables of {atom.name}")
    scale = denominator.xreplace({s: by_name[s.name] for s in denominator.free_symbols})
    return replace(basis, atom=replace(atom, expr=scale * atom.expr, name=f"S*·{atom.name}"))
