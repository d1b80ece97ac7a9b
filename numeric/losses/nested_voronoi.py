r"""The declared Voronoi loss of a nested part: channel cells up to inner orders, function cells, the measure level.

A nested part's atom (:mod:`numeric.model.nested`) carries, for each declared ``cells`` parameter
P, one value per inner component c: V_{P,c} (a matrix in full, symmetric; a vector; a scalar). Its
inner gate's shift-invariant parameters S (M of a quadratic softmax) are pinned at zero on the
reference component r. With the ``inner-orders`` symmetry, a fitted atom's components are
reordered by π and re-anchored on the new reference, Ṽ_{P,c} = V_{P,π(c)} − V_{P,π(r)} for P ∈ S
(Ṽ_{P,c} = V_{P,π(c)} otherwise); the distance to a target atom j is

    D(i, j) = min_π Σ_c Σ_P ‖Ṽ_{P,c} − V*_{j,P,c}‖          (``sum-of-norms``: Frobenius, Euclidean)
    D(i, j) = min_π ( Σ_c Σ_P ‖Ṽ_{P,c} − V*_{j,P,c}‖² )^{1/2}   (``euclidean``)

(the first minimising π; without ``inner-orders`` π is the identity). **Cells** V_j hold the atoms
nearest to j in D (ties to the lower j), or — ``cell_by = "function"`` — nearest in the atoms'
expert functions ‖h_i − h*_j‖ in L²(μ) by Monte Carlo on :data:`FUNCTION_POINTS` fixed inputs, the
moves still taken under the order minimising D(i, j). The loss is the declared recipe,

    L = Σ_j |Σ_{V_j} c(θ_i) − c(θ*_j)| + Σ_j Σ_{V_j} u(θ_i) Σ_terms Σ_c Σ_{P ∈ term} ‖ΔV_{P,c}‖^{e(term, |V_j|)}

(``euclidean``: one norm per term over its parameters and components); with ω as mass and weight,
sum-of-norms and exponents 1 | 1 this is MHA's L1,r (r = 1), with 1 | 2 the gated models' L2
(docs/method.md §10).

**The measure level** (``level = "inner"``, :mod:`numeric.losses.measure` for the hand-written
models): for groups whose tied parameters are the inner gate's, an atom of group g is (Ṽ_{S,c},
V_{P,c} of a member i) with mass c(θ_i), one per component c and member. Each fitted group g' goes to
the target group g and order π minimising Σ_c (Σ_{P ∈ S} ‖ΔṼ_{P,c}‖ + Σ_{i ∈ g'} c(θ_i) min_{j ∈ g}
Σ_{P ∉ S} ‖V_{i,P,π(c)} − V*_{j,P,c}‖); an atom of positive mass goes to the cell (g, c, j) of the
nearest j of g (coincident atoms merged, masses added), and

    L_μ = Σ_{g,c,j} (1/N)|Σ_V m − c(θ*_j)| + Σ_{g,c,j} Σ_V m Σ_terms Σ_{P ∈ term} ‖ΔV_P‖^{e(term, |V|)}.
"""

from __future__ import annotations

import itertools

import numpy as np

from identcheck.declaration import atom_functions

from ..errors import NumericError

__all__ = ["FUNCTION_POINTS", "nested_part_loss"]

#: Monte Carlo points of the function cells (fixed inputs, seed 0xCE11).
FUNCTION_POINTS = 20_000


def _values(rows: np.ndarray, entries: tuple, names, N: int, dim: int) -> dict:
    """{P: (k, N, …)} the per-component values of parameters ``names`` (pinned entries zero)."""
    out = {}
    for name in names:
        where = [(c, e) for c, e in enumerate(entries) if e[0] == name]
        shape = {0: (), 1: (dim,), 2: (dim, dim)}[len(where[0][1][2])]
        value = np.zeros((rows.shape[0], N, *shape))
        for column, (_, component, index) in where:
            value[(slice(None), component, *index)] = rows[:, column]
            if len(index) == 2:
                value[(slice(None), component, index[1], index[0])] = rows[:, column]
        out[name] = value
    return out


def _norms(diff: np.ndarray, rank: int) -> np.ndarray:
    """‖·‖ over the last ``rank`` axes: Frobenius (2), Euclidean (1), |·| (0)."""
    axes = tuple(range(diff.ndim - rank, diff.ndim))
    return np.sqrt((diff**2).sum(axis=axes)) if axes else np.abs(diff)


