"""Parameter families to probe (docs/method.md §2).

The definition quantifies over *every* finite family of pairwise distinct components, and the
HMoE puts structure there that random draws never hit: the gating matrices M_{h,i} are shared
by all channels k of a head, M_{h,N} = 0 is fixed, and nothing stops two experts from being
a₂ = −a₁ or a₂ = c·a₁. Each structured family is therefore probed on purpose, beside random ones.

Parameters are dyadic rationals (k/8): exact in float64, in arb and in sympy, so one probe is
the same probe in every arithmetic and a relation found on it can be proved symbolically.

a = 0 is not a default probe: φ(0·x) is constant, so ∂ū/∂M_jk ∝ ∂²ū/∂a_j∂a_k for *every* φ
and the condition carries no information there (``include_zero=True`` adds it, flagged as not
counting for the verdict).

**The paper's assumptions.** Every probe carries the tags of the assumptions (A.1)–(A.5) of the
paper (§3) it satisfies, computed from its parameters, never written by hand:

- (A.1) Θ compact, X bounded: the parameters are finite dyadic rationals, x ∈ [−1, 1]^d;
- (A.2) ω ≥ 0, not all 0: no term involves ω, so any admissible ω completes a probe;
- (A.3) every M symmetric, and the last gating matrix of a head M_N = 0;
- (A.4) every head has a gating matrix M_i ≠ 0, i < N (softmax weights that depend on x);
- (A.5) all expert vectors a distinct.

A type-1 probe is a family of components θ = (M, a), not a whole head: it satisfies (A.3) when
each M is symmetric (a component with M = 0 may be the fixed gate M_N = 0, which is part of the
model) and (A.4) always — any component family is completed to a valid head by a gate M_i ≠ 0,
and independence of the full family implies it on the sub-family. A head configuration
(type-2) is a whole head, so (A.3) and (A.4) are checked on its matrices: "all M = 0 (uniform
gating)" violates (A.4). A probe that violates an assumption is *inadmissible*: it is run and
reported, but counts for the verdict only with ``include_inadmissible`` (docs/method.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..errors import IdentcheckError
from .strata import Stratum

__all__ = [
    "ASSUMPTIONS",
    "Component",
    "HeadConfig",
    "Probe",
    "assumptions_of",
    "default_probes",
    "exact",
    "head_experts",
    "head_probes",
    "type1_head",
]

DENOMINATOR = 8

#: The paper's assumptions (§3), as tags.
ASSUMPTIONS = ("A.1", "A.2", "A.3", "A.4", "A.5")


def exact(value, depth: int, field: str):
    """Rationals from their JSON text (``"3/8"``), nested ``depth`` lists deep, as tuples; anything
    else — a number not written as text, a list where a value belongs — is a ValueError naming ``field``.
    The text is read by :class:`fractions.Fraction`'s grammar (through ``sp.Rational``), never evaluated."""
    if depth == 0:
        try:
            if isinstance(value, str):
                return sp.Rational(value)
        except (TypeError, ValueError, ZeroDivisionError):
            pass
        raise ValueError(f"{field}: {value!r} is not an exact rational written as text")
    if not isinstance(value, list):
        raise ValueError(f"{field}: {value!r} is not a list")
    return tuple(exact(v, depth - 1, field) for v in value)


def _square(M, d: int, field: str):
    if len(M) != d or any(len(row) != d for row in M):
        raise ValueError(f"{field}: not a {d}x{d} matrix")
    return M


@dataclass(frozen=True, slots=True)
class Component:
    """One component θ = (M, a): M symmetric d×d, a in R^d, entries exact rationals.

    A family of them (type-1, MHA) satisfies (A.3) when every M is symmetric and (A.4) always
    (:meth:`assumptions_of`; the module docstring says why)."""

    M: tuple  # rows of sympy Rationals
    a: tuple

    def to_dict(self) -> dict:
        return {"M": [[str(v) for v in row] for row in self.M], "a": [str(v) for v in self.a]}

    @classmethod
    def from_dict(cls, data: dict) -> "Component":
        """The component :meth:`to_dict` wrote, exactly (a malformed one: ValueError naming the field)."""
        a = exact(_field(data, "a"), 1, "a")
        return cls(_square(exact(_field(data, "M"), 2, "M"), len(a), "M"), a)

    @classmethod
    def assumptions_of(cls, components) -> tuple[tuple, tuple]:
        """(satisfied tags, ((tag, why), …) violated) of a family of components."""
        return _assumptions([c.M for c in components], [tuple(c.a) for c in components], ())

    @property
    def l1(self) -> float:
        return float(sum(abs(v) for v in self.a))


