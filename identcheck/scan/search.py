"""An adversarial search where no probe looks: the smallest margin over a stratum (docs/scan.md, "Search").

A probe is one point θ* of its stratum L (:mod:`identcheck.terms.strata`). The search looks at the
rest of L inside the probes' box θ ∈ [−1, 1]ⁿ (:mod:`identcheck.scan.known`) for a point where the
term set is dependent. At θ the objective is the check's own margin — the smallest singular value
s(θ) of the column-scaled float64 collocation matrix at the probe's sample points (docs/method.md
§3, step 1–2) — normalised by the distance to the degenerate sets already known in L,

    m(θ) = s(θ) / D(θ),      D(θ) = min(1, min_k dist_k(θ)^(r_k)),

(r_k the order at which s vanishes at set k: 5 at coinciding components, 3 at a = 0, 1 at a dependent
probe's stratum; :mod:`identcheck.scan.known`), so that a
minimiser is not drawn into what is known: coinciding components, a = 0, and the strata of the
probes the check found dependent. log10 m is minimised from N starts uniform in the box, each at
distance ≥ ``START_DISTANCE`` from every known set (also those left out of the normalisation), by
L-BFGS-B with finite-difference gradients inside the box (:func:`scipy.optimize.minimize`).

**From a minimum to a witness.** A minimum whose s is below the rank rule's borderline √eps·s_1 is
snapped to dyadic rationals k/q (q = 8, 16, 32, 64; coordinates equal in size to within 1/(4q) get one
value, so equalities and sign flips survive) and the snapped point is checked exactly: the probe of its
components is decided by the check's rule (precision ladder: a dependence collapses with precision),
its relations named by the families and proved exactly (:func:`identcheck.check.run` on that probe
alone, counted even when inadmissible so that its relation is proved). It is a *witness found by
search* when the decision is dependent; it is **new** when it is admissible ((A.1)–(A.5)), every
a_c ≠ 0, its relation is proved, and it lies in none of the known sets (the left-out ones included).
Only a new witness changes a verdict (:func:`identcheck.scan.search_check.check_searching`).

**What it does not say.** A search that finds nothing proves nothing: it reports the smallest margin it
found and where; identifiable stays what the probes said. The budget (``seconds``, wall clock) cuts the
starts (round-robin over the strata, so each gets its share) and the report says so. The records
(:class:`Witness`, :class:`StratumSearch`, :class:`SearchResult`) are :mod:`identcheck.scan.search_result`'s.
"""

from __future__ import annotations

import copy
import time

import numpy as np
import sympy as sp
from scipy.optimize import minimize

from ..check import run
from ..rank.rule import BORDERLINE_FACTOR, PROOF_FLOOR
from ..terms.probes import Component, Probe
from .known import Coordinates, known_sets
from .search_result import SearchResult, StratumSearch, Witness

__all__ = ["SEARCH_SECONDS", "SearchResult", "StratumSearch", "Witness", "search_strata"]

SEARCH_SECONDS = 60.0  # default wall-clock budget of one search
START_DISTANCE = 0.25  # a start's distance from every known set, at least
START_TRIES = 200  # uniform draws per start before giving up on that distance
MAX_ITERATIONS = 20  # L-BFGS-B iterations per start
POLISH_ITERATIONS = 20  # Powell's (derivative-free) from the best point found, once per stratum
STARTS_SHARE = 0.8  # of the budget, for the starts; the rest polishes each stratum's best point
STEP = 1e-5  # finite-difference step: s carries float64's noise, ~1e-16 absolute
GRIDS = (8, 16, 32, 64)  # the denominators a minimum is snapped to
FLOOR = 1e-300
STREAM = 35  # seeds the starts: [seed, dim, STREAM, stratum index]


class _Cut(Exception):
    """The budget ran out inside an objective evaluation."""


