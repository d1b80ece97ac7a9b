"""What a DeepSeek D3 grid's stored fits say beyond `numeric rates` (docs/conditions/deepseekmoe.md,
"Simulations"): the loss slopes over every size and from n = 1931, how often the fit split the
true routed atom the papers' start over-fits (atom 1: fitted atoms 1 and 3 start there), the
exact-fitted routed atom's |Δβ1| and its slope in n, and the loss once the ReLU experts' scale is
fixed — each fitted atom rescaled along κ2·relu(κ1x + κ0) = (κ2/c)·relu(cκ1x + cκ0) (c > 0) to
the true |κ1| of its cell, and η2·relu(η1x) likewise to the true |η1| — so that the loss no longer
sees the direction the density does not fix.

    python3 bench/deepseek_d3_cells.py out/deepseek-d3-gate docs/examples/deepseek-d3-gate.toml
    python3 bench/deepseek_d3_cells.py out/deepseek-d3 identcheck/declaration/examples/deepseek-d3.toml

Slopes and 95 % intervals are numeric.experiments.slope's (a bootstrap over repetitions).
"""

from __future__ import annotations

import sys

import numpy as np

from identcheck.declaration import digest, read_declaration
from numeric.experiments.declared import declared_rates, read_declared
from numeric.experiments.declared.rates import in_log_n_over_n
from numeric.experiments.slope import estimate_slope
from numeric.losses import voronoi_loss
from numeric.losses.voronoi import _cell_weight, target_atoms
from numeric.model import compile_model
from numeric.model.layout import ModelParams

FROM = 1931


def _slope(estimate) -> str:
    if estimate.slope is None:
        return "—"
    interval = "" if estimate.low is None else f" [{estimate.low:.2f}, {estimate.high:.2f}]"
    return f"{estimate.slope:.2f}{interval}"


def _rescaled(model, params: ModelParams) -> ModelParams:
    """Every ReLU atom moved along its scale symmetry to the true |slope| of its nearest true atom."""
    atoms = []
    for index, part in enumerate(model.declaration.parts):
        rows = np.array(params.atoms[index], dtype=float)
        names = model.names[index]
        col = {name: names.index(name) for name in names}
        inner, outer, bias = ("k1", "k2", "k0") if "k1" in col else ("eta1", "eta2", None)
        truth = [abs(float(np.ravel(atom[inner])[0])) for atom in part.truth]
        for row in rows:
            nearest = min(range(len(truth)), key=lambda j: abs(abs(row[col[inner]]) - truth[j]))
            if row[col[inner]] == 0:
                continue
            c = truth[nearest] / abs(row[col[inner]])
            row[col[inner]] *= c
            row[col[outer]] /= c
            if bias is not None:
                row[col[bias]] *= c
        atoms.append(rows)
    return ModelParams(tuple(atoms), params.shares)


def _terms(model, params: ModelParams, cells: dict) -> dict:
    """The loss's parts term by term — ``part mass``, ``part over|exact param+param`` — with the
    stored ``cells`` (the loss's own assignment): their sum is the loss (checked by the caller)."""
    out: dict = {}
    for index, part in enumerate(model.declaration.parts):
        spec, names = model.declaration.loss.part(part.name), model.names[index]
        rows, target = params.atoms[index], target_atoms(model, index)
        weight = _cell_weight(spec.weight, rows, names, model.density)
        mass_fit = _cell_weight(spec.mass, rows, names, model.density)
        mass_true = _cell_weight(spec.mass, target, names, model.density)
        for j, members in enumerate(cells[part.name]):
            members = np.array(members, dtype=int)
            if spec.mass != "none" and (spec.mass_cells == "all" or members.size > 1):
                key = f"{part.name} mass"
                out[key] = out.get(key, 0.0) + abs(mass_fit[members].sum() - mass_true[j])
            for term in spec.terms:
                kind = "exact" if members.size == 1 else "over"
                exponent = getattr(term, kind).at(members.size, spec.r_table) if members.size else None
                if exponent is None:
                    continue
                columns = [names.index(name) for name in term.params]
                norms = np.sqrt(((rows[np.ix_(members, columns)] - target[j, columns]) ** 2).sum(axis=1))
                key = f"{part.name} {kind} {'+'.join(term.params)}"
                out[key] = out.get(key, 0.0) + float(weight[members] @ norms**exponent)
    return out


