r"""Per-atom functions of the models the literature's known values are about, at stated truths.

- :func:`location_scale_gaussian`: F = N(y | μ, ν) (Ho & Nguyen, arXiv 1609.02655: r̄(2) = 4, r̄(3) = 6).
- :func:`softmax_gaussian_moe`: F = exp(β1ᵀx)·N(y | h(x; η), ν), the softmax gate's numerator with
  its weight exp(β0) factored out, h linear (η1ᵀx + η0: arXiv 2305.03288, DeepSeekMoE's routed
  part, D2) or tanh(η1ᵀx) (a strongly identifiable expert).
- :func:`constant_gate_linear_expert`: F = N(y | κ1ᵀx + κ0, τ) with weight ω (DeepSeekMoE's shared
  part, D2: κ1 squared).
- :func:`mha_linear_expert`: F = exp(xᵀMx)·aᵀx (the paper's MHA, regression: Σ_j a_j ∂F/∂a_j = F).

Softmax gating enters through its numerator: the denominator, cleared with the fitted atoms'
Σ_i exp(β0_i + β1_iᵀx), adds the per-atom term −exp(β1ᵀx)·f_{G*}(y | x), whose derivatives are
the x-powers of the pure-β1 ones; their coefficients −Σ_i p_i Δβ1_i^ℓ/ℓ! repeat the equations of
the (x^ℓ·F) terms, so the systems are unchanged (docs/model.md).
"""

from __future__ import annotations

import sympy as sp

from .atom import AtomFunction, atom_function, gaussian_density

__all__ = ["constant_gate_linear_expert", "location_scale_gaussian", "mha_linear_expert", "softmax_gaussian_moe"]

Y = sp.Symbol("y", real=True)
NU = sp.Symbol("nu", positive=True)


def _x(dim: int) -> tuple:
    return (sp.Symbol("x", real=True),) if dim == 1 else tuple(sp.Symbol(f"x{i + 1}", real=True) for i in range(dim))


def _vector(name: str, dim: int) -> tuple:
    if dim == 1:
        return (sp.Symbol(name, real=True),)
    return tuple(sp.Symbol(f"{name}_{i + 1}", real=True) for i in range(dim))


def location_scale_gaussian(mu=0, nu=1) -> AtomFunction:
    """N(y | μ, ν) at (μ*, ν*), y sampled in μ* ± 6√ν*."""
    m = sp.Symbol("mu", real=True)
    half = 6 * sp.sqrt(sp.Rational(nu))
    box = {"y": (sp.Rational(mu) - sp.floor(half + 1), sp.Rational(mu) + sp.floor(half + 1))}
    return atom_function(gaussian_density(Y, m, NU), [Y], [m, NU], {"mu": mu, "nu": nu}, box, "location-scale Gaussian")


def _gaussian_box(dim, low, high, spread):
    return {**{x.name: (low, high) for x in _x(dim)}, "y": (-spread, spread)}


def softmax_gaussian_moe(expert: str = "linear", dim: int = 1, truth: dict | None = None) -> AtomFunction:
    """exp(β1ᵀx)·N(y | h, ν), h = η1ᵀx + η0 (``"linear"``) or tanh(η1ᵀx) (``"tanh"``)."""
    x = _x(dim)
    beta1 = _vector("beta1", dim)
    eta1 = _vector("eta1", dim)
    slope = sp.Add(*(b * xi for b, xi in zip(beta1, x)))
    ridge = sp.Add(*(e * xi for e, xi in zip(eta1, x)))
    if expert == "linear":
        eta0 = sp.Symbol("eta0", real=True)
        mean, params = ridge + eta0, beta1 + eta1 + (eta0, NU)
        default = [1, -sp.Rational(1, 2)][:dim] + [sp.Rational(1, 2), sp.Rational(3, 4)][:dim] + [sp.Rational(1, 4)]
    elif expert == "tanh":
        mean, params = sp.tanh(ridge), beta1 + eta1 + (NU,)
        default = [1, -sp.Rational(1, 2)][:dim] + [sp.Rational(3, 2), -1][:dim]
    else:
        raise ValueError(f"expert={expert!r}: 'linear' or 'tanh'")
    values = dict(zip([p.name for p in params], default + [sp.Rational(2, 5)]))
    values.update(truth or {})
    F = sp.exp(slope) * gaussian_density(Y, mean, NU)
    return atom_function(F, x + (Y,), params, values, _gaussian_box(dim, -1, 1, 3), f"softmax-gated {expert} expert")


def constant_gate_linear_expert(dim: int = 1, truth: dict | None = None) -> AtomFunction:
    """N(y | κ1ᵀx + κ0, τ) (the weight ω factored out)."""
    x = _x(dim)
    k1 = _vector("k1", dim)
    k0 = sp.Symbol("k0", real=True)
    tau = sp.Symbol("tau", positive=True)
    values = {**{k.name: 2 for k in k1}, "k0": 0, "tau": sp.Rational(1, 5), **(truth or {})}
    mean = sp.Add(*(k * xi for k, xi in zip(k1, x))) + k0
    return atom_function(
        gaussian_density(Y, mean, tau),
        x + (Y,),
        k1 + (k0, tau),
        values,
        _gaussian_box(dim, -1, 1, 4),
        "constant-gated linear expert",
    )


def mha_linear_expert(dim: int = 1, truth: dict | None = None) -> AtomFunction:
    """exp(xᵀMx)·aᵀx, M symmetric (its upper triangle), regression."""
    x = _x(dim)
    pairs = [(i, j) for i in range(dim) for j in range(i, dim)]
    entries = {(i, j): sp.Symbol("M" if dim == 1 else f"M{i + 1}{j + 1}", real=True) for i, j in pairs}
    a = _vector("a", dim)
    score = sp.Add(*((1 if i == j else 2) * m * x[i] * x[j] for (i, j), m in entries.items()))
    F = sp.exp(score) * sp.Add(*(ai * xi for ai, xi in zip(a, x)))
    defaults = {m.name: sp.Rational(1, 2) if i == j else sp.Rational(-1, 4) for (i, j), m in entries.items()}
    defaults.update({ai.name: sp.Rational(3, 4) + i for i, ai in enumerate(a)})
    defaults.update(truth or {})
    return atom_function(F, x, tuple(entries.values()) + a, defaults, None, "MHA linear expert")
