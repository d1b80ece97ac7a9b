"""``numeric rates``'s table: one row per (settings, model, K, quantity), the slope with what it can carry.

The slope and 95 % CI columns follow :func:`numeric.experiments.slope.estimate_slope`: ``no CI`` where the
points allow no interval, ``se`` after an interval from the regression's standard error, a line
below the table saying what each mark means.
"""

from __future__ import annotations

__all__ = ["RATES_FOOTER", "rates_text", "slope_cells"]

RATES_FOOTER = (
    "theory: the slope of (log n / n)^alpha over the measured sizes "
    "(alpha from Proposition 1 / Theorems 2-3; '-' = no power law);"
    " conv / <start / <=truth / box: shares of fits that converged, ended below their start's MSE, "
    "at or below the truth's MSE, on the box"
)

_INTERVAL_NOTES = {
    "standard error": "se: 2-4 repetitions, from the regression's standard error (Student's t, sizes - 2 df)",
    "none": "no CI: fewer than 3 sizes or 2 repetitions, the point slope alone",
    "not estimated": "not estimated: one size",
}


def slope_cells(estimate) -> str:
    """The slope and 95% CI columns of ``numeric rates`` (numeric.experiments.slope decides what they hold)."""
    if estimate.slope is None:
        return f"{'-':>7}  {'not estimated':<18}"
    if estimate.ci is None:
        return f"{estimate.slope:>7.3f}  {'no CI':<18}"
    low, high = estimate.ci
    mark = " se" if estimate.interval == "standard error" else ""
    return f"{estimate.slope:>7.3f}  {f'[{low:6.3f}, {high:6.3f}]{mark}':<18}"


def rates_text(rates) -> str:
    """The table of :class:`~numeric.experiments.rates.Rate` objects, grouped by settings, with the CI marks
    explained."""
    lines = []
    for sid in sorted({r.settings_id for r in rates}):
        group = [r for r in rates if r.settings_id == sid]
        lines.append(f"settings {sid}: {group[0].settings}")
        lines.append(
            f"  {'model':<7}{'K':>3}  {'quantity':<23}{'slope':>7}  {'95% CI':<18}{'theory':>7}{'paper':>7}  "
            "reps  sizes            conv  <start  <=truth  box"
        )
        for r in group:
            theory = f"{r.theory_slope:.2f}" if r.theory_slope is not None else "-"
            paper = f"{r.paper:.2f}" if r.paper is not None else "-"
            lines.append(
                f"  {r.model:<7}{r.K:>3}  {r.quantity:<23}{slope_cells(r.estimate)}"
                f"{theory:>7}{paper:>7}  {r.n_reps:>4}"
                f"  {min(r.sizes)}..{max(r.sizes)} ({len(r.sizes)})".ljust(20)
                + f"  {r.share_converged:4.0%}  {r.share_below_start:5.0%}  {r.share_at_or_below_truth:6.0%}  "
                f"{r.share_box_active:4.0%}"
            )
    marks = sorted({r.estimate.interval for r in rates} - {"bootstrap"})
    if marks:
        lines.append(
            "CI: a percentile bootstrap from 5 repetitions at 3 or more sizes; "
            + "; ".join(_INTERVAL_NOTES[m] for m in marks)
        )
    return "\n".join(lines)
