"""Normalise a shift-invariant gate's truth to its reference atom, and say so.

A softmax over scores s_i(x) is unchanged when every score gains the same c(x): for affine scores
β1ᵢᵀx + β0ᵢ, by (c1ᵀx + c0); for Laplace scores −‖Wᵢ − x‖ + βᵢ, by a constant c; for quadratic
scores xᵀMᵢx, by xᵀCx. The truth is identified only up to that shift, so the declaration fixes
it — the reference atom r has its shift-invariant parameters at zero (:mod:`.gates`) — and a
truth given otherwise is replaced by the same model shifted there:

    β1ᵢ ← β1ᵢ − β1_r,   β0ᵢ ← β0ᵢ − β0_r   (likewise β, M),

which leaves every gate weight w_i(x), and so the model, unchanged. The reader records a
:class:`~.model.Note` with the values as given, which a record and a report repeat.

An inner mixture's shift-invariant gate (:mod:`.nested`) is normalised the same way within each
atom: its reference component c has its shift-invariant parameters at zero — M_i ← M_i − M_c for
every component i — and stays there in every fit (it is no parameter). Tied values move with their
group, each of whose atoms they belong to.

A second note is recorded when the truth's gate does not vary with x — every β1ᵢ equal (after
the shift: all zero), so the softmax or normalised sigmoid weights are constants. That is a
legitimate model, but not what a paper assuming some β1ᵢ ≠ 0 (arXiv 2505.10860 (A.2)) studies:
its printed D1/D2 truth β1 = (5, 5) is such a truth.
"""

from __future__ import annotations

import dataclasses

from .gates import shift_invariant
from .model import Atom, Note, Part, as_tuple
from .nested import Groups, Inner

__all__ = ["normalise"]


def normalise(parts: tuple[Part, ...]) -> tuple[tuple[Part, ...], tuple[Note, ...]]:
    """The parts with every shift-invariant truth moved to its reference atom, and the notes."""
    out, notes = [], []
    for part in parts:
        names = shift_invariant(part.gate.kind, part.gate.of)
        key = f"parts.{part.name}.truth"
        if names:
            at = part.gate.reference
            assert at is not None  # the reader gives a shift-invariant gate its reference atom
            reference = part.truth[at]
            if any(_nonzero(reference[name]) for name in names):
                given = "; ".join(f"{name} = {_text([atom[name] for atom in part.truth])}" for name in names)
                moved = [atom.replace(**{n: _minus(atom[n], reference[n]) for n in names}) for atom in part.truth]
                part = _with_truth(part, tuple(moved))
                now = "; ".join(f"{name} = {_text([atom[name] for atom in part.truth])}" for name in names)
                notes.append(
                    Note(
                        key,
                        f"normalised to the reference atom {at + 1} (its {', '.join(names)} "
                        f"at zero; the {part.gate.kind} gate is invariant to a common shift): given {given}, "
                        f"now {now}",
                    )
                )
        if "beta1" in part.gate_parameters:
            slopes = {atom["beta1"] for atom in part.truth}
            same = len(slopes) == 1
            constant = same and ("beta1" in names or not _nonzero(next(iter(slopes))))  # softmax: equal is enough
            if constant:
                notes.append(
                    Note(
                        key,
                        f"every atom has the same beta1 = {_text(next(iter(slopes)))}: the truth's "
                        f"{part.gate.kind} gate weights do not vary with x",
                    )
                )
        if part.inner is not None and part.inner.pinned:
            part = _inner_normalised(part, part.inner, notes)
        if part.groups is not None:
            part = _regrouped(part, part.groups)
        out.append(part)
    return tuple(out), tuple(notes)


def _regrouped(part: Part, groups: Groups) -> Part:
    """The groups' tied values (``groups``, the part's) read back from their atoms (a shift moves both alike)."""
    tied = groups.tied
    first = {group: atom for atom, group in reversed(tuple(zip(part.truth, groups.of)))}
    values = tuple(Atom(tuple((n, first[g][n]) for n in tied)) for g in range(groups.count))
    return dataclasses.replace(part, groups=dataclasses.replace(groups, truth=values))


def _inner_normalised(part: Part, inner: Inner, notes: list[Note]) -> Part:
    """Each atom's inner components (``inner``, the part's) shifted to the reference component
    (module docstring)."""
    names, reference = inner.pinned, inner.gate.reference
    assert reference is not None  # the reader gives a shift-invariant inner gate its reference component
    if not any(_nonzero(as_tuple(atom[name])[reference]) for atom in part.truth for name in names):
        return part

    def shifted(atom: Atom) -> Atom:
        moved = {}
        for n in names:
            values = as_tuple(atom[n])  # one value per component
            moved[n] = tuple(_minus(v, values[reference]) for v in values)
        return atom.replace(**moved)

    given = "; ".join(f"{name} = {_text([atom[name] for atom in part.truth])}" for name in names)
    part = _with_truth(part, tuple(shifted(atom) for atom in part.truth))
    notes.append(
        Note(
            f"parts.{part.name}.truth",
            f"inner components normalised to the reference component {reference + 1} (its {', '.join(names)} at "
            f"zero; the {inner.gate.kind} gate is invariant to a common shift): given {given}",
        )
    )
    return part


def _with_truth(part: Part, truth) -> Part:
    return dataclasses.replace(part, truth=truth)


def _nonzero(value) -> bool:
    if isinstance(value, tuple):
        return any(_nonzero(v) for v in value)
    return value != 0


def _minus(value, reference):
    if isinstance(value, tuple):
        return tuple(_minus(v, r) for v, r in zip(value, reference))
    return value - reference + 0.0  # + 0.0: no -0.0 in the canonical form


def _text(value) -> str:
    """A value as a note writes it: a number, a vector (…) — a one-entry vector as its number."""
    if isinstance(value, (list, tuple)):
        if len(value) == 1 and isinstance(value, tuple):
            return _text(value[0])
        return "(" + ", ".join(_text(v) for v in value) + ")"
    return f"{value:g}"
