r"""The Kullback–Leibler projection of a declared truth onto one part's fitted atom count: a loss target.

For a density f_G(y | x) = Σ_p s_p Σ_i w_{p,i}(x) N(y | h_p(x; η_{p,i}), ν_{p,i}) and a part p
declared with ``target = "kl-projection"``, the target is

    Ǧ_p = argmin_{G_p ∈ Θ^{k_p}} KL(f_{G*} ‖ f_{G*_{−p}, G_p})
        = argmax_{G_p ∈ Θ^{k_p}} E_{X ~ μ} ∫ f_{G*}(y | X) log f_{G*_{−p}, G_p}(y | X) dy,

k_p the part's fitted atom count, the other parts at the truth, Θ the fit's box
(the rule of :func:`numeric.fitting.declared_box` at its default factor 2): the limit of the maximum-likelihood
fit when the truth is not a k_p-atom measure of the part (arXiv 2505.10860, Appendix A.2: the
normalised sigmoid's dense regime, where no 3-atom measure reproduces a 2-atom truth whose β1 ≠ 0;
the paper writes the divergence as KL(g_{G*_1, G_2} ‖ g_{G*}), we take the order the fit
converges to). Without bounds the infimum need not be attained, so Ǧ_p belongs to Θ.

**Quadrature** (one input dimension). X: composite Gauss–Legendre on [low, high] (``panels`` equal
panels of ``nodes`` points; an even count puts a panel edge at 0 on a symmetric interval, where
ReLU experts without bias have their kink) or Gauss–Hermite for X ~ N(0, 1). Y | x: the truth is a
mixture of Gaussians, so ∫ f* φ = Σ_c π_c(x) Σ_t (ω_t/√π) φ(m_c(x) + √(2 v_c(x)) t) with ``hermite``
Gauss–Hermite nodes t per component. The objective J(G_p) = −Σ_q W_q log f_G(y_q | x_q) over the
quadrature points q, with its exact gradient (:mod:`numeric.model.density`'s formulas, weighted),
is minimised by L-BFGS-B in Θ from several starts (the truth split as the papers' start splits
it, each true atom copied, and seeded perturbations); the best is kept. KL = Σ_q W_q (log f* − log f_G).

**Accuracy**, recorded with the target: the projected gradient's norm at the optimum, and the
change of the atoms and of KL when the optimum is recomputed at about twice the quadrature order.
The result is computed once per declaration digest and process (cached).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import permutations

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logit

from identcheck.declaration import digest

from ..errors import NumericError
from ..model import DeclaredModel, contract, part_values

__all__ = ["DEFAULT_ORDER", "KLProjection", "kl_projection", "projection_objective", "quadrature"]

#: (x panels, Gauss–Legendre nodes per panel, Gauss–Hermite nodes per Gaussian component)
DEFAULT_ORDER = (8, 12, 24)
_FINE = (16, 16, 40)
_CACHE: dict[tuple, "KLProjection"] = {}


@dataclass(frozen=True, slots=True)
class KLProjection:
    """Ǧ_p (``atoms``, rows in the declared column order ``names``), KL(f* ‖ f_Ǧ), and how accurate."""

    part: str
    atoms: tuple
    names: tuple
    kl: float
    gradient_norm: float  # the projected gradient of J at the optimum
    order: tuple
    atoms_change: float  # max |Δ atom entry| at the finer order
    kl_change: float
    active: tuple = ()  # (atom, column) on a bound of Θ
    starts: int = 0
    box: str = field(default="", repr=False)

    def rows(self) -> np.ndarray:
        return np.array(self.atoms, dtype=float)

    def to_dict(self) -> dict:
        return {
            "part": self.part,
            "atoms": [list(a) for a in self.atoms],
            "names": list(self.names),
            "kl": self.kl,
            "gradient_norm": self.gradient_norm,
            "order": list(self.order),
            "atoms_change": self.atoms_change,
            "kl_change": self.kl_change,
            "active": [list(a) for a in self.active],
        }


def quadrature(model: DeclaredModel, order=DEFAULT_ORDER):
    """(X (N, 1), Y (N,), W (N,)) with Σ W = 1: E_{X,Y ~ f*}[φ] ≈ Σ W φ(X, Y) (module docstring)."""
    declaration = model.declaration
    inputs = declaration.inputs
    if not model.density:
        raise NumericError(param="noise.kind", value=declaration.noise.kind, reason="a KL projection needs a density")
    if inputs.dim != 1:
        raise NumericError(param="inputs.dim", value=inputs.dim, reason="the KL projection is computed for d = 1 only")
    panels, nodes, hermite = order
    if inputs.kind == "uniform":
        low, high = (
            float(inputs.low if inputs.low is not None else -1.0),
            float(inputs.high if inputs.high is not None else 1.0),
        )
        t, w = np.polynomial.legendre.leggauss(nodes)
        edges = np.linspace(low, high, panels + 1)
        half = np.diff(edges) / 2
        x = ((edges[:-1] + half)[:, None] + half[:, None] * t[None, :]).ravel()
        wx = (half[:, None] * w[None, :]).ravel() / (high - low)
    else:
        t, w = np.polynomial.hermite.hermgauss(panels * nodes)
        x, wx = np.sqrt(2.0) * t, w / np.sqrt(np.pi)
    X = x[:, None]
    layout = model.layout(False)
    truth = model.truth()
    gh_t, gh_w = np.polynomial.hermite.hermgauss(hermite)
    xs, ys, ws = [], [], []
    for index, part in enumerate(layout.parts):
        G, eta, nu = part_values(layout, truth, index)
        weight = truth.shares[index] * part.gate.evaluate(X, G).w  # (k, n)
        mean = part.expert.value(X, eta)
        for i in range(part.k):
            y = mean[i][:, None] + np.sqrt(2.0 * nu[i]) * gh_t[None, :]
            xs.append(np.repeat(x, hermite))
            ys.append(y.ravel())
            ws.append((wx * weight[i])[:, None] * (gh_w / np.sqrt(np.pi))[None, :])
    return np.concatenate(xs)[:, None], np.concatenate(ys), np.concatenate([v.ravel() for v in ws])


def _terms(part, rows, X, Y, share, gradient):
    G, eta, nu = rows[:, part.gate_columns], rows[:, part.expert_columns], rows[:, -1]
    gate = part.gate.evaluate(X, G)
    if gradient:
        h, dh = part.expert.value_and_gradient(X, eta)
    else:
        h, dh = part.expert.value(X, eta), None
    log_n = (-0.5 * (np.log(2 * np.pi) + np.log(nu)))[:, None] - (Y[None, :] - h) ** 2 / (2 * nu[:, None])
    return gate, h, dh, nu, log_n, np.log(share) + gate.log_w + log_n


class _Problem:
    """J(G_p) and its gradient on fixed quadrature points, the other parts at the truth."""

    def __init__(self, model: DeclaredModel, index: int, order):
        self.model, self.index = model, index
        self.X, self.Y, self.W = quadrature(model, order)
        truth_layout, fitted = model.layout(False), model.layout(True)
        self.part = fitted.parts[index]
        truth = model.truth()
        self.share = float(truth.shares[index])
        fixed = []
        for q, part in enumerate(truth_layout.parts):
            if q != index:
                fixed.append(_terms(part, truth.atoms[q], self.X, self.Y, truth.shares[q], False)[5])
        self.fixed = np.concatenate(fixed, axis=0) if fixed else np.full((1, len(self.Y)), -np.inf)
        own = _terms(truth_layout.parts[index], truth.atoms[index], self.X, self.Y, self.share, False)[5]
        self.log_truth = _logsumexp(np.concatenate([self.fixed, own], axis=0))

    def value_and_gradient(self, flat: np.ndarray):
        part = self.part
        rows = part.rows(flat)
        gate, h, dh, nu, log_n, a = _terms(part, rows, self.X, self.Y, self.share, True)
        log_f = _logsumexp(np.concatenate([self.fixed, a], axis=0))
        value = -float(self.W @ log_f)
        r = np.exp(a - log_f) * self.W
        residual = self.Y - h
        g = np.zeros_like(rows)
        g[:, part.expert_columns] = np.einsum("ken,kn->ke", dh, r * residual) / nu[:, None]
        g[:, -1] = (r * (residual**2 - nu[:, None])).sum(axis=1) / (2 * nu**2)
        q = np.exp(np.log(self.share) + log_n - log_f) * self.W
        g[:, part.gate_columns] += contract(q, gate)
        return value, -part.flat(g)

    def kl(self, flat: np.ndarray) -> float:
        return float(self.W @ self.log_truth) + self.value_and_gradient(flat)[0]


def _logsumexp(a: np.ndarray) -> np.ndarray:
    top = a.max(axis=0)
    return top + np.log(np.exp(a - top).sum(axis=0))


def projection_objective(model: DeclaredModel, index: int, rows: np.ndarray, order=DEFAULT_ORDER):
    """(J, ∂J/∂rows flat, KL) at part ``index``'s atoms ``rows`` (fitted count, declared columns)."""
    problem = _Problem(model, index, order)
    flat = problem.part.flat(np.asarray(rows, dtype=float))
    value, grad = problem.value_and_gradient(flat)
    return value, grad, problem.kl(flat)