class _Objective:
    """log10 m(θ) for one stratum, the best point seen kept (every evaluation counts)."""

    def __init__(self, condition, coordinates, points, known, deadline):
        self.condition, self.coordinates, self.points = condition, coordinates, points
        self.known, self.deadline = known, deadline
        self.best: tuple | None = None  # (log m, θ, s, D, nearest)

    def singular_value(self, theta) -> tuple[float, float]:
        """(s_T, s_1) of the column-scaled float64 matrix at θ; (inf, 1) where it is not finite."""
        A = self.condition.compiled.float64(self.points, self.coordinates.thetas(theta), self.condition.activation)
        if not np.all(np.isfinite(A)):
            return float("inf"), 1.0
        norms = np.linalg.norm(A, axis=0)
        if np.any(norms == 0):
            return 0.0, 1.0
        s = np.linalg.svd(A / norms, compute_uv=False)
        return float(s[-1]), float(s[0])

    def normaliser(self, theta) -> tuple[float, str | None]:
        values = [(min(1.0, max(k.distance(theta), FLOOR) ** k.order), k.name) for k in self.known]
        return min(values, default=(1.0, None))

    def __call__(self, theta) -> float:
        if time.perf_counter() > self.deadline:
            raise _Cut
        s, _ = self.singular_value(theta)
        if not np.isfinite(s):
            return 300.0
        D, nearest = self.normaliser(theta)
        value = float(np.log10(max(s, FLOOR)) - np.log10(max(D, FLOOR)))
        if self.best is None or value < self.best[0]:
            self.best = (value, np.array(theta, dtype=float), s, D, nearest)
        return value


def _start(rng, n, every) -> np.ndarray:
    """A point uniform in [−1, 1]ⁿ at distance ≥ START_DISTANCE from every known set (the last draw if none is)."""
    theta = rng.uniform(-1.0, 1.0, n)
    for _ in range(START_TRIES):
        if all(k.distance(theta) >= START_DISTANCE for k in every if not k.everywhere):
            break
        theta = rng.uniform(-1.0, 1.0, n)
    return theta


def _snap(theta, q) -> list:
    """θ as rationals k/q, coordinates whose sizes agree to 1/(4q) given one size (equalities and signs kept)."""
    sizes = np.abs(theta)
    order = np.argsort(sizes)
    snapped = [sp.Integer(0)] * len(theta)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and sizes[order[j + 1]] - sizes[order[i]] < 1 / (4 * q):
            j += 1
        size = sp.Rational(int(round(float(np.mean(sizes[order[i : j + 1]])) * q)), q)
        for k in order[i : j + 1]:
            snapped[k] = size if theta[k] >= 0 else -size
        i = j + 1
    return snapped


def _exact_check(condition, coordinates, objective, theta, every, name) -> Witness | None:
    """Snap θ to the grids in turn; the first snapped point float64 finds borderline is checked exactly."""
    tried = set()
    for q in GRIDS:
        exact = _snap(theta, q)
        if tuple(exact) in tried:
            continue
        tried.add(tuple(exact))
        point = np.array([float(v) for v in exact])
        s, s1 = objective.singular_value(point)
        if not s < BORDERLINE_FACTOR * s1:
            continue
        components = tuple(Component(M, a) for M, a in coordinates.exact(exact))
        probe = Probe(f"search: {name}", components, stratum=coordinates.stratum)
        one = copy.copy(condition)  # the same condition, this probe alone (its points: index 0)
        one.probes = lambda probe=probe: [probe]
        result = run(one, include_inadmissible=True)
        found = result.probes[0]
        relation = found.relation
        return Witness(
            components=components,
            dependent=found.dependent,
            relation=None if relation is None else str(relation),
            family=None if relation is None else relation.family,
            proved=bool(found.dependent) and relation is not None and bool(relation.proved),
            admissible=probe.admissible,
            a_nonzero=all(any(v != 0 for v in c.a) for c in components),
            in_known=tuple(k.name for k in every if k.distance(point) < 1e-12),
            grid=q,
            outcome=found,
        )
    return None


