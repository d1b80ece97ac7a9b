r"""A declared model's convergence rates: slopes of its loss and per-parameter errors, in n and in log(n)/n.

For one experiment (the store's model, one settings id) and one quantity — ``loss`` (the
declaration's loss, e.g. a Voronoi loss D1 … D4) or ``error part.param`` (the per-parameter error
the declaration's ``[errors]`` reduce to) — the repetitions' values L_{n,r} at each sample size are
averaged, and two slopes are fitted by least squares:

- **in n**: b of log(mean_r L_{n,r}) = c + b·log n (a parametric rate is b = −1/2);
- **in log(n)/n**, the form these papers report: α of log(mean_r L_{n,r}) = c + α·log(log n / n),
  so L ≍ (log n / n)^α (a parametric rate is α ≈ 1/2, positive). It is the slope in n of the
  same means against x = n / log n, negated (log(log n / n) = −log x), with its interval negated
  end for end.

What each slope can carry — nothing below two sizes, the point alone below three sizes or two
repetitions, a standard-error interval below five repetitions, a stratified percentile bootstrap
from five — is :func:`numeric.experiments.slope.estimate_slope`'s rule, the one every printer follows. Values
that are not finite or not positive are dropped (counted); a size keeps the repetitions every size
has. Beside the slopes, the fits' health: how many were **worse than the truth** (a fit whose
objective on its own data is below the truth's: it stopped short of the estimator), converged,
and ended with a parameter on the box. And the declaration's **notes** — its truth normalised to a
reference atom, its gate constant in x (:mod:`identcheck.declaration.normalise`) — which the text
prints as warnings and the JSON carries as ``notes``: a rate measured on a printed truth that
is not the model the paper assumes says so in either form.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..rates_text import slope_cells
from ..slope import SlopeEstimate, estimate_slope
from .store import DeclaredRecord, DeclaredStore

__all__ = [
    "DECLARED_RATES_SCHEMA",
    "DeclaredRate",
    "declared_quantities",
    "declared_rates",
    "declared_rates_text",
    "in_log_n_over_n",
]

#: The schema of a declared rate row in ``numeric rates --json`` (docs/changelog.md).
DECLARED_RATES_SCHEMA = "numeric.declared_rates/2"


@dataclass(frozen=True, slots=True)
class DeclaredRate:
    """The slopes of one quantity for one experiment of a declared store, and how its fits went."""

    model: str
    digest: str
    settings_id: str
    settings: str
    quantity: str
    in_n: SlopeEstimate
    in_log_n_over_n: SlopeEstimate
    sizes: tuple
    means: tuple
    n_reps: int
    fits: int
    worse_than_truth: int
    converged: int
    box_active: int
    dropped: int = 0
    notes: tuple[tuple[str, str], ...] = ()  # the declaration's (key, text) notes

    def to_dict(self) -> dict:
        return {
            "schema": DECLARED_RATES_SCHEMA,
            "model": self.model,
            "digest": self.digest,
            "settings_id": self.settings_id,
            "settings": self.settings,
            "quantity": self.quantity,
            "slope_n": self.in_n.to_dict() | {"intercept": self.in_n.intercept},
            "slope_log_n_over_n": self.in_log_n_over_n.to_dict() | {"intercept": self.in_log_n_over_n.intercept},
            "sizes": list(self.sizes),
            "mean": list(self.means),
            "repetitions": self.n_reps,
            "fits": self.fits,
            "worse_than_truth": self.worse_than_truth,
            "converged": self.converged,
            "box_active": self.box_active,
            "dropped_values": self.dropped,
            "notes": [{"key": key, "text": text} for key, text in self.notes],
        }


def in_log_n_over_n(sizes, losses, n_boot: int = 2000) -> SlopeEstimate:
    """α of log mean L = c + α·log(log n / n), with what the points carry (module docstring)."""
    sizes = np.asarray(sizes, dtype=float)
    estimate = estimate_slope(sizes / np.log(sizes), losses, n_boot=n_boot)
    if estimate.slope is None:
        return estimate
    low, high = estimate.low, estimate.high
    return replace(
        estimate,
        slope=-estimate.slope,
        low=None if high is None else -high,
        high=None if low is None else -low,
    )


def _value(record: DeclaredRecord, quantity: str) -> float:
    if quantity == "loss":
        return np.nan if record.loss is None else record.loss
    part, name = quantity.removeprefix("error ").split(".", 1)
    return float(record.fit()["errors"]["errors"].get(part, {}).get(name, np.nan))


def declared_quantities(records) -> list[str]:
    """``loss`` (when the records have one) and ``error part.param`` for every reported error, in record order."""
    out = ["loss"] if any(r.loss is not None for r in records) else []
    for record in records[:1]:
        for part, values in record.fit()["errors"]["errors"].items():
            out += [f"error {part}.{name}" for name in values]
    return out


def declared_rates(store: DeclaredStore, records, quantities=None, n_boot: int = 2000) -> list[DeclaredRate]:
    """One :class:`DeclaredRate` per (settings, quantity) of a declared store's records."""
    groups: dict = {}
    for r in records:
        groups.setdefault(r.settings_id, []).append(r)
    notes = tuple((note["key"], note["text"]) for note in store.declaration.get("notes", ()))
    out = []
    for sid, members in sorted(groups.items()):
        described = store.settings[sid].describe() if sid in store.settings else sid
        health = (
            len(members),
            sum(r.worse_than_truth for r in members),
            sum(r.converged for r in members),
            sum(r.active_bounds > 0 for r in members),
        )
        for quantity in quantities if quantities is not None else declared_quantities(members):
            by_n: dict = {}
            dropped = 0
            for r in members:
                value = _value(r, quantity)
                if np.isfinite(value) and value > 0:
                    by_n.setdefault(r.n, []).append(value)
                else:
                    dropped += 1
            sizes = sorted(by_n)
            if not sizes:
                continue
            reps = min(len(by_n[n]) for n in sizes)
            losses = np.array([by_n[n][:reps] for n in sizes])
            out.append(
                DeclaredRate(
                    store.name,
                    store.digest,
                    sid,
                    described,
                    quantity,
                    estimate_slope(sizes, losses, n_boot=n_boot),
                    in_log_n_over_n(sizes, losses, n_boot=n_boot),
                    tuple(sizes),
                    tuple(float(v) for v in losses.mean(axis=1)),
                    reps,
                    *health,
                    dropped,
                    notes,
                )
            )
    return out