def _second_atom_weight(rows: np.ndarray, cell, names: tuple, x: np.ndarray) -> tuple:
    """Of the cell's atom with the largest |β1|: its normalised-sigmoid weight averaged over the
    points ``x`` where η2·relu(η1x) = 0 and where not, and its |β1|."""
    beta1, beta0, eta1 = (rows[:, names.index(name)] for name in ("beta1", "beta0", "eta1"))
    far = max(cell, key=lambda i: abs(beta1[i]))
    gates = 1 / (1 + np.exp(-(np.outer(beta1, x) + beta0[:, None])))
    weight = gates[far] / gates.sum(axis=0)
    active = eta1[far] * x > 0
    return float(weight[~active].mean()), float(weight[active].mean()), abs(float(beta1[far]))


def report(folder, path) -> None:
    """Print the report of the store in ``folder``, fitted to the declaration at ``path``."""
    store, records = read_declared(folder)
    declaration = read_declaration(path)
    if digest(declaration) != store.digest:
        raise SystemExit(f"{path}: not the model of the store in {folder}")
    model = compile_model(declaration)
    routed = [p.name for p in declaration.parts].index("routed")
    sizes = sorted({r.n for r in records})
    print(f"{store.name}: {len(records)} fits, sizes {sizes}")
    (loss,) = declared_rates(store, records, quantities=["loss"])
    (late,) = declared_rates(store, [r for r in records if r.n >= FROM], quantities=["loss"])
    print(f"  loss means {' '.join(f'{m:.3g}' for m in loss.means)}")
    print(f"  loss slope in n {_slope(loss.in_n)}; in log(n)/n {_slope(loss.in_log_n_over_n)}")
    print(f"  from n = {FROM}: in n {_slope(late.in_n)}; in log(n)/n {_slope(late.in_log_n_over_n)}")
    split, exact_b1, rescaled, check, terms, bound, ratio, where = {}, {}, {}, [], {}, {}, {}, {}
    grid = np.linspace(declaration.inputs.low, declaration.inputs.high, 601)
    true_b0 = [float(atom["beta0"]) for atom in declaration.part("routed").truth]
    largest = max(abs(float(atom["beta0"])) for atom in declaration.part("routed").truth)
    low = -2.0 * max(largest, 1.0)  # the box's lowest beta0 (numeric.fitting.box, factor 2)
    truth_b1 = float(np.ravel(declaration.part("routed").truth[1]["beta1"])[0])
    names = model.names[routed]
    for r in records:
        fit = r.fit()
        cells = fit["loss"]["parts"]["routed"]["cells"]
        split.setdefault(r.n, []).append(len(cells[0]) >= 2)
        beta0 = np.array(fit["params"]["routed"], dtype=float)[cells[0], names.index("beta0")]
        bound.setdefault(r.n, []).append(len(cells[0]) >= 2 and bool(np.any(beta0 <= low + 1e-9)))
        if len(cells[0]) >= 2:
            where.setdefault(r.n, []).append(
                _second_atom_weight(np.array(fit["params"]["routed"]), cells[0], names, grid)
            )
        atoms = tuple(np.array(fit["params"][p.name], dtype=float) for p in declaration.parts)
        params = ModelParams(atoms, np.array(fit["params"]["shares"], dtype=float))
        if len(cells[1]) == 1:
            row = atoms[routed][cells[1][0]]
            exact_b1.setdefault(r.n, []).append(abs(row[names.index("beta1")] - truth_b1))
            gates = 1 / (1 + np.exp(-atoms[routed][:, names.index("beta0")]))
            found = row[names.index("beta0")], gates[cells[1]].sum() / gates[cells[0]].sum()
            ratio.setdefault(r.n, []).append(found)
        check.append(abs(voronoi_loss(model, params).value - r.loss) <= 1e-9 * max(1.0, r.loss))
        parts = _terms(model, params, {name: value["cells"] for name, value in fit["loss"]["parts"].items()})
        check.append(abs(sum(parts.values()) - r.loss) <= 1e-9 * max(1.0, r.loss))
        for key, value in parts.items():
            terms.setdefault(key, {}).setdefault(r.n, []).append(value)
        rescaled.setdefault(r.n, []).append(voronoi_loss(model, _rescaled(model, params)).value)
    print(f"  recomputed losses (whole, term by term) equal the stored ones: {sum(check)} of {len(check)}")
    print("  mean of each term over all fits at each n (a term absent from a fit counts 0):")
    for key in sorted(terms):
        means = [sum(terms[key].get(n, [])) / len(split[n]) for n in sizes]
        print(f"    {key:<28}{' '.join(f'{m:8.3g}' for m in means)}")
    key = "routed over beta1"
    if key in terms:
        medians = [np.median(terms[key][n] + [0.0] * (len(split[n]) - len(terms[key][n]))) for n in sizes]
        print(f"    {key + ', median':<28}{' '.join(f'{m:8.3g}' for m in medians)}")
    shares = [np.mean(split[n]) for n in sizes]
    total = sum(sum(split[n]) for n in sizes)
    print(f"  atom 1 split: {total} of {len(records)} fits; by n {' '.join(f'{s:.2f}' for s in shares)}")
    at = " ".join(f"{np.mean(bound[n]):.2f}" for n in sizes)
    print(f"  split cell with an atom at the box's lowest beta0 = {low:g}: by n {at}")
    print("  the split cell's atom farthest from beta1 = 0: its mean gate weight over x where its expert")
    print("  is zero, and where not; its |beta1| median:")
    for n in sizes:
        zero, nonzero, slope = np.array(where[n]).T
        print(f"    n = {n}: {zero.mean():.3f}, {nonzero.mean():.3f}; {np.median(slope):.2f}")
    reps = min(len(exact_b1.get(n, [])) for n in sizes)
    print(f"  exact-fitted atom 2 (one fitted atom) at every size, kept {reps} a size")
    if reps >= 2:
        table = np.array([exact_b1[n][:reps] for n in sizes])
        print(f"    |Δβ1| means {' '.join(f'{m:.3g}' for m in table.mean(axis=1))}")
        print(f"    slope in n {_slope(estimate_slope(sizes, table))}")
        late_sizes = [n for n in sizes if n >= FROM]
        print(f"    from n = {FROM}: {_slope(estimate_slope(late_sizes, table[-len(late_sizes) :]))}")
    truth_ratio = (1 / (1 + np.exp(-true_b0[1]))) / (1 / (1 + np.exp(-true_b0[0])))
    print(f"  exact-fitted atom 2's beta0 (true {true_b0[1]:g}) and sigma(beta0) of cell 2 over cell 1")
    print(f"  (true {truth_ratio:.3f}; all a normalised sigmoid fixes when every beta1 = 0):")
    for n in sizes:
        b0, q = np.array(ratio[n]).T
        error = np.abs(b0 - true_b0[1]).mean()
        print(f"    n = {n}: beta0 mean {b0.mean():.2f}, |Δβ0| {error:.2f}; ratio {q.mean():.3f} ± {q.std():.3f}")
    fixed = np.array([rescaled[n][: loss.n_reps] for n in sizes])
    late_sizes = [n for n in sizes if n >= FROM]
    print(f"  loss with the ReLU scale fixed: means {' '.join(f'{m:.3g}' for m in fixed.mean(axis=1))}")
    print(
        f"    in n {_slope(estimate_slope(sizes, fixed))}; in log(n)/n {_slope(in_log_n_over_n(sizes, fixed))}; "
        f"from n = {FROM} in log(n)/n {_slope(in_log_n_over_n(late_sizes, fixed[-len(late_sizes) :]))}"
    )


if __name__ == "__main__":
    report(*sys.argv[1:3])
