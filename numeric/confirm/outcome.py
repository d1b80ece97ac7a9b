"""The outcome of ``numeric confirm`` from its paths: identcheck's verdict against the sequences.

:func:`paths_outcome` reads identcheck's verdict and the measured sequences
(:class:`~numeric.confirm.result.Sequence`: ratio ρ(t) = ‖g_{G_t} − g_{G*}‖ / L2(G_t, G*) along a
path) as one of :data:`~numeric.confirm.result.OUTCOMES`:

- not identifiable: *consistent* when the witness (or another path) goes to 0; *inconsistent*
  when a construction exact by derivation (``EXACT_CONSTRUCTIONS``) moves g;
  *identifiable-beyond-condition* when no witness construction reaches 0 and every path shows a
  positive plateau (exp(z), docs/confirm.md); *not-resolved* otherwise;
- identifiable: *inconsistent* when some path goes to 0; *consistent* when every path is bounded
  away from 0 with its plateau in the data; *not-resolved* otherwise;
- inconclusive: *nothing-to-confirm*.

Recombination paths (kind ``recombination``) are about the channel-level loss, for every φ, and
do not enter the outcome. :func:`describe` writes one sequence with its numbers.
"""

from __future__ import annotations

from .result import Sequence

__all__ = ["EXACT_CONSTRUCTIONS", "describe", "paths_outcome"]


def describe(s: Sequence) -> str:
    """One phrase with the numbers of a sequence."""
    if s.exact_invariance:
        return (
            f"'{s.name}': the function does not move at all (ratio 0; max ||dg||/||g*|| = {s.max_relative_change:.1e})"
        )
    slope = "—" if s.slope is None else f"{s.slope:.2f}"
    text = (
        f"'{s.name}': slope {slope}, ratio {s.ratio[0]:.2e} at t = {s.t[0]:g} -> {s.ratio[-1]:.2e} at t = {s.t[-1]:g}"
    )
    if s.limit is not None:
        text += f", t->0 limit {s.limit:.2e}"
        if s.plateau is not None:
            text += " (plateau reached)" if s.plateau else " (plateau not reached: not resolved)"
    if s.sensitivity is not None:
        text += f" ({'residual' if s.construction == 'split' else 'sensitivity'} {s.sensitivity:.1e})"
    return text


#: Constructions that are exact by derivation (docs/confirm.md): if one moves g, something is wrong.
EXACT_CONSTRUCTIONS = ("euler-scale", "weights")


def paths_outcome(check, sequences) -> tuple:
    """(paths outcome, line) from identcheck's verdict and the sequences (:data:`OUTCOMES`)."""
    witness = [s for s in sequences if s.kind == "witness"]
    others = [
        s for s in sequences if s.kind not in ("witness", "recombination")
    ]  # recombination: about the loss, for every phi
    if check.verdict == "not identifiable":
        said = f"identcheck says not identifiable (witness probe '{check.witness}')"
        if not witness:
            return "not-resolved", f"not-resolved: {said}, but no witness path could be built in the model"
        s = witness[0]
        if s.to_zero:
            return "consistent", f"consistent: {said}, and along the witness {describe(s)}"
        if s.construction in EXACT_CONSTRUCTIONS:
            return "inconsistent", (
                f"inconsistent: {said}; the witness construction '{s.construction}' is exact by derivation, "
                f"yet the function moves: {describe(s)}"
            )
        vanishing = [q for q in others if q.to_zero]
        if vanishing:
            return "consistent", (
                f"consistent: {said}; the witness relation does not lift ({describe(s)}), but another path "
                f"goes to 0: {describe(vanishing[0])}"
            )
        unresolved = [q for q in [s, *others] if not q.bounded]
        if unresolved:
            return "not-resolved", (
                f"not-resolved: {said}; no witness construction reaches ratio 0 (best: {describe(s)}), and "
                "these paths are not resolved: " + "; ".join(describe(q) for q in unresolved)
            )
        return "identifiable-beyond-condition", (
            f"identifiable-beyond-condition: {said} — the sufficient condition fails — but the model stays "
            f"identifiable along every tested path: the best witness construction levels off ({describe(s)}), "
            f"and all {len(others)} other paths show a positive plateau"
        )
    if check.verdict == "identifiable":
        vanishing = [s for s in others if s.to_zero]
        if vanishing:
            return (
                "inconsistent",
                "inconsistent: identcheck says identifiable, but the ratio goes to 0 along "
                + "; ".join(describe(s) for s in vanishing),
            )
        unresolved = [s for s in others if not s.bounded]
        if unresolved:
            return "not-resolved", (
                "not-resolved: identcheck says identifiable; these paths do not show a positive plateau: "
                + "; ".join(describe(s) for s in unresolved)
            )
        low = min(others, key=lambda s: s.limit if s.limit is not None else min(s.ratio))
        return "consistent", (
            f"consistent: identcheck says identifiable, and the ratio is bounded away from 0 along all {len(others)} "
            f"paths, each with its plateau in the data (smallest: {describe(low)})"
        )
    return "nothing-to-confirm", f"nothing-to-confirm: identcheck's verdict is {check.verdict!r} ({check.summary})"