def _field(data, name: str):
    if not isinstance(data, dict) or name not in data:
        raise ValueError(f"component {data!r}: no field {name!r}")
    return data[name]


@dataclass(frozen=True, slots=True)
class Probe:
    """A named family of components, and whether its outcome counts for the verdict.

    ``assumptions`` (the tags of (A.1)–(A.5) it satisfies) and ``violations`` ((tag, why) for
    the others) are computed from the components by their type (:func:`assumptions_of`). A
    component type — :class:`Component`, :class:`HeadConfig`, a condition's own (the DeepSeekMoE
    atoms, :class:`~identcheck.terms.expert_sets.Atom`) — supplies ``assumptions_of(family)``,
    ``to_dict()`` and ``from_dict(data)`` (exact: rationals as text), and ``l1`` (a bound on the
    inner argument ``|aᵀx|`` over x in [−1, 1]^d: the driver checks φ's domain up to the largest); a
    condition names the type its probes hold (``Condition.component``) and a certificate's probe
    is rebuilt through it.
    """

    name: str
    components: tuple
    counts: bool = True
    note: str = field(default="", repr=False)
    stratum: Stratum | None = field(default=None, repr=False, compare=False)  # the family it stands for
    assumptions: tuple = field(default=(), init=False)
    violations: tuple = field(default=(), init=False, repr=False)

    def __post_init__(self):
        satisfied, violated = assumptions_of(self.components)
        object.__setattr__(self, "assumptions", satisfied)
        object.__setattr__(self, "violations", violated)

    @property
    def admissible(self) -> bool:
        """Whether the probe satisfies every assumption of the paper."""
        return not self.violations

    @property
    def violation_note(self) -> str:
        """``'violates (A.4): …'``, or ``''`` for an admissible probe."""
        return "; ".join(f"violates ({tag}): {why}" for tag, why in self.violations)

    def to_dict(self) -> dict:
        return {"components": [c.to_dict() for c in self.components]}


def _is_zero(matrix) -> bool:
    return all(v == 0 for row in matrix for v in row)


def _symmetric(matrix) -> bool:
    return all(matrix[i][j] == matrix[j][i] for i in range(len(matrix)) for j in range(len(matrix)))


def _finite(values) -> bool:
    return all(sp.sympify(v).is_finite for v in values)


def assumptions_of(components) -> tuple[tuple, tuple]:
    """(satisfied tags, ((tag, why), …) violated) of a probe's components: their type's reading
    (``assumptions_of`` of :class:`Component`, :class:`HeadConfig`, or any other component type);
    an empty family satisfies every tag."""
    if not components:
        return ASSUMPTIONS, ()
    kinds = {type(c) for c in components}
    if len(kinds) > 1:
        raise ValueError(f"components: one type per probe, not {sorted(k.__name__ for k in kinds)}")
    return type(components[0]).assumptions_of(components)


def _assumptions(matrices, vectors, heads) -> tuple[tuple, tuple]:
    """The tags of (A.1)–(A.5) for gating ``matrices`` and expert ``vectors`` (and the ``heads``
    they come from, whose last matrix is M_N and whose gates need one M_i ≠ 0)."""
    violated = []
    numbers = [v for M in matrices for row in M for v in row] + [v for vec in vectors for v in vec]
    if not _finite(numbers):
        violated.append(("A.1", "a parameter is not finite"))
    if not all(_symmetric(M) for M in matrices):
        violated.append(("A.3", "a gating matrix is not symmetric"))
    elif any(not _is_zero(h.M[-1]) for h in heads):
        violated.append(("A.3", "the last gating matrix M_N of a head is not 0"))
    if any(all(_is_zero(M) for M in h.M[:-1]) for h in heads):
        violated.append(("A.4", "every gating matrix of the head is 0, so the softmax weights do not depend on x"))
    if len(set(vectors)) < len(vectors):
        violated.append(("A.5", "two expert vectors a are equal"))
    tags = {tag for tag, _ in violated}
    return tuple(t for t in ASSUMPTIONS if t not in tags), tuple(violated)


def _rational_vector(rng, d, low=-DENOMINATOR, high=DENOMINATOR, nonzero=True):
    while True:
        v = rng.integers(low, high + 1, size=d)
        if not nonzero or np.any(v != 0):
            return tuple(sp.Rational(int(k), DENOMINATOR) for k in v)


def _random_matrix(rng, d):
    while True:
        upper = rng.integers(-DENOMINATOR, DENOMINATOR + 1, size=(d, d))
        if np.any(np.triu(upper) != 0):
            break
    return tuple(tuple(sp.Rational(int(upper[min(i, j), max(i, j)]), DENOMINATOR) for j in range(d)) for i in range(d))


