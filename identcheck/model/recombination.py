r"""Recombination: atoms that re-pair across an inner mixture's components and leave f unchanged.

When an atom's function is additive over the components of its inner mixture with the tied
parameters shared — F(θ) = Σ_c w_c(x; t)·h_c(x; η_c), as in multi-head attention and Setting I
(arXiv 2602.01468, models (2) and (9)) — two true atoms k1, k2 of one group re-pair: the mixed
atoms A = (η_1 of k1, η_2.. of k2) and B = (η_1 of k2, η_2.. of k1) satisfy

    F(A) + F(B) = F(k1) + F(k2)        (exactly, for every x),

so f depends on the atoms only through the per-(group, component) measures. With K fitted atoms
per group and K* true ones (docs/findings.md, "Channel recombination"): K ≥ K* + 2 — an ε-path
(k1, k2 with ω − ε, A and B with ε) keeps f while the atom-level Voronoi loss grows as ε, so the
model is not identifiable at the atom level; K = K* + 1 — no local path, a global alternative at a
distance when the weights differ; K = K* — a swap of two atoms with equal weights. The identity is
proved by sympy on the declared truth; an outer expert that is not additive (Setting II's
φ(inner)) fails it, and nothing is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from ..declaration import Declaration, atom_functions

__all__ = ["Recombination", "recombinations"]


@dataclass(frozen=True, slots=True)
class Recombination:
    """Two true atoms (``atoms``, from 1) of ``group`` (from 1) of ``part`` that re-pair exactly (a
    constant outer gate); ``fitted`` and ``true`` atoms per group."""

    part: str
    group: int
    atoms: tuple[int, int]
    fitted: int
    true: int

    @property
    def local(self) -> bool:
        """An ε-path exists: K ≥ K* + 2."""
        return self.fitted >= self.true + 2

    def text(self) -> str:
        head = (
            f"recombination in parts.{self.part}, group {self.group}: atoms {self.atoms[0]} and {self.atoms[1]} "
            f"re-paired across inner components give F(A) + F(B) = F(k1) + F(k2) (proved, sympy); "
            f"K = {self.fitted} fitted atoms per group, K* = {self.true}: "
        )
        if self.local:
            return head + "an ε-path keeps f while the atom-level Voronoi loss grows as ε (not identifiable at the "
            "atom level; a loss on the per-(group, component) measures is unaffected)"
        if self.fitted == self.true + 1:
            return head + "no local path (it needs K ≥ K* + 2); a global alternative at a distance keeps f"
        return head + "only a swap of two atoms with equal weights"

    def to_dict(self) -> dict:
        return {
            "part": self.part,
            "group": self.group,
            "atoms": list(self.atoms),
            "fitted_per_group": self.fitted,
            "true_per_group": self.true,
            "local": self.local,
            "text": self.text(),
        }


def recombinations(declaration: Declaration) -> tuple[Recombination, ...]:
    """The first re-pairing of each group with two true atoms or more, in every part with an inner
    mixture and groups, where the identity holds exactly."""
    out = []
    for part in declaration.parts:
        if part.inner is None or part.groups is None or part.inner.components < 2 or part.gate.kind != "constant":
            continue
        functions = atom_functions(declaration, part)
        weight = {s: 1 for s, name in zip(functions.params, functions.names) if name in part.gate_parameters}
        first = [s for s, (name, component, _) in zip(functions.params, functions.entries) if component == 0]
        first = [s for s, tied in zip(functions.params, functions.tied) if s in first and not tied]
        per_group = part.fitted // part.groups.fitted
        for group in range(part.groups.count):
            members = [i for i, g in enumerate(part.groups.of) if g == group]
            if len(members) < 2:
                continue
            one, two = (functions.values(part.truth[i]) for i in members[:2])
            mixed_a = {s: (one[s] if s in first else two[s]) for s in one}
            mixed_b = {s: (two[s] if s in first else one[s]) for s in one}
            term = functions.term.xreplace(weight)  # F: the constant gate's weight ω factored out
            total = sum((term.xreplace(v) for v in (mixed_a, mixed_b)), sp.S.Zero)
            total -= term.xreplace(one) + term.xreplace(two)
            if sp.expand(total) == 0:
                sizes = part.groups.sizes()
                out.append(
                    Recombination(part.name, group + 1, (members[0] + 1, members[1] + 1), per_group, sizes[group])
                )
    return tuple(out)
