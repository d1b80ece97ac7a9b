"""A stratum's coordinates and the degenerate sets already known inside it (docs/scan.md, "Search").

A stratum L (:class:`~identcheck.terms.strata.Stratum`) of K type-1 components is parametrised by
its free gating matrices G_g (upper triangles) and free expert vectors A_e, stacked as θ ∈ ℝⁿ,
n = dim L. Each component's parameter vector (the term set's ``params``: M_jk for j ≤ k, then a_j)
is linear in θ,

    θ_c = E_c·θ,   M_c = G_{g(c)} (0 when g(c) is None),   a_c = λ_c·A_{e(c)},

and the probes' box (entries k/8, |k| ≤ 8) is θ ∈ [−1, 1]ⁿ. A *known degenerate set* is a linear
subspace of L where the term set is known to be dependent, written as rows R with R·(θ_1, …, θ_K) = 0:

- **coinciding components** c ≠ c′: M_c = M_c′, a_c = a_c′ (two equal functions; (A.5) excludes it);
- **a = 0**: a_c = 0 for some c (a relation there holds for every φ, docs/method.md §1);
- **a probe's stratum** Q, for every counted probe the check found dependent — the rank rule's
  decision, a collapse confirmed at two consecutive precisions; its relation need not be proved
  (a known set only shapes the normaliser and keeps a witness in it from being new, so taking one
  too many is the cautious side): every injective placement of Q's components among L's, with Q's
  ties (M = 0, a shared matrix, a_j = (λ_j/λ_i)·a_i) as rows. A dependence passes to every
  super-family.

The distance from θ to the set {θ : R·E·θ = 0} is ‖Pθ‖, P the orthogonal projector onto the row space
of R·E (:func:`scipy.linalg.orth`). A set whose R·E is 0 contains all of L (``everywhere``).

Near a set the smallest singular value s of the collocation matrix vanishes at an order r, which the
search divides out (s/dist^r, :mod:`identcheck.scan.search`). At coinciding components r = 5: each
component carries its derivatives of order ≤ 2, six conditions along the segment between them, so a
combination of the two components' columns annihilates the quintic part of ū along it (Hermite
interpolation) — measured 4.7–5.0 (sigmoid(z + 1), tanh(z), d = 2, rays towards the set). At a = 0,
r = 3 (measured 3.0 for sigmoid(z + 1) on the random pair; where another direction is smaller the
slope is lower, and the normaliser only asks an upper bound). At a dependent probe's stratum, r = 1
(the relation holds on the set and the matrix is smooth in θ). ``order`` records r.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from scipy.linalg import orth

__all__ = ["COINCIDING", "ZERO_EXPERT", "Coordinates", "KnownSet", "known_sets"]

COINCIDING = "coinciding components"
ZERO_EXPERT = "a = 0"
HERMITE_ORDER = 5  # orders 0, 1, 2 at both of two components: a quintic along the segment cancels
ZERO_ORDER = 3  # s = O(|a|^3) towards a = 0 (measured)


@dataclass(frozen=True, slots=True)
class Coordinates:
    """θ ↦ the components' parameter vectors for a stratum. ``slots[c][p]`` is (index into θ, factor) of
    component c's parameter p (None: the entry is 0, M_c = 0); ``names`` are the term set's parameter
    names (P of them), ``is_a[p]`` whether parameter p is an expert entry; ``maps[c]`` is E_c (P × n)."""

    stratum: object
    names: tuple
    is_a: tuple
    slots: tuple = field(repr=False)
    maps: tuple = field(repr=False)

    @classmethod
    def of(cls, stratum, term_set) -> "Coordinates":
        names = tuple(p.name for p in term_set.params)
        m_names = [n for n in names if n.startswith("M")]
        a_names = [n for n in names if n.startswith("a")]
        gates = sorted({g for g in stratum.gates if g is not None})
        vectors = sorted({e for e, _ in stratum.experts})
        offset = {("M", g): i * len(m_names) for i, g in enumerate(gates)}
        base = len(gates) * len(m_names)
        offset |= {("a", e): base + i * len(a_names) for i, e in enumerate(vectors)}
        n = base + len(vectors) * len(a_names)
        slots, maps = [], []
        for g, (e, factor) in zip(stratum.gates, stratum.experts):
            row: list = []
            for name in names:
                if name in a_names:
                    row.append((offset[("a", e)] + a_names.index(name), sp.Rational(factor)))
                else:
                    row.append(None if g is None else (offset[("M", g)] + m_names.index(name), sp.Integer(1)))
            E = np.zeros((len(names), n))
            for p, slot in enumerate(row):
                if slot is not None:
                    E[p, slot[0]] = float(slot[1])
            slots.append(tuple(row))
            maps.append(E)
        return cls(stratum, names, tuple(n.startswith("a") for n in names), tuple(slots), tuple(maps))

    @property
    def dimension(self) -> int:
        return self.maps[0].shape[1]

    @property
    def components(self) -> int:
        return len(self.maps)

    def thetas(self, theta: np.ndarray) -> list:
        """The K parameter vectors (each of length P) at θ (float64)."""
        return [E @ theta for E in self.maps]

    def exact(self, theta) -> list:
        """(M, a) per component at exact θ (sympy Rationals): M symmetric, as tuples of rows."""
        d = sum(self.is_a)
        out = []
        for row in self.slots:
            values = [sp.Integer(0) if slot is None else slot[1] * theta[slot[0]] for slot in row]
            M = [[sp.Integer(0)] * d for _ in range(d)]
            for name, v in zip(self.names, values):
                if name.startswith("M"):
                    j, k = int(name[1]) - 1, int(name[2]) - 1
                    M[j][k] = M[k][j] = v
            a = tuple(v for v, is_a in zip(values, self.is_a) if is_a)
            out.append((tuple(tuple(r) for r in M), a))
        return out


@dataclass(frozen=True, slots=True)
class KnownSet:
    """One known degenerate set: ``name``, its order of vanishing ``order`` (module docstring) and the
    projectors onto the row spaces of its placements (min over them is the distance)."""

    name: str
    order: int
    bases: tuple = field(repr=False)  # each n × r, orthonormal columns spanning the row space of R·E
    everywhere: bool = False

    def distance(self, theta: np.ndarray) -> float:
        if self.everywhere:
            return 0.0
        return float(min(np.linalg.norm(Q.T @ theta) for Q in self.bases))


def _placement_set(name, order, coordinates, row_sets) -> KnownSet | None:
    """A known set from several placements (each a list of rows over the stacked components' P·K coordinates)."""
    stacked = np.vstack(coordinates.maps)  # (K·P) × n: the stacked parameter vectors of the components
    bases, everywhere = [], False
    for rows in row_sets:
        if not rows:
            everywhere = True
            continue
        restricted = np.array(rows) @ stacked
        Q = orth(restricted.T)
        if Q.shape[1] == 0:
            everywhere = True
        else:
            bases.append(Q)
    if not bases and not everywhere:
        return None
    return KnownSet(name, order, tuple(bases), everywhere)


def _unit(coordinates, c, p) -> np.ndarray:
    v = np.zeros(coordinates.components * len(coordinates.names))
    v[c * len(coordinates.names) + p] = 1.0
    return v


def known_sets(coordinates, dependent=(), leave_out=()) -> tuple:
    """The known degenerate sets of the stratum (module docstring): coinciding components, a = 0, and
    each ``dependent`` (name, stratum) of the check placed in it; names in ``leave_out`` are left out."""
    K, P = coordinates.components, len(coordinates.names)
    found = []
    if K > 1:
        pairs = [
            [_unit(coordinates, c, p) - _unit(coordinates, c2, p) for p in range(P)]
            for c, c2 in itertools.combinations(range(K), 2)
        ]
        found.append(_placement_set(COINCIDING, HERMITE_ORDER, coordinates, pairs))
    zeros = [[_unit(coordinates, c, p) for p in range(P) if coordinates.is_a[p]] for c in range(K)]
    found.append(_placement_set(ZERO_EXPERT, ZERO_ORDER, coordinates, zeros))
    for name, stratum in dependent:
        placements = []
        for place in itertools.permutations(range(K), stratum.components):
            rows = []
            for i, c in enumerate(place):
                g, (e, lam) = stratum.gates[i], stratum.experts[i]
                if g is None:
                    rows += [_unit(coordinates, c, p) for p in range(P) if not coordinates.is_a[p]]
                for j in range(i):
                    c2, g2, (e2, lam2) = place[j], stratum.gates[j], stratum.experts[j]
                    if g is not None and g == g2:
                        rows += [
                            _unit(coordinates, c, p) - _unit(coordinates, c2, p)
                            for p in range(P)
                            if not coordinates.is_a[p]
                        ]
                    if e == e2:  # a_c / λ_i = a_c2 / λ_j
                        rows += [
                            float(lam2) * _unit(coordinates, c, p) - float(lam) * _unit(coordinates, c2, p)
                            for p in range(P)
                            if coordinates.is_a[p]
                        ]
            placements.append(rows)
        found.append(_placement_set(name, 1, coordinates, placements))
    return tuple(k for k in found if k is not None and k.name not in leave_out)