def _zero_matrix(d):
    return tuple(tuple(sp.Integer(0) for _ in range(d)) for _ in range(d))


def _distinct_vectors(rng, d, count):
    available = ((2 * DENOMINATOR + 1) ** d - 1) // 2  # non-zero grid vectors, up to sign
    if count > available:
        raise IdentcheckError(
            param="dim",
            value=d,
            reason=f"a probe needs {count} expert vectors distinct up to sign (gates × channels, or 3), but the "
            f"probe grid of dimension {d} has only {available}; use fewer gates or channels, or a larger dim",
        )
    found = []
    while len(found) < count:
        v = _rational_vector(rng, d)
        if all(v != w and v != tuple(-x for x in w) for w in found):
            found.append(v)
    return found


def default_probes(dim: int, seed: int = 0, include_zero: bool = False) -> list[Probe]:
    """The standard probe list for ``dim``, deterministic in ``seed``.

    Parameters
    ----------
    dim : int
        Input dimension d.
    seed : int
        Seeds the probes' random parameters (exact rationals).
    include_zero : bool
        Also the probe a = 0, where a relation holds for every φ (reported, not counted).

    Returns
    -------
    list of Probe
        random single; M = 0; random pair; gate M_N = 0 beside a random M; shared M with
        random a; shared M = 0 with random a; shared M with a₂ = −a₁; shared M with a₂ = c·a₁;
        random triple; and with ``include_zero`` a = 0 (not counted).
    """
    rng = np.random.default_rng([seed, dim])
    probes = []

    def add(name, components, gates, experts, counts=True, note=""):  # gates None: no stratum
        stratum = None if gates is None else Stratum(gates, experts)
        probes.append(Probe(name, tuple(components), counts, note, stratum))

    M1, M2, M3 = (_random_matrix(rng, dim) for _ in range(3))
    while M2 == M1:
        M2 = _random_matrix(rng, dim)
    a1, a2, a3 = _distinct_vectors(rng, dim, 3)
    zero = _zero_matrix(dim)
    c = sp.Rational(int(rng.choice([-4, -1, 1, 3, 4])), 2)  # c ∉ {0, ±1}
    one = sp.Integer(1)
    single, pair, triple = ((0, one),), ((0, one), (1, one)), ((0, one), (1, one), (2, one))
    add("random single", [Component(M1, a1)], (0,), single)
    add("M = 0", [Component(zero, a1)], (None,), single, note="the fixed gate M_N = 0")
    add("random pair", [Component(M1, a1), Component(M2, a2)], (0, 1), pair)
    add("gate M_N = 0 beside random M", [Component(zero, a1), Component(M2, a2)], (None, 0), pair)
    add("shared M, random a", [Component(M1, a1), Component(M1, a2)], (0, 0), pair, note="one head, two channels")
    add("shared M = 0, random a", [Component(zero, a1), Component(zero, a2)], (None, None), pair)
    opposite = [Component(M1, a1), Component(M1, tuple(-v for v in a1))]
    add("shared M, a2 = -a1", opposite, (0, 0), ((0, one), (0, -one)))
    scaled = [Component(M1, a1), Component(M1, tuple(c * v for v in a1))]
    add(f"shared M, a2 = {c}·a1", scaled, (0, 0), ((0, one), (0, c)))
    add("random triple", [Component(M1, a1), Component(M2, a2), Component(M3, a3)], (0, 1, 2), triple)
    if include_zero:
        zero_a = "phi(0·x) is constant: a relation here holds for every phi, so it does not count"
        add("a = 0", [Component(M1, tuple(sp.Integer(0) for _ in range(dim)))], None, (), False, zero_a)
    return probes


