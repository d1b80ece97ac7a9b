"""The stratum of a probe: the linear space of parameters its structure stands for (docs/certificates.md).

A type-1 probe is one point θ* = (M_1, a_1, …, M_K, a_K) of a structured family: a random pair
stands for all of (M1, a1, M2, a2); "shared M, a2 = −a1" for the pairs (M, a), (M, −a); "M = 0" for
(0, a). The family is a linear subspace L of the parameter space, parametrised by free gating
matrices (symmetric, their upper triangles) and free expert vectors:

    M_c = G_{g(c)}  (or 0 when g(c) is None),     a_c = λ_c · A_{e(c)},

with the factor λ_c a fixed non-zero rational (c = 3/2 in "a2 = 3/2·a1"). dim L = (free matrices)
· d(d+1)/2 + (free vectors) · d. A stratum is declared where its probe is built
(:func:`~identcheck.terms.probes.default_probes`), never read back from the values (at d = 1 every two
vectors are proportional, which no random pair means); :meth:`Stratum.holds` checks that the probe's
components lie in it.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["Stratum"]


@dataclass(frozen=True, slots=True)
class Stratum:
    """Per component c: ``gates[c]``, the index of its free matrix (None: M_c = 0), and
    ``experts[c]`` = (index of its free vector, factor λ_c)."""

    gates: tuple
    experts: tuple

    @classmethod
    def free(cls, k: int) -> "Stratum":
        """K = ``k`` components with nothing shared: (M1, a1, …, MK, aK)."""
        return cls(tuple(range(k)), tuple((c, sp.Integer(1)) for c in range(k)))

    @property
    def components(self) -> int:
        return len(self.gates)

    def _names(self) -> tuple[dict, dict]:
        """The free matrices' and vectors' names: M (a) when there is one, else by the first component using it."""
        matrices = {g: c for c, g in reversed(list(enumerate(self.gates))) if g is not None}
        vectors = {e: c for c, (e, _) in reversed(list(enumerate(self.experts)))}
        alone = len(vectors) == 1 and self.components == 1
        shared = len(matrices) == 1 and None not in self.gates  # one matrix for every component
        m_names = {g: "M" if shared else f"M{c + 1}" for g, c in matrices.items()}
        a_names = {e: "a" if alone else f"a{c + 1}" for e, c in vectors.items()}
        return m_names, a_names

    @property
    def parameters(self) -> tuple[str, ...]:
        """The free parameters in component order: ``('M1', 'a1', 'M2', 'a2')``, ``('M', 'a1')``."""
        m_names, a_names = self._names()
        seen, names = set(), []
        for g, (e, _) in zip(self.gates, self.experts):
            for key, name in ((("M", g), m_names.get(g)), (("a", e), a_names[e])):
                if name is not None and key not in seen:
                    seen.add(key)
                    names.append(name)
        return tuple(names)

    @property
    def constraints(self) -> tuple[str, ...]:
        """What ties the components: ``('shared M', 'a2 = −a1')``, ``('M1 = 0',)``."""
        m_names, a_names = self._names()
        k, out = self.components, []
        zero = [c for c, g in enumerate(self.gates) if g is None]
        if zero:
            out.append(" = ".join("M" if k == 1 else f"M{c + 1}" for c in zero) + " = 0")
        free = [g for g in self.gates if g is not None]
        if k > 1 and len(free) > len(set(free)):
            out.append("shared M" if m_names.get(free[0]) == "M" else "shared matrices")
        for c, (e, factor) in enumerate(self.experts):
            name = a_names[e]
            if name != f"a{c + 1}" and name != "a":
                scale = "" if factor == 1 else ("−" if factor == -1 else f"{factor}·".replace("-", "−"))
                out.append(f"a{c + 1} = {scale}{name}")
        return tuple(out)

    def describe(self) -> str:
        """``'(M, a1) with shared M, a2 = −a1'``; ``'(M1, a1, M2, a2)'``."""
        names = self.parameters
        shown = names[0] if len(names) == 1 else "(" + ", ".join(names) + ")"
        return shown + (" with " + ", ".join(self.constraints) if self.constraints else "")

    def dimension(self, dim: int) -> int:
        """dim L at input dimension ``dim``."""
        n_matrices = len({g for g in self.gates if g is not None})
        n_vectors = len({e for e, _ in self.experts})
        return n_matrices * dim * (dim + 1) // 2 + n_vectors * dim

    def holds(self, components) -> bool:
        """Whether ``components`` (with ``M``, ``a``) lie in the stratum: the same free matrix where
        ``gates`` say so, 0 where None, a_c = λ_c·(the free vector) with the first use's factor."""
        if len(components) != self.components:
            return False
        matrices: dict = {}
        vectors: dict = {}
        for comp, g, (e, factor) in zip(components, self.gates, self.experts):
            if g is None:
                if any(v != 0 for row in comp.M for v in row):
                    return False
            elif matrices.setdefault(g, comp.M) != comp.M:
                return False
            vector = tuple(sp.Rational(v) / factor for v in comp.a)
            if vectors.setdefault(e, vector) != vector:
                return False
        return True