class _Plan:
    """One stratum's working state during a search."""

    def __init__(self, condition, index, probe, why_not, dependent, leave_out, deadline):
        self.probe, self.ran, self.closest = probe, 0, float("inf")
        self.coordinates = Coordinates.of(probe.stratum, condition.term_set)
        self.every = known_sets(self.coordinates, dependent)
        self.known = tuple(k for k in self.every if k.name not in leave_out)
        blocked = next((k.name for k in self.every if k.everywhere), None)
        if why_not is None and blocked is not None:
            why_not = f"every point of the stratum lies in a known dependent set ({blocked})"
        self.why_not = why_not
        points = condition.sample_points(index, len(probe.components) * len(condition.term_set.terms))
        self.objective = _Objective(condition, self.coordinates, points, self.known, deadline)
        self.rng = np.random.default_rng([condition.seed, condition.dim, STREAM, index])

    def start(self) -> None:
        """One start: a point away from every known set, then L-BFGS-B in the box (may raise _Cut)."""
        x0 = _start(self.rng, self.coordinates.dimension, self.every)
        self.closest = min([self.closest] + [k.distance(x0) for k in self.every if not k.everywhere])
        bounds = [(-1.0, 1.0)] * self.coordinates.dimension
        minimize(self.objective, x0, method="L-BFGS-B", bounds=bounds, options={"maxiter": MAX_ITERATIONS, "eps": STEP})
        self.ran += 1

    def polish(self) -> None:
        """Powell (derivative-free) from the best point: near a set s falls as a power of the distance,
        where float64's noise makes finite differences unreliable (may raise _Cut)."""
        bounds = [(-1.0, 1.0)] * self.coordinates.dimension
        options = {"maxiter": POLISH_ITERATIONS, "xtol": 1e-6}
        minimize(self.objective, self.objective.best[1], method="Powell", bounds=bounds, options=options)


def search_strata(condition, targets, starts, *, dependent=(), leave_out=(), seconds=SEARCH_SECONDS) -> SearchResult:
    """Search each of ``targets`` ((probe index, probe, why_not or None)) of a type-1 ``condition`` from
    ``starts`` starts, within ``seconds`` of wall clock (the starts get ``STARTS_SHARE`` of it, the polish
    of each stratum's best point the rest; the exact checks of snapped minima are bounded by the check's
    own proof budget); ``dependent`` are the (name, stratum) of the probes the check found dependent
    (known sets), ``leave_out`` the known sets' names not used to normalise."""
    started = time.perf_counter()
    until = started + STARTS_SHARE * seconds
    plans = [_Plan(condition, i, p, why, dependent, leave_out, until) for i, p, why in targets]
    cut = False
    for _ in range(starts):
        for plan in plans:
            if plan.why_not is None and not cut:
                try:
                    plan.start()
                except _Cut:
                    cut = True
    results = []
    for plan in plans:
        probe, coordinates, objective = plan.probe, plan.coordinates, plan.objective
        name = probe.stratum.describe()
        if plan.why_not is not None or objective.best is None:
            why = plan.why_not or "the budget ran out before a start ended"
            results.append(StratumSearch(probe.name, name, coordinates.dimension, plan.ran, why_not=why))
            continue
        objective.deadline = started + seconds
        try:
            plan.polish()
        except _Cut:
            cut = True
        value, theta, s, D, nearest = objective.best
        witness, s1 = None, objective.singular_value(theta)[1]
        if s < BORDERLINE_FACTOR * s1:
            witness = _exact_check(condition, coordinates, objective, theta, plan.every, name)
        at = tuple(coordinates.exact([sp.Float(v) for v in theta]))
        known = tuple(k.name for k in plan.known)
        results.append(
            StratumSearch(
                probe.name,
                name,
                coordinates.dimension,
                plan.ran,
                known,
                margin=10.0**value,
                singular_value=s,
                distance=D,
                nearest=nearest,
                at=at,
                witness=witness,
                start_distance=plan.closest,
                floor=bool(s < PROOF_FLOOR * s1),
            )
        )
    return SearchResult(starts, round(time.perf_counter() - started, 3), seconds, cut, tuple(results), tuple(leave_out))