def _anchored(values: dict, shifted: set, order, reference: int) -> dict:
    return {
        P: v[:, list(order)] - (v[:, [order[reference]]] if P in shifted else 0.0) for P, v in values.items()
    }  # fmt: skip


def _mass(kind: str, rows: np.ndarray, names: tuple) -> np.ndarray:
    if kind == "none":
        return np.ones(rows.shape[0])
    return rows[:, names.index("omega")]


def _terms(spec, per: dict, size: int, euclidean: bool) -> np.ndarray:
    """Σ_terms of each member's ‖ΔV‖^e (per: {P: (m, N) norms}); (m,)."""
    total = np.zeros(next(iter(per.values())).shape[0])
    for term in spec.terms:
        exponent = (term.exact if size == 1 else term.over).at(size, spec.r_table)
        if exponent is None:
            continue
        if euclidean:
            total += np.sqrt(sum((per[P] ** 2).sum(axis=1) for P in term.params)) ** exponent
        else:
            total += sum((per[P] ** exponent).sum(axis=1) for P in term.params)
    return total


def nested_part_loss(model, index: int, spec, symmetries, rows: np.ndarray):
    """(value, mass term, parameter term, cells) of nested part ``index`` (module docstring) for the
    fitted atoms ``rows`` (k, width) against the truth's; a fit with groups has its k atoms in
    ``groups.fitted`` groups of k / groups.fitted, numbered group by group (:mod:`numeric.model.layout`)."""
    declaration = model.declaration
    part = declaration.parts[index]
    target = model.truth().atoms[index]
    group_of = ()
    if part.groups is not None:
        if rows.shape[0] % part.groups.fitted:
            raise NumericError(
                param=f"parts.{part.name}", value=rows.shape[0], reason=f"not {part.groups.fitted} groups of equal size"
            )
        group_of = np.arange(rows.shape[0]) // (rows.shape[0] // part.groups.fitted)
    inner, dim = part.inner, declaration.inputs.dim
    entries, names = atom_functions(declaration, part).entries, model.names[index]
    N, reference = inner.components, inner.gate.reference
    orders = list(itertools.permutations(range(N))) if "inner-orders" in symmetries else [tuple(range(N))]
    shifted = set(inner.pinned)
    euclidean = spec.distance == "euclidean"
    if spec.level == "inner":
        return _measure(spec, orders, shifted, reference, entries, names, N, dim, rows, target, group_of, part)
    fit, true = _values(rows, entries, spec.cells, N, dim), _values(target, entries, spec.cells, N, dim)
    rank = {P: v.ndim - 2 for P, v in fit.items()}
    k, k_true = rows.shape[0], target.shape[0]
    distance = np.full((k, k_true), np.inf)
    best = np.zeros((k, k_true), dtype=int)
    for o, order in enumerate(orders):
        moved = _anchored(fit, shifted, order, reference)
        per = {P: _norms(moved[P][:, None] - true[P][None], rank[P]) for P in spec.cells}  # (k, k*, N)
        if euclidean:
            value = np.sqrt(sum((per[P] ** 2).sum(axis=2) for P in spec.cells))
        else:
            value = sum(per[P].sum(axis=2) for P in spec.cells)
        better = value < distance
        distance, best = np.where(better, value, distance), np.where(better, o, best)
    owner = np.argmin(distance, axis=1)
    if spec.cell_by == "function":
        owner = _function_owner(model, index, rows, target)
    mass_fit, mass_true = _mass(spec.mass, rows, names), _mass(spec.mass, target, names)
    weight = _mass(spec.weight, rows, names)
    term_names = {P for term in spec.terms for P in term.params}
    fit_terms, true_terms = _values(rows, entries, term_names, N, dim), _values(target, entries, term_names, N, dim)
    rank |= {P: v.ndim - 2 for P, v in fit_terms.items()}
    mass = parameters = 0.0
    for j in range(k_true):
        members = np.flatnonzero(owner == j)
        if spec.mass != "none" and (spec.mass_cells == "all" or members.size > 1):
            mass += abs(float(mass_fit[members].sum()) - float(mass_true[j]))
        for i in members:
            moved = _anchored({P: v[[i]] for P, v in fit_terms.items()}, shifted, orders[best[i, j]], reference)
            per = {P: _norms(moved[P] - true_terms[P][[j]], rank[P]) for P in term_names}
            parameters += float(weight[i] * _terms(spec, per, members.size, euclidean)[0])
    cells = tuple(tuple(int(i) for i in np.flatnonzero(owner == j)) for j in range(k_true))
    return mass + parameters, mass, parameters, cells


