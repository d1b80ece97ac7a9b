r"""One fit of a declared model: data from its truth, a start, a fit in the box, and its record.

A density is fitted by maximum likelihood — ``method="em"`` (:mod:`numeric.fitting.em`, default)
or ``"direct"`` (L-BFGS-B, :mod:`numeric.fitting.direct`); a regression by least squares
(``"lm"``, :mod:`numeric.fitting.least_squares`). The fit starts at the papers' start or a broad
one (:mod:`numeric.fitting.starts`); with ``restarts`` = R it also runs from R broad starts
and keeps the best objective (every start's objective is recorded).

**Every fit records its objective and the truth's on the same data** — the mean log-likelihood
ℓ/n (a density) or the MSE (a regression) — and flags ``worse_than_truth`` when the fit's is worse
(ℓ_fit < ℓ_truth, or MSE_fit > MSE_truth): the maximum-likelihood or least-squares estimate is at
least as good as the truth on its own data, so a flagged fit stopped short of it (a local optimum,
the box, or the stopping rule). A record also keeps the declaration's canonical content and digest
(:mod:`identcheck.declaration.canonical`), so records of different models never pool.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from identcheck.declaration import Declaration, canonical_form, digest

from ..errors import NumericError
from ..losses import parameter_errors, voronoi_loss
from ..model import DeclaredModel, compile_model, log_likelihood, sample_declared
from .box import declared_box, fix_parameters
from .direct import DirectResult, maximise
from .em import EM_TOLERANCE, EMResult, em
from .least_squares import LeastSquaresResult, least_squares, mse
from .starts import START_KINDS, broad_start, paper_start

__all__ = ["DeclaredFit", "METHODS", "fit_declared"]

METHODS = ("em", "direct", "lm")


@dataclass(frozen=True, slots=True)
class DeclaredFit:
    """A declared fit's record (module docstring); ``params`` are the fitted atoms per part."""

    model: str
    digest: str
    method: str
    n: int
    seed: int
    start: str
    objective_kind: str
    objective: float
    truth_objective: float
    start_objective: float
    worse_than_truth: bool
    iterations: int
    converged: bool
    seconds: float
    restarts: tuple
    params: dict = field(repr=False)
    loss: dict = field(repr=False)
    errors: dict = field(repr=False)
    box: str = field(repr=False)
    active_bounds: tuple = ()
    notes: tuple = ()
    declaration: dict = field(default_factory=dict, repr=False)
    canonical: dict = field(default_factory=dict, repr=False)
    theta: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict:
        out = {name: getattr(self, name) for name in self.__slots__ if name != "theta"}
        out["restarts"], out["active_bounds"], out["notes"] = (
            list(self.restarts),
            list(self.active_bounds),
            list(self.notes),
        )
        return out


def fit_declared(
    declaration: Declaration | DeclaredModel,
    n: int,
    seed: int = 0,
    method: str | None = None,
    start: str = "paper",
    restarts: int = 0,
    box_factor: float = 2.0,
    tol: float = EM_TOLERANCE,
    max_iter: int = 1000,
    init_scale: float = 1.0,
    init_exponent: float = 0.083,
    data=None,
    report=None,
) -> DeclaredFit:
    """Fit ``declaration`` (or its compiled model) to ``n`` samples of its truth drawn with ``seed``
    (or to ``data`` = (X, Y)); see the module's docstring for ``method``, ``start``, ``restarts``."""
    model = declaration if isinstance(declaration, DeclaredModel) else compile_model(declaration)
    density = model.density
    method = method or ("em" if density else "lm")
    allowed = ("em", "direct") if density else ("lm",)
    if method not in allowed:
        kind = "a density (maximum likelihood)" if density else "a regression (least squares)"
        raise NumericError(param="method", value=method, reason=f"{kind} is fitted by {' or '.join(allowed)}")
    if start not in START_KINDS:
        raise NumericError(param="start", value=start, reason=f"not one of {', '.join(START_KINDS)}")
    if isinstance(restarts, bool) or not isinstance(restarts, int) or not 0 <= restarts <= 100:
        raise NumericError(param="restarts", value=restarts, reason="must be an integer from 0 to 100")
    X, Y = sample_declared(model, n, seed) if data is None else data
    n = len(Y)
    layout = model.layout(True)
    box = declared_box(model, layout, box_factor)
    rng = np.random.default_rng([int(seed), 0x57A7])
    if start == "paper":
        starts = [paper_start(model, layout, box, n, rng, init_scale, init_exponent)]
    else:
        starts = [broad_start(model, layout, box, rng)]
    starts += [broad_start(model, layout, box, rng) for _ in range(restarts)]

    def objective(theta):
        return log_likelihood(layout, layout.unpack(theta), X, Y) / n if density else mse(layout, theta, X, Y)

    began = time.perf_counter()
    best: tuple | None = None
    tried = []
    for theta0 in starts:
        fixed = fix_parameters(model, layout, box, theta0)
        out: EMResult | DirectResult | LeastSquaresResult
        if method == "em":
            out = em(layout, theta0, X, Y, fixed, tol=tol, max_iter=max_iter, report=report)
        elif method == "direct":
            out = maximise(layout, theta0, X, Y, fixed, max_iter=max_iter, report=report)
        else:
            out = least_squares(layout, theta0, X, Y, fixed, max_iter=max_iter, report=report)
        theta, iterations, converged = out.theta, out.iterations, out.converged
        value = objective(theta)
        tried.append(value)
        if best is None or (value > best[0] if density else value < best[0]):
            best = (value, theta, iterations, converged, objective(theta0), fixed)
    seconds = time.perf_counter() - began
    assert best is not None  # at least one start
    value, theta, iterations, converged, start_value, fixed = best
    truth = model.truth()
    truth_layout = model.layout(False)
    if density:
        truth_value = log_likelihood(truth_layout, truth, X, Y) / n
        worse = value < truth_value
    else:
        truth_value = mse(truth_layout, truth_layout.pack(truth), X, Y)
        worse = value > truth_value
    params = layout.unpack(theta)
    loss = voronoi_loss(model, params).to_dict() if model.declaration.loss.kind == "voronoi" else {}
    errors = parameter_errors(model, params).to_dict()
    labels = layout.labels()
    return DeclaredFit(
        model=model.declaration.name,
        digest=digest(model.declaration),
        method=method,
        n=n,
        seed=int(seed),
        start=start,
        objective_kind="mean log-likelihood" if density else "mse",
        objective=float(value),
        truth_objective=float(truth_value),
        start_objective=float(start_value),
        worse_than_truth=bool(worse),
        iterations=int(iterations),
        converged=bool(converged),
        seconds=seconds,
        restarts=tuple(float(v) for v in tried),
        params={p.name: a.tolist() for p, a in zip(layout.parts, params.atoms)} | {"shares": params.shares.tolist()},
        loss=loss,
        errors=errors,
        box=fixed.description,
        active_bounds=tuple(labels[i] for i in fixed.active(theta) if fixed.lo[i] < fixed.hi[i]),
        notes=tuple(note.text for note in model.declaration.notes),
        declaration=model.declaration.to_dict(),
        canonical=canonical_form(model.declaration),
        theta=theta,
    )
