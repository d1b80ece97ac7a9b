r"""EM for a declared Gaussian mixture of experts, inside the box, accelerated by SQUAREM.

Each EM map θ_t → θ_{t+1} is an ECM step: every block raises the expected complete log-likelihood
Q(θ | θ_t) = Σ_n Σ_{p,i} r_{n,p,i} [log s_p + log w_{p,i}(x_n) + log N(y_n | h_{p,i}(x_n), ν_{p,i})]
with the others held, so ℓ never decreases:

1. **E-step**: posteriors r_{p,i,n} at θ_t (:func:`numeric.model.density.posteriors`), and on the
   same blocks the sums steps 3–4 start from at θ_t (:mod:`numeric.fitting.sums`: masses, a
   log-linear gate's Q_g, gradient and curvature, an expert's Gauss–Newton sums), from the gate
   and expert values the E-step computed, so the M-step does not evaluate them at θ_t again.
2. **Shares** (if free): s_p = (1/n) Σ_n R_{p,n}, R_{p,n} = Σ_i r_{p,i,n}.
3. **Gate**: a constant gate in closed form, ω_i = Σ_n r_{i,n} / Σ_n R_{p,n}; any other gate raises
   Q_g(θ_g) = Σ_n Σ_i r_{i,n} log w_i(x_n; θ_g) in the box (:mod:`numeric.fitting.gate_step`: a
   Newton step for a log-linear gate, L-BFGS-B otherwise, θ_t kept unless Q_g rose).
4. **Experts**, for each atom, lower the weighted sum of squares S_i(η) = Σ_n r_{i,n} (y_n − h(x_n; η))²:
   a *linear* expert h = ηᵀΦ(x) in closed form, η̂ = (ΦR_iΦᵀ)⁻¹ΦR_i y, taking the point
   η_t + t(η̂ − η_t) with the largest t ∈ [0, 1] inside the box (S_i is a convex quadratic, so it
   falls along the segment); any other expert by damped Gauss–Newton steps
   (ΣJᵀR_iJ + λ diag) δ = JᵀR_i(y − h), J = ∂h/∂η exact, each accepted only if S_i falls
   (λ ← λ/3, else λ ← 4λ), projected into the box, at most ``expert_steps`` accepted steps.
5. **Variances**: ν_i = S_i / Σ_n r_{i,n}, clipped into [ν_floor, ν_max].

**SQUAREM** (``accelerate``, default; Varadhan and Roland, Scand. J. Statist. 2008, scheme S3):
from θ0, two maps give θ1, θ2; with r = θ1 − θ0, v = θ2 − 2θ1 + θ0 and α = −max(1, ‖r‖/‖v‖), the
point θ0 − 2αr + α²v, projected into the box, is mapped once more and kept if its ℓ is at least
max(ℓ(θ0), ℓ(θ1)), else θ2 is (the safeguard of Varadhan and Roland's code compares with ℓ(θ0)): ℓ
still never decreases, and θ2's E-step is run only when θ2 is kept, so a cycle of three EM
maps costs three E-steps. Over-fitted mixtures make plain EM crawl (linear
convergence with a rate near 1); on DeepSeekMoE's D1 at n = 10⁵ SQUAREM came within 1e-6
relative of L-BFGS-B's log-likelihood after 18 EM maps (seeds 0 and 1), plain EM after 45 and 78. One set of
posteriors is kept at a time (memory: the data plus O(n · atoms), bench/bench_declared_fit.py).

**Stopping rule**: the log-likelihood's relative change, (ℓ_{t+1} − ℓ_t) ≤ ``tol``·|ℓ_t| between
accepted points (default 1e-6, the DeepSeekMoE paper's EM tolerance), or ``max_iter`` EM maps
(default 1000). The history of ℓ is returned; tests check it never decreases.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, LinAlgWarning, solve

from ..model import CHUNK, Layout
from .attention_box import Box
from .gate_step import gate_step
from .sums import e_step as sums_e_step

__all__ = ["EMResult", "em"]

EM_TOLERANCE = 1e-6
MAX_ITERATIONS = 1000


@dataclass(frozen=True, slots=True)
class EMResult:
    """θ at the end, ℓ there, iterations run, whether the tolerance was met, ℓ after each iteration."""

    theta: np.ndarray = field(repr=False)
    log_likelihood: float
    iterations: int
    converged: bool
    history: tuple = field(repr=False)


def em(
    layout: Layout,
    theta,
    X,
    Y,
    box: Box,
    tol=EM_TOLERANCE,
    max_iter=MAX_ITERATIONS,
    expert_steps=1,
    gate_steps=1,
    accelerate=True,
    report=None,
) -> EMResult:
    """EM from ``theta`` (module docstring); ``report(iteration, ℓ)`` after each iteration."""
    theta = box.clip(np.asarray(theta, dtype=float))
    features = [part.expert.features(X) if part.expert.linear else None for part in layout.parts]

    def e_step(t):
        return sums_e_step(layout, t, X, Y)

    def m_step(t, r, sums):
        return _m_step(layout, t, X, Y, r, sums, box, features, expert_steps, gate_steps)

    # scipy's LinAlgWarning of an ill-conditioned expert step (an atom of vanishing weight) is silenced
    # for the whole fit: a filter set per solve would reset Python's once-per-location memory of every
    # other warning at each step, so a numpy RuntimeWarning would print once per iteration
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LinAlgWarning)
        return _em_loop(theta, e_step, m_step, box, tol, max_iter, accelerate, report)


def _em_loop(theta, e_step, m_step, box: Box, tol, max_iter, accelerate, report) -> EMResult:
    """:func:`em`'s iterations from the clipped ``theta``."""
    ll, r, sums = e_step(theta)
    history = [ll]
    converged = False
    iteration = 0
    while iteration < max_iter:
        theta1 = m_step(theta, r, sums)
        r = sums = None  # one set of posteriors alive at a time: memory is the data's plus O(n · atoms)
        if accelerate and iteration + 3 <= max_iter:
            new_theta, new, r, sums, maps = _squarem(theta, ll, theta1, e_step, m_step, box)
        else:
            (new, r, sums), new_theta, maps = e_step(theta1), theta1, 1
        iteration += maps
        history.append(new)
        if report is not None:
            report(iteration, new)
        change = new - ll
        theta, ll = new_theta, new
        if change <= tol * abs(ll):
            converged = True
            break
    return EMResult(theta, ll, iteration, converged, tuple(history))