def _function_owner(model, index: int, rows: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each fitted atom's nearest target atom in its expert function, in L²(μ) on fixed points."""
    declaration = model.declaration
    inputs = declaration.inputs
    rng = np.random.default_rng(0xCE11)
    if inputs.kind == "uniform":
        X = rng.uniform(float(inputs.low or 0.0), float(inputs.high or 0.0), size=(FUNCTION_POINTS, inputs.dim))
    else:
        X = rng.standard_normal((FUNCTION_POINTS, inputs.dim))
    n_gate, n_expert = model.counts[index]
    code = model.nested[index]
    outer = slice(n_gate, n_gate + n_expert)
    h_fit, h_true = code.value(X, rows, rows[:, outer]), code.value(X, target, target[:, outer])
    distances = ((h_fit[:, None] - h_true[None]) ** 2).mean(axis=-1)
    return np.argmin(distances, axis=1)


def _measure(spec, orders, shifted, reference, entries, names, N, dim, rows, target, group_of, part):
    """The measure-level loss (module docstring)."""
    gate = [P for P in spec.cells if P in shifted]
    expert = [P for P in spec.cells if P not in shifted]
    fit, true = _values(rows, entries, spec.cells, N, dim), _values(target, entries, spec.cells, N, dim)
    rank = {P: v.ndim - 2 for P, v in fit.items()}
    mass_fit, mass_true = _mass(spec.mass, rows, names), _mass(spec.mass, target, names)
    true_groups = np.asarray(part.groups.of)
    fit_groups = np.asarray(group_of)
    found: dict = {}
    for g_fit in range(int(fit_groups.max()) + 1):
        members = np.flatnonzero(fit_groups == g_fit)
        best = None
        for g in range(len(part.groups.truth)):
            truths = np.flatnonzero(true_groups == g)
            for order in orders:
                moved = _anchored({P: v[members] for P, v in fit.items()}, shifted, order, reference)
                value = sum(float(_norms(moved[P][0] - true[P][truths[0]], rank[P]).sum()) for P in gate)
                for c in range(N):
                    near = sum(_norms(moved[P][:, None, c] - true[P][None, truths, c], rank[P]) for P in expert)
                    value += float(mass_fit[members] @ np.min(near, axis=1))
                if best is None or value < best[0]:
                    best = (value, g, order)
        assert best is not None
        _, g, order = best
        truths = np.flatnonzero(true_groups == g)
        moved = _anchored({P: v[members] for P, v in fit.items()}, shifted, order, reference)
        for c in range(N):
            d_gate = {P: float(_norms(moved[P][0, c] - true[P][truths[0], c], rank[P])) for P in gate}
            for position, i in enumerate(members):
                if mass_fit[i] == 0.0:
                    continue
                near = {P: _norms(moved[P][position, c][None] - true[P][truths, c], rank[P]) for P in expert}
                j = int(np.argmin(sum(near.values())))
                key = b"".join(moved[P][position, c].tobytes() for P in spec.cells)
                atom = found.setdefault((g, c, j), {}).setdefault(
                    key, [0.0, {**d_gate, **{P: float(near[P][j]) for P in expert}}]
                )
                atom[0] += float(mass_fit[i])
    mass = parameters = 0.0
    for g in range(len(part.groups.truth)):
        truths = np.flatnonzero(true_groups == g)
        for c, j in itertools.product(range(N), range(len(truths))):
            atoms = list(found.get((g, c, j), {}).values())
            mass += abs(sum(m for m, _ in atoms) - float(mass_true[truths[j]])) / N
            for m, deltas in atoms:
                per = {P: np.array([[deltas[P]]]) for P in deltas}
                parameters += m * float(_terms(spec, per, len(atoms), spec.distance == "euclidean")[0])
    return mass + parameters, mass, parameters, ()
