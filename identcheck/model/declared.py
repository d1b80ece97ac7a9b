r"""The model-level verdict of a declared model (:mod:`identcheck.declaration`): every true atom checked
(:mod:`.declared_atoms` builds them), then what couples the cells of different atoms.

**Tied parameters** (one value per group of atoms) move every atom of a fitted group
together: :mod:`.tied` brackets the tied model between the system with each atom its own copy
(sound for absence) and the system with them at the truth (sound for witnesses).
:mod:`.recombination` adds the exact re-pairing of atoms across inner components (multi-head
attention, Setting I), which makes the model not identifiable at the atom level when a group
has K ≥ K* + 2 fitted atoms.

The per-cell systems are the model's only when the true atoms' bases are independent together
(:mod:`.joint`), with a softmax part's denominator terms (:mod:`.denominator`) and, beside a softmax
part, the other parts' terms multiplied by its true denominator S*(x) (:mod:`.mixed`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import sympy as sp

from ..declaration import Declaration, atom_functions
from ..evidence import Evidence, Verdict
from ..util.bites import Bites, Cells, lowest
from ..util.budget import run
from .declared_atoms import REFUSED, WEIGHTS, declared_atoms
from .denominator import DenominatorTerms, denominator_terms
from .joint import joint_independence
from .mixed import cleared_bases
from .recombination import recombinations
from .shared_decisions import shared_decisions
from .tied import check_tied
from .verdict import ModelVerdict, check_atom, check_limits

__all__ = ["REFUSED", "DeclaredCheck", "check_declaration", "declared_atoms"]

FIRST_ORDER = 2  # every atom is checked to this order first
MODEL_SECONDS = 240.0  # the whole model check's default budget: four atoms of one check_atom default each
UNFINISHED_JOINT = (
    "the joint independence of the true atoms' bases (with any softmax denominator's terms) did not finish within "
    "the model's {seconds:g} s after the atoms' checks: the cells of different true atoms may couple, so no "
    "per-atom verdict is the model's (ask for more --seconds)"
)
_JOINT_PREFIX = UNFINISHED_JOINT.partition("{")[0]
UNFINISHED_RECOMBINATION = (
    "the search for atoms re-pairing across inner components did not finish within the model's {seconds:g} s "
    "(ask for more --seconds)"
)


@dataclass(frozen=True, slots=True)
class DeclaredCheck:
    """The model-level verdict of every true atom of every part: ``results`` ((part, verdict), …),
    and ``joint`` the independence of all their bases together (:mod:`.joint`; None: undecided).

    The model's ``verdict``: *not identifiable* when an atom is; *inconclusive* when an atom is, or
    the bases are not proved jointly independent (cells of different true atoms would couple);
    *identifiable* otherwise; *inconclusive* too when a model-wide step (the joint independence, the
    recombination search) did not finish within the model's seconds (``unfinished`` says which),
    unless an atom is not identifiable — and always when the joint step did not finish in a model
    with a softmax part (``softmax``, read off the declaration without the step): its denominator's
    terms, its mixing with other parts and its over-fitting are what make the cells couple, so no
    per-atom verdict is the model's. Its ``evidence`` is proof only when every atom's is and, with
    more than one atom, ``joint_proved``: the joint independence carries an interval proof."""

    name: str
    results: tuple
    joint: bool | None = None
    max_order: int = 4
    max_cell: int = 2
    seconds: float = 0.0
    recombinations: tuple = ()
    joint_proved: bool = False
    denominators: tuple = ()
    unfinished: tuple = ()  # the model-wide steps the budget cut (UNFINISHED_*): never a verdict
    softmax: tuple = ()  # the softmax parts' names, from the declaration (known without the joint step)
    cleared: tuple = ()  # the parts whose terms the joint test multiplied by a softmax part's S*(x) (.mixed)

    @property
    def verdict(self):  # a Verdict, or an atom's other outcome
        verdicts = [v.verdict for _, v in self.results]
        if any(r.local for r in self.recombinations):
            return Verdict.NOT_IDENTIFIABLE
        if self.unfinished and Verdict.NOT_IDENTIFIABLE not in verdicts:  # an atom's proved failure stands
            return Verdict.INCONCLUSIVE
        if self.coupled:  # the per-cell systems are not the model's: neither their witnesses nor their absences carry
            return Verdict.INCONCLUSIVE
        if Verdict.NOT_IDENTIFIABLE in verdicts:
            return Verdict.NOT_IDENTIFIABLE
        others = [v for v in verdicts if v != Verdict.IDENTIFIABLE]  # inconclusive, or an order too low
        if others:
            return others[0]
        return Verdict.IDENTIFIABLE if self.joint is True else Verdict.INCONCLUSIVE

    @property
    def coupled(self) -> bool:
        """A softmax part whose denominator's terms are not shown independent of the atoms' bases
        (:mod:`.denominator`), whose every cell may be over-fitted (no normalised reference cell), or
        one of several softmax parts (:attr:`several_softmax`), or whose joint step did not finish
        (:attr:`joint_unfinished`): the cells may couple, and no per-cell outcome is the model's. A softmax
        part beside constant-gate parts (:attr:`mixed`) is expressed: the joint test takes their terms
        multiplied by its true denominator (:mod:`.mixed`)."""
        if self.joint_unfinished and self._softmax_parts:
            return True
        if not self.denominators:
            return False
        return self.joint is not True or self.several_softmax or any(d.every_cell_overfitted for d in self.denominators)

    @property
    def mixed(self) -> bool:
        """A softmax part beside other parts (DeepSeekMoE's shared and routed experts)."""
        softmax = self._softmax_parts
        return bool(softmax) and any(part not in softmax for part, _ in self.results)

    @property
    def several_softmax(self) -> bool:
        """Two softmax parts or more: one true denominator each, which :mod:`.mixed` does not clear together."""
        return len(self._softmax_parts) > 1

    @property
    def joint_unfinished(self) -> bool:
        """The joint independence step (with the softmax denominators' terms) cut by the budget."""
        return any(u.startswith(_JOINT_PREFIX) for u in self.unfinished)

    @property
    def _softmax_parts(self) -> set:
        return set(self.softmax) | {d.part for d in self.denominators}

    @property
    def evidence(self) -> Evidence:
        deciding = [v for _, v in self.results if self.verdict == Verdict.IDENTIFIABLE or v.verdict == self.verdict]
        proved = bool(deciding) and all(v.evidence == Evidence.PROOF for v in deciding)
        if self.verdict == Verdict.NOT_IDENTIFIABLE and not deciding:
            proved = True  # a recombination: an exact identity (sympy)
        if self.verdict == Verdict.IDENTIFIABLE and not self.joint_proved:
            proved = False  # the atoms' bases independent together by float64 only: evidence
        return Evidence.PROOF if proved and self.verdict != Verdict.INCONCLUSIVE else Evidence.NUMERIC

    @property
    def summary(self) -> str:
        if self.unfinished and self.verdict == Verdict.INCONCLUSIVE:
            return "; ".join(self.unfinished)
        local = [r.text() for r in self.recombinations if r.local]
        if local and all(v.verdict != Verdict.NOT_IDENTIFIABLE for _, v in self.results):
            return local[0]
        if self.coupled and not local:
            single = [d.text() for d in self.denominators if d.single or d.every_cell_overfitted]
            if single:
                return f"{single[0]}; the atoms' per-cell verdicts are not the model's"
            if self.several_softmax:
                parts = ", ".join(f"parts.{d.part}" for d in self.denominators)
                return (
                    f"several softmax parts ({parts}): clearing one true denominator leaves the others' quotients, "
                    "which the per-cell systems and the joint test do not express; the atoms' per-cell verdicts "
                    "are not the model's"
                )
            known = "dependent" if self.joint is False else "not shown independent"
            return (
                f"the atoms' bases with the softmax denominator's terms x^α exp(β1*ᵀx)·f* are {known}: the cells "
                "may couple through the denominator (true atoms that share an expert, or a true gate constant in "
                "x), which the per-cell systems do not express; the atoms' per-cell verdicts are not the model's"
            )
        if self.verdict == Verdict.INCONCLUSIVE and all(v.verdict == Verdict.IDENTIFIABLE for _, v in self.results):
            return "every atom identifiable, but the atoms' bases are not proved jointly independent"
        failing = [f"{v.atom.name}: {v.summary}" for _, v in self.results if v.verdict == self.verdict]
        return failing[0] if failing else ""

    @property
    def bites(self) -> Bites | None:
        """Where the model's failure bites (:mod:`identcheck.util.bites`): an atom's, or a local recombination's
        (cells of ≥ 2 fitted atoms; an exact identity, no Taylor order); None unless not identifiable."""
        if self.verdict != Verdict.NOT_IDENTIFIABLE:
            return None
        local = [Bites(None, Cells.OVER_FITTED)] if any(r.local for r in self.recombinations) else []
        return lowest([v.bites for _, v in self.results] + local)

    @property
    def cut(self) -> tuple[str, ...]:
        """Every step the budget cut: the model-wide ones (``unfinished``), then each atom's."""
        return self.unfinished + tuple(f"{v.atom.name}: {u}" for _, v in self.results for u in v.unfinished)

    def to_dict(self) -> dict:
        atoms = [{"part": p, **v.to_dict()} for p, v in self.results]
        return {
            "model": self.name,
            "verdict": str(self.verdict),
            "evidence": str(self.evidence),
            "summary": self.summary,
            "max_order": self.max_order,
            "max_cell": self.max_cell,
            "atoms": atoms,
            "joint_independent": self.joint,
            "joint_proved": self.joint_proved,
            "softmax_denominators": [d.to_dict() for d in self.denominators],
            "cleared": list(self.cleared),
            "recombinations": [r.to_dict() for r in self.recombinations],
            "bites": None if self.bites is None else self.bites.to_dict(),
            "unfinished": list(self.cut),
            "seconds": round(self.seconds, 3),
        }


def check_declaration(
    declaration: Declaration, max_order: int = 4, max_cell: int = 2, seconds: float = MODEL_SECONDS
) -> DeclaredCheck:
    """:func:`~identcheck.model.verdict.check_atom` on each true atom of each part, and the joint
    independence of their bases, within ``seconds`` for the whole model: each atom gets an equal
    share of the time still left (an atom finishing early leaves its rest to the next ones).

    Each atom is checked to order 2 first (:data:`FIRST_ORDER`): an atom identifiable there with
    every r̄(m) proved keeps that verdict at every higher order (r̄(m) is the smallest order with only
    the trivial solution), so only the others are checked again to ``max_order``, with the time left."""
    check_limits(max_order, max_cell)
    start = time.monotonic()
    atoms = [(part, atom) for part in declaration.parts for atom in declared_atoms(declaration, part.name)]
    results: list[tuple[str, ModelVerdict]] = []
    with shared_decisions():  # atoms with the same coefficient systems decide them once
        _check_atoms(declaration, atoms, results, max_order, max_cell, seconds, start)
    unfinished: list[str] = []
    softmax = tuple(spec.name for spec in declaration.parts if spec.gate.kind == "softmax")  # structural: no time
    joint, joint_proved, denominators, cleared = None, False, (), ()
    step, timed_out = _in_time(_joint, declaration, results, deadline=start + seconds)
    if timed_out:
        unfinished.append(UNFINISHED_JOINT.format(seconds=seconds))
    else:
        joint, joint_proved, denominators, cleared = step
    found, timed_out = _in_time(recombinations, declaration, deadline=start + seconds)
    if timed_out:
        found = ()
        unfinished.append(UNFINISHED_RECOMBINATION.format(seconds=seconds))
    seconds_taken = time.monotonic() - start
    return DeclaredCheck(
        declaration.name,
        tuple(results),
        joint,
        max_order,
        max_cell,
        seconds_taken,
        found,
        joint_proved=joint_proved,
        denominators=denominators,
        unfinished=tuple(unfinished),
        softmax=softmax,
        cleared=cleared,
    )


def _check_atoms(declaration, atoms, results: list, max_order, max_cell, seconds, start) -> None:
    """Each atom's verdict appended to ``results``, within an equal share of the model's time left."""
    for part, atom in atoms:
        tied = tuple(p for p in atom.params if p.name in _tied_names(declaration, part))

        def run(order, budget, atom=atom, tied=tied):
            if tied:
                return check_tied(atom, tied, max_order=order, max_cell=max_cell, seconds=budget)
            return check_atom(atom, max_order=order, max_cell=max_cell, seconds=budget)

        share = max(seconds - (time.monotonic() - start), 0.0) / (len(atoms) - len(results))
        begun = time.monotonic()
        verdict = run(min(FIRST_ORDER, max_order), share)
        left = share - (time.monotonic() - begun)
        if max_order > FIRST_ORDER and not _settled(verdict) and left > 1:
            verdict = run(max_order, left)
        results.append((part.name, verdict))


def _in_time(step, *args, deadline: float):
    """(``step(*args)``, False), or (None, True) when the model's ``deadline`` (a ``time.monotonic()``
    value) has passed or passes while it runs (:func:`~identcheck.util.budget.run`: CPU time with its
    wall-clock backstop, the same clock as the atoms' decisions)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return None, True
    return run(step, *args, seconds=left, default=None)


def _joint(declaration: Declaration, results) -> tuple:
    """(joint, joint_proved, denominators, cleared): the softmax denominators' terms (:mod:`.denominator`)
    and the independence of every true atom's basis with them (:mod:`.joint`), the other parts' bases
    multiplied by a softmax part's true denominator (:mod:`.mixed`; ``cleared`` names those parts)."""
    denominators = _denominators(declaration, results)
    extra = tuple(c for d in denominators for c in d.columns)
    bases, cleared = cleared_bases(tuple(results), denominators)
    union = joint_independence(bases, extra) if len(results) > 1 or extra else None
    joint = True if union is None else union.independent
    joint_proved = union is None or (union.independent is True and union.proof is not None)
    if any(d.single for d in denominators):  # its denominator terms are its own x^α F: dependent, exactly
        joint, joint_proved = False, False
    return joint, joint_proved, denominators, cleared


def _denominators(declaration: Declaration, results) -> tuple[DenominatorTerms, ...]:
    """The softmax denominator's terms of each softmax part (:mod:`.denominator`), to the order its
    atoms' bases reached."""
    out = []
    for spec in declaration.parts:
        if spec.gate.kind != "softmax":
            continue
        functions = atom_functions(declaration, spec)
        slopes = tuple(s for s, name in zip(functions.params, functions.names) if name == "beta1")
        (intercept,) = [s for s, name in zip(functions.params, functions.names) if name == WEIGHTS["softmax"][0]]
        weights = tuple(sp.exp(functions.values(atom)[intercept]) for atom in spec.truth)
        verdicts = [v for part, v in results if part == spec.name]
        order = max(v.basis.order for v in verdicts)
        atoms = tuple(v.atom for v in verdicts)
        out.append(denominator_terms(spec.name, atoms, weights, slopes, functions.x, order, spec.fitted))
    return tuple(out)


def _tied_names(declaration: Declaration, part) -> set:
    """The symbols' names of ``part``'s tied parameters (one value per group)."""
    functions = atom_functions(declaration, part)
    return {s.name for s, tied in zip(functions.params, functions.tied) if tied}


def _settled(verdict: ModelVerdict) -> bool:
    """Identifiable with every r̄(m) proved: what higher orders cannot change (an r̄ that is the
    search's evidence, or that more time might change, is checked again to the full order)."""
    return verdict.verdict == Verdict.IDENTIFIABLE and all(c.rbar is not None and c.proved for c in verdict.cells)
