"""``numeric confirm``'s result rendered for Jupyter: the markdown behind ``_repr_markdown_``.

The same facts as the command's text (:func:`numeric.confirm_cli.format_result`): the verdict
line, identcheck's symbolic verdict and witness relation, one table row per path with its slope
of ρ(t) = ‖g_t − g*‖/L2 and whether the function moved at all (exact invariance), and one table
row per rate (Figure-1-style grid) when rates were run.
"""

from __future__ import annotations

from identcheck.render import code, table

__all__ = ["confirm_markdown"]


def _sequence_row(s) -> tuple:
    slope = "—" if s.slope is None else f"{s.slope:.2f}"
    limit = "—" if s.limit is None else f"{s.limit:.1e}"
    to_zero = "yes" if s.to_zero else ("no (bounded)" if s.bounded else "undecided")
    return (s.kind, s.name, slope, "yes" if s.exact_invariance else "no", f"{s.ratio[0]:.2e}", f"{s.ratio[-1]:.2e}", limit, to_zero)


def _rate_row(r) -> tuple:
    measure = "—" if r.measure_slope is None else f"{r.measure_slope:+.2f} [{r.measure_ci[0]:+.2f}, {r.measure_ci[1]:+.2f}]"
    return (r.truth, r.K, r.K_star, f"{r.slope:+.2f}", f"[{r.ci[0]:+.2f}, {r.ci[1]:+.2f}]", measure, f"{r.signal_to_noise:.1f}",
            f"{r.sizes[0]}–{r.sizes[-1]}", r.repetitions)


def confirm_markdown(result) -> str:
    """Markdown for a :class:`~numeric.confirm.ConfirmResult`."""
    s = result.symbolic
    parts = [
        f"**φ = {code(result.phi)}** · {result.condition}, model {result.model}",
        f"**{result.outcome.upper()}**: {result.why}",
        f"identcheck: **{s.verdict}** ({s.evidence} evidence) — {s.summary}",
    ]
    if s.relation:
        parts.append(f"Witness relation ({s.family or 'unrecognised'}): {code(s.relation)}")
    if s.witness_path_relation and s.witness_path_relation != s.relation:
        parts.append(f"Lifted for the witness path: probe *{s.witness_path_probe}*, {code(s.witness_path_relation)}")
    if result.sequences:
        t = result.sequences[0].t
        parts.append(
            f"Ratio ‖g_t − g*‖ / L2(G_t, G*) for t = {t[0]:g} … {t[-1]:g} ({result.mc_points} Monte Carlo points):\n\n"
            + table(("kind", "path", "slope", "exact invariance", f"ratio at t = {t[0]:g}", f"ratio at t = {t[-1]:g}",
                     "t → 0 limit", "→ 0"), [_sequence_row(q) for q in result.sequences], "llrlrrrl")
        )
    else:
        parts.append("No paths could be built.")
    if result.rates:
        parts.append("Rates (slope of the mean Voronoi loss against n, bootstrap CI):\n\n"
                     + table(("truth", "K", "K*", "slope", "CI", "L_μ slope [CI]", "Var g*/ν²", "n", "reps"),
                             [_rate_row(r) for r in result.rates], "lrrrllrll"))
    else:
        parts.append("Rates: not run (`rates=False`, or no `out` folder).")
    if result.recombination_line:
        parts.append("Channel recombination (about the channel-level loss, for every φ; not part of the verdict): "
                     + result.recombination_line)
    if result.skipped:
        parts.append("\n".join(f"- skipped *{name}*: {why}" for name, why in result.skipped))
    parts.append(f"{result.seconds:.1f} s (check {result.check_seconds:.1f} s, sequences {result.sequence_seconds:.1f} s, "
                 f"rates {result.rates_seconds:.1f} s)" + (f"; output in {code(result.out)}" if result.out else ""))
    return "\n\n".join(parts) + "\n"