@dataclass(frozen=True, slots=True)
class HeadConfig:
    """One head for type-2: M (N matrices, the last 0) and a (N gates × K channels × d)."""

    M: tuple
    a: tuple

    def to_dict(self) -> dict:
        return {
            "M": [[[str(v) for v in row] for row in Mi] for Mi in self.M],
            "a": [[[str(v) for v in vec] for vec in gate] for gate in self.a],
        }

    @classmethod
    def from_dict(cls, data: dict) -> "HeadConfig":
        """The head :meth:`to_dict` wrote, exactly (a malformed one: ValueError naming the field)."""
        M, a = exact(_field(data, "M"), 3, "M"), exact(_field(data, "a"), 3, "a")
        if not a or not a[0] or len(M) != len(a) or len({len(gate) for gate in a}) != 1:
            raise ValueError(f"a: {len(a)} gate(s) of experts for {len(M)} gating matrices, or channels unequal")
        d = len(a[0][0])
        if any(len(vec) != d for gate in a for vec in gate):
            raise ValueError(f"a: expert vectors of unequal lengths (the first has {d})")
        return cls(tuple(_square(Mi, d, "M") for Mi in M), a)

    @classmethod
    def assumptions_of(cls, heads) -> tuple[tuple, tuple]:
        """(satisfied tags, ((tag, why), …) violated) of head configurations: (A.3) and (A.4) are
        checked on their matrices (the last one is M_N = 0), (A.5) on all their expert vectors."""
        matrices = [M for h in heads for M in h.M]
        vectors = [tuple(vec) for h in heads for gate in h.a for vec in gate]
        return _assumptions(matrices, vectors, heads)

    @property
    def l1(self) -> float:
        """The largest ‖a_{i,k}‖₁: f^k is a convex combination of the a_{i,k}ᵀx, so |f^k| ≤ this."""
        return float(max(sum(abs(v) for v in vec) for gate in self.a for vec in gate))


def head_probes(dim: int, n_gates: int, n_channels: int, seed: int = 0) -> list[Probe]:
    """Head configurations for type-2, deterministic in ``seed``.

    random; M_1..M_{N-1} = 0 (uniform gating); channel 2 = −channel 1
    (a_{i,2} = −a_{i,1}); channel 2 = c·channel 1; gates opposite (a_{2,k} = −a_{1,k}).
    The channel families need K ≥ 2.
    """
    rng = np.random.default_rng([seed, dim, n_gates, n_channels, 2])
    zero = _zero_matrix(dim)

    def draw_matrices():
        return tuple(_random_matrix(rng, dim) for _ in range(n_gates - 1)) + (zero,)

    def draw_experts():
        vectors = _distinct_vectors(rng, dim, n_gates * n_channels)
        return tuple(tuple(vectors[i * n_channels + k] for k in range(n_channels)) for i in range(n_gates))

    def head(M, a):
        return (HeadConfig(M, a),)

    probes = [
        Probe("random head", head(draw_matrices(), draw_experts())),
        Probe("all M = 0 (uniform gating)", head(tuple(zero for _ in range(n_gates)), draw_experts())),
    ]
    M = draw_matrices()
    a = draw_experts()
    c = sp.Rational(int(rng.choice([-4, -1, 1, 3, 4])), 2)
    if n_channels >= 2:
        opposite = tuple((gate[0], tuple(-v for v in gate[0])) + gate[2:] for gate in a)
        scaled = tuple((gate[0], tuple(c * v for v in gate[0])) + gate[2:] for gate in a)
        probes.append(Probe("channel 2 = -channel 1", head(M, opposite)))
        probes.append(Probe(f"channel 2 = {c}·channel 1", head(M, scaled)))
    flipped = (a[0], tuple(tuple(-v for v in vec) for vec in a[0])) + a[2:]
    probes.append(Probe("gate 2 = -gate 1 experts", head(M, flipped)))
    return probes


def type1_head(components, dim: int, seed: int = 0) -> HeadConfig:
    """A type-1 probe's components read as one head (for ``type1-full``).

    Components sharing a gating matrix are the channels of one gate (in order), components with
    M = 0 are the experts of the fixed gate M_N = 0 (part of the model, A.3); without such
    components the fixed gate gets fresh experts, distinct from the others (seeded). Every gate
    must have the same number of components (the channels).
    """
    groups: dict = {}
    for c in components:
        groups.setdefault(c.M, []).append(tuple(c.a))
    sizes = {len(v) for v in groups.values()}
    if len(sizes) != 1:
        raise IdentcheckError(
            param="components",
            value=components,
            reason="every gating matrix needs the same number of experts to form a head",
        )
    (n_channels,) = sizes
    zero = _zero_matrix(dim)
    fixed = groups.pop(zero, None)
    if fixed is None:
        rng = np.random.default_rng([seed, dim, 3])
        taken = {tuple(c.a) for c in components}
        fixed = []
        while len(fixed) < n_channels:
            v = _rational_vector(rng, dim)
            if v not in taken:
                taken.add(v)
                fixed.append(v)
    return HeadConfig(tuple(groups) + (zero,), tuple(tuple(g) for g in groups.values()) + (tuple(fixed),))


def head_experts(head: HeadConfig) -> tuple:
    """The experts (M_i, a_{i,k}) of a head as components, gate-major."""
    return tuple(Component(M, a) for M, gate in zip(head.M, head.a) for a in gate)