def _box(model: DeclaredModel, index: int, factor: float = 2.0):
    """(lo, hi, text) of part ``index``'s flat slice: the fit's box (numeric.fitting.box's rule —
    ±F·max(max |θ*|, 1), a variance in [floor, F·max ν*], ω in [0, 1] — at its default F = 2)."""
    part = model.layout(True).parts[index]
    true = model.truth().atoms[index]
    lo, hi, text = np.empty(part.width), np.empty(part.width), []
    for name in dict.fromkeys(part.names):
        columns = [c for c, owner in enumerate(part.names) if owner == name]
        largest = float(np.abs(true[:, columns]).max())
        if part.variance and columns == [part.width - 1]:
            bounds = (model.declaration.noise.variance_floor, factor * largest)
        elif name == "omega":
            bounds = (0.0, 1.0)
        else:
            bounds = (-factor * max(largest, 1.0), factor * max(largest, 1.0))
        lo[columns], hi[columns] = bounds
        text.append(f"{part.name}.{name} in [{bounds[0]:g}, {bounds[1]:g}]")
    return part.flat(np.tile(lo, (part.k, 1))), part.flat(np.tile(hi, (part.k, 1))), "; ".join(text)


def _split(model: DeclaredModel, index: int, owner: np.ndarray) -> np.ndarray:
    """Fitted atom i at true atom owner[i], the weight of a true atom split equally over its copies
    (ω/m, β0 − log m, logit(σ(β0)/m)), as the papers' start splits it."""
    declared = model.declaration.parts[index]
    names = model.names[index]
    true = model.truth().atoms[index]
    copies = np.bincount(owner, minlength=true.shape[0])[owner]
    rows = true[owner].copy()
    kind = declared.gate.of if declared.gate.kind == "top-k" else declared.gate.kind
    for column, name in enumerate(names):
        if kind == "constant" and name == "omega":
            rows[:, column] /= copies
        elif name == "beta0" and kind in ("softmax",):
            rows[:, column] -= np.log(copies)
        elif name == "beta0" and kind in ("sigmoid", "normalized-sigmoid"):
            rows[:, column] = logit(expit(rows[:, column]) / copies)
        elif name == "beta" and kind == "laplace":
            rows[:, column] -= np.log(copies)
    return rows