def _squarem(theta0, ll0, theta1, e_step, m_step, box: Box):
    """One SQUAREM cycle (Varadhan and Roland 2008, scheme S3) from θ0 (ℓ0 there) and its EM map θ1,
    projected into the box, with its safeguard: the extrapolated point is kept only if one EM map
    from it ends with ℓ at least max(ℓ0, ℓ(θ1)); else the two plain maps' point θ2, whose E-step
    is run only then. Returns (θ, ℓ, posteriors and sums at θ, EM maps used)."""
    ll1, r, sums = e_step(theta1)
    theta2 = m_step(theta1, r, sums)
    r = sums = None
    step, curve = theta1 - theta0, theta2 - 2 * theta1 + theta0
    norm_curve = float(np.linalg.norm(curve))
    if norm_curve == 0.0:
        return theta2, *e_step(theta2), 2
    alpha = -max(1.0, float(np.linalg.norm(step)) / norm_curve)
    jump = box.clip(theta0 - 2 * alpha * step + alpha**2 * curve)
    jump_ll, r, sums = e_step(jump)
    if np.isfinite(jump_ll):
        theta3 = m_step(jump, r, sums)
        r = sums = None
        ll3, r, sums = e_step(theta3)
        if ll3 >= max(ll0, ll1):
            return theta3, ll3, r, sums, 3
    r = sums = None
    return theta2, *e_step(theta2), 3


def _m_step(layout: Layout, theta, X, Y, r, sums, box: Box, features, expert_steps, gate_steps):
    """One M-step from θ with posteriors r and the E-step's sums at θ (module docstring, steps 2–5)."""
    theta = theta.copy()
    lo, hi = box.lo, box.hi
    n = len(Y)
    if layout.free_shares:
        shares = slice(len(theta) - len(layout.parts), len(theta))
        theta[shares] = np.clip([s.mass.sum() / n for s in sums], lo[shares], hi[shares])
    for index, part in enumerate(layout.parts):
        block = slice(part.offset, part.offset + part.size)
        rows = theta[block].reshape(part.k, part.width)  # a view: edits go into theta
        rows_lo, rows_hi = lo[block].reshape(rows.shape), hi[block].reshape(rows.shape)
        rp, mass = r[index], sums[index].mass
        gates, experts = part.gate_columns, part.expert_columns
        if part.gate.kind == "constant":
            rows[:, 0] = np.clip(mass / max(mass.sum(), 1e-300), rows_lo[:, 0], rows_hi[:, 0])
        else:
            rows[:, gates] = gate_step(
                part.gate, X, rp, rows[:, gates], rows_lo[:, gates], rows_hi[:, gates], gate_steps, sums[index].gate
            )
        bounds = rows_lo[:, experts], rows_hi[:, experts]
        if part.expert.linear:
            eta, sse = _linear_step(features[index], Y, rp, rows[:, experts], *bounds)
        else:
            eta, sse = _gauss_newton(part.expert, X, Y, rp, rows[:, experts], *bounds, expert_steps, sums[index].expert)
        rows[:, experts] = eta
        nu = np.divide(sse, mass, out=rows[:, -1].copy(), where=mass > 0)
        rows[:, -1] = np.clip(nu, rows_lo[:, -1], rows_hi[:, -1])
    return theta


