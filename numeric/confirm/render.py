"""``numeric confirm``'s result rendered for Jupyter: the markdown behind ``_repr_markdown_``.

The same facts as the command's text (:func:`numeric.confirm.cli.format_result`): the outcome
in capitals (``**CONSISTENT**``, ``**IDENTIFIABLE-BEYOND-CONDITION**``, …) with the verdict
line, what the outcome means, identcheck's symbolic verdict and witness relation, one table row
per path with its slope of ρ(t) = ‖g_t − g*‖/L2, whether the function moved at all (exact
invariance), its t → 0 limit and its status (→ 0, bounded with the plateau reached, not
resolved), and one table row per rate (Figure-1-style grid) with whether the intervals separate.
"""

from __future__ import annotations

from identcheck.util.markdown import code, table

__all__ = ["confirm_markdown"]


def _sequence_row(s) -> tuple:
    slope = "—" if s.slope is None else f"{s.slope:.2f}"
    limit = "—" if s.limit is None else f"{s.limit:.1e}"
    status = {
        "to zero": "yes",
        "bounded": "no (bounded, plateau reached)",
        "not resolved": "not resolved (plateau not reached)",
        "undecided": "undecided",
    }[s.status]
    return (
        s.kind,
        s.name,
        slope,
        "yes" if s.exact_invariance else "no",
        f"{s.ratio[0]:.2e}",
        f"{s.t[-1]:g}",
        f"{s.ratio[-1]:.2e}",
        limit,
        status,
    )


def _rate_row(r) -> tuple:
    measure = "—" if r.measure_estimate is None else r.measure_estimate.text(signed=True)
    estimate = r.estimate
    if estimate.ci is None:
        interval = "none (" + estimate.reason + ")"
    else:
        interval = f"[{estimate.ci[0]:+.2f}, {estimate.ci[1]:+.2f}] ({estimate.interval})"
    return (
        r.truth,
        r.K,
        r.K_star,
        "—" if estimate.slope is None else f"{estimate.slope:+.2f}",
        interval,
        measure,
        f"{r.signal_to_noise:.1f}",
        f"{r.sizes[0]}–{r.sizes[-1]}",
        r.repetitions,
    )


def confirm_markdown(result) -> str:
    """Markdown for a :class:`~numeric.confirm.ConfirmResult`."""
    s = result.symbolic
    parts = [
        f"**φ = {code(result.phi)}** · {result.condition}, model {result.model}",
        f"**{result.outcome.upper()}**: {result.why}",
        f"*{result.outcome}*: {result.outcome_meaning}",
        f"identcheck: **{s.verdict}** ({s.evidence} evidence) — {s.summary}",
    ]
    if s.relation:
        parts.append(f"Witness relation ({s.family or 'unrecognised'}): {code(s.relation)}")
    if s.witness_path_relation and s.witness_path_relation != s.relation:
        parts.append(f"Lifted for the witness path: probe *{s.witness_path_probe}*, {code(s.witness_path_relation)}")
    if result.sequences:
        first = result.sequences[0]
        t = first.t[: first.window or len(first.t)]  # the standard window
        parts.append(
            f"Ratio ‖g_t − g*‖ / L2(G_t, G*) for t = {t[0]:g} … {t[-1]:g} "
            "(slope over this window; smaller t where a path "
            f"needs them to reach its plateau; {result.mc_points} Monte Carlo points):\n\n"
            + table(
                (
                    "kind",
                    "path",
                    "slope",
                    "exact invariance",
                    f"ratio at t = {t[0]:g}",
                    "smallest t",
                    "ratio there",
                    "t → 0 limit",
                    "→ 0",
                ),
                [_sequence_row(q) for q in result.sequences],
                "llrlrrrrl",
            )
        )
    else:
        parts.append("No paths could be built.")
    if result.rates:
        parts.append(
            "Rates (slope of the mean Voronoi loss against n; 95 % interval: a bootstrap from 5 repetitions, "
            "the regression's standard error below, none below 3 sizes or 2 repetitions):\n\n"
            + table(
                ("truth", "K", "K*", "slope", "CI", "L_μ slope [CI]", "Var g*/ν²", "n", "reps"),
                [_rate_row(r) for r in result.rates],
                "lrrrllrll",
            )
        )
        if result.separation is not None:
            sep = result.separation
            parts.append(
                f"Rates {'separate' if sep.separated else 'do not separate'} "
                f"({sep.expected} expected; {sep.rounds} grid "
                f"round(s), last n = {sep.sizes[0]}–{sep.sizes[-1]} × {sep.repetitions}): {sep.reason}"
            )
    else:
        parts.append("Rates: not run (`rates=False`, or no `out` folder).")
    if result.recombination_line:
        parts.append(
            "Channel recombination (about the channel-level loss, for every φ; not part of the verdict): "
            + result.recombination_line
        )
    if result.skipped:
        parts.append("\n".join(f"- skipped *{name}*: {why}" for name, why in result.skipped))
    parts.append(
        f"{result.seconds:.1f} s (check {result.check_seconds:.1f} s, sequences {result.sequence_seconds:.1f} s, "
        f"rates {result.rates_seconds:.1f} s)" + (f"; output in {code(result.out)}" if result.out else "")
    )
    return "\n\n".join(parts) + "\n"
