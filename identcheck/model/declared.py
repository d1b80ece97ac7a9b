r"""From a declared model (:mod:`identcheck.declaration`) to the atoms the model-level check takes.

A declared part's per-atom term (:func:`~identcheck.declaration.atom_functions`) is
gate factor × expert (regression) or gate factor × N(y | h, ν) (density). The check wants the
atom's weight p_i > 0 apart from F (:mod:`.atom`), so the part's gate must factor it out:

- ``constant``: ω_i·F, F = h or N(y | h, ν): p = ω;
- ``softmax``: exp(β1ᵀx + β0)·N(…) = e^{β0}·F with F = exp(β1ᵀx)·N(…): p = e^{β0}; the
  denominator cleared with the fitted atoms adds −exp(β1ᵀx)·f_{G*} per atom, whose coefficients
  repeat the pure-β1 equations (:mod:`.examples`, docs/model.md). That argument is the density's:
  in a regression (least squares) the cleared per-atom function is exp(β1ᵀx)·(h(x; η) − g*(x)),
  whose order-0 terms are dependent across the true atoms (Σ_j p*_j F(θ*_j) = 0), and taking
  exp(β1ᵀx)·h instead would read a relation tying F to an expert derivative (h linear in a scale
  e2) as the weight absorbing a move, which the denominator does not allow: refused.

Refused, one line each, naming the key (:data:`REFUSED`): a declaration that identcheck's
checks refuse (``relu``: :meth:`~identcheck.declaration.Declaration.refusal`); the gates with no
weight to factor out or no smooth F — ``sigmoid`` (its weights are the gate values
σ(β1ᵀx + β0): no positive factor separates, so a cell's mass is no unknown of its own),
``normalized-sigmoid`` (the same after clearing the denominator), ``laplace``
(exp(−‖W − x‖ + β) is not differentiable in W where W = x, inside the input box), ``top-k`` (a
selection: not smooth in β1 where two scores tie) and an outer ``quadratic-softmax`` (no intercept:
no weight factors out); a softmax gate in a regression (:data:`SOFTMAX_REGRESSION`).

**Nested parts** are taken as they are: the inner mixture is part of F (atom_functions substitutes
it). **Tied parameters** (one value per group of atoms) move every atom of a fitted group
together: :mod:`.tied` brackets the tied model between the system with each atom its own copy
(sound for absence) and the system with them at the truth (sound for witnesses).
:mod:`.recombination` adds the exact re-pairing of atoms across inner components (multi-head
attention, Setting I), which makes the model not identifiable at the atom level when a group
has K ≥ K* + 2 fitted atoms.

Each true atom of a part gives one :class:`~identcheck.model.atom.AtomFunction` at its truth,
sampled on the declared input box (a normal input: [−3, 3]^d) and, for a density, y in the tube
h*(x) ± 6 standard deviations around the true expert (:mod:`.atom`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp

from ..declaration import Declaration, atom_functions
from ..errors import IdentcheckError
from ..evidence import Evidence, Verdict
from ..parse.grammar import lambdify_modules
from ..util.bites import Bites, Cells, lowest
from ..util.budget import run
from .atom import AtomFunction, atom_function
from .denominator import DenominatorTerms, denominator_terms
from .joint import joint_independence
from .recombination import recombinations
from .tied import check_tied
from .verdict import ModelVerdict, check_atom, check_limits

__all__ = ["REFUSED", "DeclaredCheck", "check_declaration", "declared_atoms"]

#: the gate parameter that is the weight, and its neutral value
WEIGHTS = {"constant": ("omega", 1), "softmax": ("beta0", 0)}
#: why the check refuses a gate, in one line each
REFUSED = {
    "sigmoid": "a sigmoid gate's weights are its values sigmoid(beta1.x + beta0): no positive weight factors out "
    "of F, so a cell's mass is no unknown of its own (the check takes constant and softmax gates)",
    "normalized-sigmoid": "sigmoid(beta1.x + beta0) does not factor as a positive weight times F (beta0 does not "
    "separate from beta1.x), so a cell's mass is no unknown of its own (the check takes constant and softmax gates)",
    "laplace": "exp(-|W - x| + beta) is not differentiable in W where W = x, inside the input box: no Taylor "
    "expansion in W (the check takes constant and softmax gates)",
    "top-k": "a top-K selection is not smooth in beta1 where two scores tie, inside the input box (the check "
    "takes constant and softmax gates)",
    "quadratic-softmax": "an outer quadratic softmax exp(x.M.x) has no intercept: no weight factors out (the "
    "check takes constant and softmax gates)",
}
SOFTMAX_REGRESSION = (
    "a softmax-gated regression: with the denominator cleared, F = exp(beta1.x)*(h - g*) has order-0 terms dependent "
    "across the true atoms, so the per-cell systems do not decouple (the check takes softmax gates in a density)"
)
NORMAL_BOX = 3
FIRST_ORDER = 2  # every atom is checked to this order first
MODEL_SECONDS = 240.0  # the whole model check's default budget: four atoms of one check_atom default each
SPREAD = 6
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


def declared_atoms(declaration: Declaration, part: str) -> tuple[AtomFunction, ...]:
    """The :class:`~identcheck.model.atom.AtomFunction` of each true atom of ``part``."""
    refusal = declaration.refusal()
    if refusal is not None:
        raise IdentcheckError(refusal)
    spec = declaration.part(part)
    where = f"parts.{spec.name}"
    if spec.gate.kind not in WEIGHTS:
        raise IdentcheckError(param=f"{where}.gate.kind", value=spec.gate.kind, reason=REFUSED[spec.gate.kind])
    functions = atom_functions(declaration, spec)
    weight_name, neutral = WEIGHTS[spec.gate.kind]
    (weight,) = [s for s, name in zip(functions.params, functions.names) if name == weight_name]
    term = functions.term.xreplace({weight: neutral})
    if sp.simplify(functions.term / term).free_symbols - {weight}:
        raise IdentcheckError(param=f"{where}.gate", reason="the term does not factor as weight × F")
    if spec.gate.kind == "softmax" and not declaration.noise.density:
        raise IdentcheckError(param=f"{where}.gate.kind", value="softmax", reason=SOFTMAX_REGRESSION)
    params = tuple(s for s in functions.params if s != weight)
    variables = tuple(functions.x) + ((functions.y,) if functions.y is not None else ())
    out = []
    for index, atom in enumerate(spec.truth):
        values = functions.values(atom)
        truth = {s.name: values[s] for s in params}
        box, tube = _region(declaration, functions, values)
        out.append(atom_function(term, variables, params, truth, box, f"{spec.name}[{index + 1}]", tube))
    return tuple(out)


def _region(declaration: Declaration, functions, values) -> tuple:
    """(box, tube): the input box; for a density y's range and the tube y = h*(x) ± 6√ν*."""
    inputs = declaration.inputs
    low, high = (inputs.low, inputs.high) if inputs.kind == "uniform" else (-NORMAL_BOX, NORMAL_BOX)
    assert low is not None and high is not None  # a uniform input has both ends (the reader's check)
    box = {x.name: (low, high) for x in functions.x}
    if functions.y is None:
        return box, None
    expression = functions.expert.xreplace(values)
    expert = sp.lambdify(functions.x, expression, modules=lambdify_modules(expression))
    grid = np.linspace(float(low), float(high), 41)
    mesh = np.meshgrid(*([grid] * len(functions.x)))
    h = np.broadcast_to(np.asarray(expert(*mesh), dtype=float), mesh[0].shape)
    (variance,) = [values[s] for s in functions.params if s.name == declaration.part(functions.part).variance]
    spread = SPREAD * float(variance) ** 0.5
    box[functions.y.name] = (int(np.floor(h.min() - spread)), int(np.ceil(h.max() + spread)))
    return box, (functions.y, expression, Fraction(spread).limit_denominator(1000))


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
        beside other parts (:attr:`mixed`), or whose joint step did not finish (:attr:`joint_unfinished`):
        the cells may couple, and no per-cell outcome is the model's."""
        if self.joint_unfinished and self._softmax_parts:
            return True
        if not self.denominators:
            return False
        return self.joint is not True or self.mixed or any(d.every_cell_overfitted for d in self.denominators)

    @property
    def mixed(self) -> bool:
        """A softmax part beside other parts: clearing its denominator S_G multiplies their differences
        too — their first-order terms become S_{G*}(x)·∂^κF, which the joint test does not take, and
        products of moves of different parts' cells enter at orders ≥ 2 — not expressed by the check."""
        softmax = self._softmax_parts
        return bool(softmax) and any(part not in softmax for part, _ in self.results)

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
            if self.mixed and self.joint is True:
                parts = ", ".join(f"parts.{d.part}" for d in self.denominators)
                return (
                    f"clearing the softmax denominator of {parts} multiplies the other parts' differences by it: "
                    "their terms become S*(x)·∂^κF at first order and products of moves of different parts' cells "
                    "enter at orders ≥ 2, which the per-cell systems and the joint test do not express; the atoms' "
                    "per-cell verdicts are not the model's"
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
    unfinished: list[str] = []
    softmax = tuple(spec.name for spec in declaration.parts if spec.gate.kind == "softmax")  # structural: no time
    joint, joint_proved, denominators = None, False, ()
    step, timed_out = _in_time(_joint, declaration, results, deadline=start + seconds)
    if timed_out:
        unfinished.append(UNFINISHED_JOINT.format(seconds=seconds))
    else:
        joint, joint_proved, denominators = step
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
    )


def _in_time(step, *args, deadline: float):
    """(``step(*args)``, False), or (None, True) when the model's ``deadline`` (a ``time.monotonic()``
    value) has passed or passes while it runs (:func:`~identcheck.util.budget.run`: CPU time with its
    wall-clock backstop, the same clock as the atoms' decisions)."""
    left = deadline - time.monotonic()
    if left <= 0:
        return None, True
    return run(step, *args, seconds=left, default=None)


def _joint(declaration: Declaration, results) -> tuple:
    """(joint, joint_proved, denominators): the softmax denominators' terms (:mod:`.denominator`) and
    the independence of every true atom's basis with them (:mod:`.joint`)."""
    denominators = _denominators(declaration, results)
    extra = tuple(c for d in denominators for c in d.columns)
    bases = tuple(v.basis for _, v in results)
    union = joint_independence(bases, extra) if len(results) > 1 or extra else None
    joint = True if union is None else union.independent
    joint_proved = union is None or (union.independent is True and union.proof is not None)
    if any(d.single for d in denominators):  # its denominator terms are its own x^α F: dependent, exactly
        joint, joint_proved = False, False
    return joint, joint_proved, denominators


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