def _linear_step(Phi, Y, rp, eta0, lo, hi):
    """Weighted least squares per atom in closed form (Φ of shape (E, n)), moved from eta0 as far
    towards the solution as the box allows. An atom whose posteriors nearly vanish but at a few
    samples makes ΦR_iΦᵀ ill-conditioned: scipy's LinAlgWarning about it is silenced by :func:`em`
    (the solution, however far, is clipped to the box like any)."""
    k = eta0.shape[0]
    eta = eta0.copy()
    sse = np.empty(k)
    for i in range(k):
        weighted = Phi * rp[i]
        A, b = weighted @ Phi.T, weighted @ Y
        try:
            target = solve(A, b, assume_a="pos")  # an atom of vanishing weight: taken as far as the box allows
        except (LinAlgError, ValueError):
            target = eta0[i]
        step = target - eta0[i]
        with np.errstate(divide="ignore", invalid="ignore"):
            room = np.where(step > 0, (hi[i] - eta0[i]) / step, np.where(step < 0, (lo[i] - eta0[i]) / step, np.inf))
        t = min(1.0, float(room.min()))
        eta[i] = np.clip(eta0[i] + max(t, 0.0) * step, lo[i], hi[i])
        residual = Y - eta[i] @ Phi
        sse[i] = rp[i] @ residual**2
    return eta, sse


def _weighted(expert, X, Y, rp, eta, gradient: bool):
    """Per atom: S_i, and (Σ JᵀRJ, Σ JᵀR(y − h)) when ``gradient``; over blocks of samples."""
    k, E = eta.shape
    sse = np.zeros(k)
    A, b = np.zeros((k, E, E)), np.zeros((k, E))
    for start in range(0, len(Y), CHUNK):
        block = slice(start, start + CHUNK)
        w = rp[:, block]
        if gradient:
            h, J = expert.value_and_gradient(X[block], eta)
            residual = Y[block] - h
            wJ = w[:, None, :] * J
            A += np.einsum("ken,kfn->kef", wJ, J)
            b += np.einsum("ken,kn->ke", wJ, residual)
        else:
            residual = np.subtract(Y[block], expert.value(X[block], eta))
        sse += np.einsum("kn,kn->k", w * residual, residual)
    return sse, A, b


def _gauss_newton(expert, X, Y, rp, eta0, lo, hi, steps, first=None):
    """Damped Gauss–Newton on each atom's weighted sum of squares (module docstring, step 4);
    ``first``: (S, Σ JᵀRJ, Σ JᵀR(y − h)) at eta0 if already summed (:mod:`numeric.fitting.sums`)."""
    eta = eta0.copy()
    k = eta.shape[0]
    sse, A, b = (first[0].copy(), *first[1:]) if first is not None else _weighted(expert, X, Y, rp, eta, True)
    damping = np.full(k, 1e-3)
    active = np.ones(k, dtype=bool)
    accepted = np.zeros(k, dtype=int)
    for _ in range(4 * steps):
        if not active.any():
            break
        trial = eta.copy()
        for i in np.flatnonzero(active):
            if not np.diag(A[i]).max() > 0:  # no weight or no slope here (a switched-off relu): nothing to fit
                active[i] = False
                continue
            scale = np.maximum(np.diag(A[i]), 1e-12 * np.diag(A[i]).max())
            try:
                step = solve(A[i] + damping[i] * np.diag(scale), b[i])  # ill-conditioned: kept only if S_i falls
                trial[i] = np.clip(eta[i] + step, lo[i], hi[i])
            except (LinAlgError, ValueError):
                damping[i] *= 4
        trial_sse = _weighted(expert, X, Y, rp, trial, False)[0]
        better = active & (trial_sse < sse)
        small = better & (sse - trial_sse <= 1e-10 * sse)
        eta[better], sse[better] = trial[better], trial_sse[better]
        damping[better] /= 3
        damping[active & ~better] *= 4
        accepted += better
        active &= ~small & (damping < 1e12) & (accepted < steps)
        if (better & active).any():  # the sums move only with the atoms that moved and go on
            sse, A, b = _weighted(expert, X, Y, rp, eta, True)
    return eta, sse