def _starts(model: DeclaredModel, index: int, lo, hi, count: int):
    part = model.layout(True).parts[index]
    k_true = model.truth().atoms[index].shape[0]
    split = _split(model, index, np.arange(part.k) % k_true)
    yield np.clip(part.flat(split), lo, hi)
    for j in range(k_true):  # the spare atoms copy true atom j
        owner = np.concatenate([np.arange(k_true), np.full(part.k - k_true, j)])
        yield np.clip(part.flat(_split(model, index, owner)), lo, hi)
    weights = {"omega", "beta0", "beta"}
    moved = np.array([name not in weights for name in model.names[index]])
    for seed in range(count):
        rng = np.random.default_rng(seed + 1)
        rows = split.copy()
        noise = rng.normal(0.0, 0.3, size=rows.shape) * moved
        if part.variance:
            rows[:, -1] *= np.exp(noise[:, -1])
            noise[:, -1] = 0.0
        yield np.clip(part.flat(rows + noise), lo, hi)


def _solve(problem: _Problem, start, lo, hi):
    out = minimize(
        problem.value_and_gradient,
        start,
        jac=True,
        method="L-BFGS-B",
        bounds=list(zip(lo, hi)),
        options={"maxiter": 20000, "maxfun": 40000, "ftol": 1e-15, "gtol": 1e-11},
    )
    return out.x, float(out.fun)


def _projected_norm(problem: _Problem, flat, lo, hi) -> float:
    grad = problem.value_and_gradient(flat)[1]
    return float(np.linalg.norm(flat - np.clip(flat - grad, lo, hi)))


def kl_projection(model: DeclaredModel, index: int, order=DEFAULT_ORDER, starts: int = 3) -> KLProjection:
    """Ǧ of part ``index`` (module docstring), cached per (digest, part, order)."""
    key = (digest(model.declaration), index, tuple(order))
    if key in _CACHE:
        return _CACHE[key]
    declaration = model.declaration
    name = declaration.parts[index].name
    lo, hi, box_text = _box(model, index)
    problem = _Problem(model, index, order)
    best = None
    tried = 0
    for start in _starts(model, index, lo, hi, starts):
        tried += 1
        flat, value = _solve(problem, np.clip(start, lo, hi), lo, hi)
        if best is None or value < best[1]:
            best = (flat, value)
    assert best is not None
    flat = best[0]
    fine = _Problem(model, index, _FINE)
    fine_flat, _ = _solve(fine, flat, lo, hi)
    part = problem.part
    rows, fine_rows = part.rows(flat), part.rows(fine_flat)
    kl = problem.kl(flat)
    at_bound = part.rows((np.abs(flat - lo) < 1e-9) | (np.abs(flat - hi) < 1e-9)) > 0.5
    active = tuple((int(i) + 1, model.columns[index][c]) for i, c in zip(*np.nonzero(at_bound)))
    result = KLProjection(
        part=name,
        atoms=tuple(tuple(float(v) for v in row) for row in rows),
        names=tuple(model.columns[index]),
        kl=kl,
        gradient_norm=_projected_norm(problem, flat, lo, hi),
        order=tuple(order),
        atoms_change=float(np.abs(_matched(rows, fine_rows) - rows).max()),
        kl_change=abs(fine.kl(fine_flat) - kl),
        active=active,
        starts=tried,
        box=box_text,
    )
    _CACHE[key] = result
    return result


def _matched(rows: np.ndarray, other: np.ndarray) -> np.ndarray:
    """``other``'s atoms reordered to the nearest of ``rows`` (the atoms are unlabelled)."""
    best = min(permutations(range(len(rows))), key=lambda p: float(np.abs(other[list(p)] - rows).sum()))
    return other[list(best)]
