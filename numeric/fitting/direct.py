r"""Direct maximisation of a declared mixture's log-likelihood: scipy's L-BFGS-B in the box.

Minimises −ℓ(θ)/n over lo ≤ θ ≤ hi with the exact gradient of
:func:`numeric.model.density.log_likelihood_and_gradient` (no finite differences), from a start
θ₀. Parameters the declaration fixes have lo = hi and do not move. Tolerances are scipy's
defaults unless given (``ftol`` = 2.2e-9 on the relative change of −ℓ/n, ``gtol`` = 1e-5 on the
projected gradient, at most ``max_iter`` = 15000 iterations): the comparison
bench/bench_declared_fit.py makes with EM runs it exactly so.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from ..model import Layout, log_likelihood_and_gradient
from .attention_box import Box

__all__ = ["DirectResult", "maximise"]


@dataclass(frozen=True, slots=True)
class DirectResult:
    """θ at the end, ℓ there, iterations and function evaluations, scipy's verdict and message."""

    theta: np.ndarray = field(repr=False)
    log_likelihood: float
    iterations: int
    evaluations: int
    converged: bool
    message: str


def maximise(layout: Layout, theta, X, Y, box: Box, ftol=None, gtol=None, max_iter=15000, report=None) -> DirectResult:
    """L-BFGS-B on −ℓ/n from ``theta`` (module docstring); ``report(evaluation, ℓ)`` after each evaluation."""
    n = len(Y)
    count = [0]

    def negative(t):
        value, grad = log_likelihood_and_gradient(layout, t, X, Y)
        count[0] += 1
        if report is not None:
            report(count[0], value)
        if not np.isfinite(value):
            return np.inf, np.zeros_like(t)
        return -value / n, -grad / n

    options = {"maxiter": max_iter}
    if ftol is not None:
        options["ftol"] = ftol
    if gtol is not None:
        options["gtol"] = gtol
    start = box.clip(np.asarray(theta, dtype=float))
    result = minimize(negative, start, jac=True, method="L-BFGS-B", bounds=list(zip(box.lo, box.hi)), options=options)
    return DirectResult(
        result.x, -float(result.fun) * n, int(result.nit), int(result.nfev), bool(result.success), str(result.message)
    )