def declared_rates_text(rates) -> str:
    """The table ``numeric rates`` prints for a declared store (one block per settings)."""
    lines = []
    for sid in sorted({r.settings_id for r in rates}):
        group = [r for r in rates if r.settings_id == sid]
        first = group[0]
        lines.append(f"model {first.model} (digest {first.digest[:12]}), settings {sid}: {first.settings}")
        lines.append(
            f"  {first.fits} fits, {first.worse_than_truth} worse than the truth, {first.converged} converged, "
            f"{first.box_active} on the box"
        )
        lines.append(f"  {'quantity':<22}{'in n':>7}  {'95% CI':<18}   {'log(n)/n':>7}  {'95% CI':<18}reps  sizes")
        for r in group:
            lines.append(
                f"  {r.quantity:<22}{slope_cells(r.in_n)}   {slope_cells(r.in_log_n_over_n)}  {r.n_reps:>4}  "
                f"{min(r.sizes)}..{max(r.sizes)} ({len(r.sizes)})"
            )
    marks = sorted({e.interval for r in rates for e in (r.in_n, r.in_log_n_over_n)} - {"bootstrap"})
    if marks:
        lines.append("CI: " + "; ".join(f"{_MARKS[m]}" for m in marks))
    lines.append(
        "in n: b of log mean = c + b log n; log(n)/n: alpha of log mean = c + alpha log(log n / n), "
        "the papers' form (a parametric rate: -0.5 and about 0.5)"
    )
    return "\n".join(lines)


_MARKS = {
    "standard error": "se: 2-4 repetitions, from the regression's standard error",
    "none": "no CI: fewer than 3 sizes or 2 repetitions",
    "not estimated": "not estimated: one size",
}
