"""Read a nested part's ``inner`` mixture, its ``groups`` and its truth (the structures are :mod:`.nested`).

``[parts.NAME.inner]`` gives ``components`` (N, 2 … 16), a ``gate`` (any kind but top-k; a
shift-invariant one pins its ``reference`` component, default the last) and an ``expert``; the
part's own expert must use the name ``inner``. ``[parts.NAME.groups]`` gives ``tied`` (parameters of
the part), ``fitted`` (the fit's group count, default the truth's) and ``truth``, one table per
group with its tied values; every truth atom then names its ``group`` (from 1) and gives the
other parameters. An inner parameter's value is a list of N values, one per component.

Refused in one line naming the key: an outer expert without ``inner`` beside an inner table (or
``inner`` without one), a top-k inner gate, names shared by the outer and the inner mixture, a
tied name that is no parameter, a group without atoms or an atom's group that does not exist, a
per-component value that is not N values, fitted atoms that do not split evenly into the fitted
groups or leave a group fewer atoms than the truth's.
"""

from __future__ import annotations

from .atoms import MAX_ATOMS, _value
from .keys import Table, fail, suggestion
from .model import Atom, Value
from .nested import Groups

__all__ = ["MAX_COMPONENTS", "check_fitted", "check_names", "read_groups", "read_nested_truth"]

MAX_COMPONENTS = 16


def check_names(key: str, text: str, groups_of_names: list[tuple[str, tuple[str, ...]]]) -> None:
    """Refuse a name used by two of (outer gate, outer expert, inner gate, inner expert, variance)."""
    seen: dict[str, str] = {}
    for where, names in groups_of_names:
        for name in names:
            if name == "group":
                fail(key, text, "uses 'group', which names an atom's group; rename it")
            if name in seen and seen[name] != where:
                fail(key, text, f"{name!r} is a parameter of the {seen[name]} and of the {where}; rename one")
            seen[name] = where


def read_groups(table: Table, parameters: tuple[str, ...]) -> tuple[tuple[str, ...], int | None, list]:
    """(tied, fitted group count or None, the groups' raw truth tables) of ``[parts.NAME.groups]``."""
    tied = table.names("tied")
    for index, name in enumerate(tied):
        if name not in parameters:
            why = f"not a parameter of this part{suggestion(name, parameters)}; its parameters: {', '.join(parameters)}"
            fail(f"{table.key('tied')}[{index}]", name, why)
    fitted = table.integer("fitted", None, high=MAX_ATOMS)
    given = table.raw("truth")
    if not isinstance(given, list) or not given:
        fail(table.key("truth"), given, "expected the groups' tied values, an array of tables, one per group")
    table.done()
    return tied, fitted, given


def read_nested_truth(
    table: Table, shapes: dict, per_component: tuple, components: int, dim: int, grouping
) -> tuple[tuple[Atom, ...], Groups | None]:
    """The truth's atoms of a nested part, each with every parameter (tied values copied from its
    group), and the :class:`Groups` (None without ``groups``). ``grouping`` is :func:`read_groups`'s
    result or None."""
    tied = grouping[0] if grouping else ()
    path = table.key("truth")
    given = table.raw("truth")
    if not isinstance(given, list) or not given:
        fail(path, given, "expected the atoms, an array of tables ([[…truth]]) with at least one atom")
    if len(given) > MAX_ATOMS:
        fail(path, reason=f"more than {MAX_ATOMS} atoms")
    group_values = []
    if grouping:
        for index, entry in enumerate(grouping[2]):
            where = Table(entry, f"{table.key('groups')}.truth[{index}]")
            own = {name: shapes[name] for name in tied}
            group_values.append(Atom(_read(where, own, per_component, components, dim)))
    atoms, of = [], []
    for index, entry in enumerate(given):
        atom = Table(entry, f"{path}[{index}]")
        own = {name: shape for name, shape in shapes.items() if name not in tied}
        if grouping:
            group = atom.integer("group", high=len(group_values))
            of.append(group - 1)
        values = dict(_read(atom, own, per_component, components, dim, extra=("group",) if grouping else (), tied=tied))
        if grouping:
            values |= dict(group_values[group - 1].values)
        atoms.append(Atom(tuple((name, values[name]) for name in shapes)))
    groups = None
    if grouping:
        for group in range(len(group_values)):
            if group not in of:
                fail(f"{table.key('groups')}.truth[{group}]", reason=f"group {group + 1} has no atom in {path}")
        fitted = grouping[1] if grouping[1] is not None else len(group_values)
        groups = Groups(tied, tuple(of), tuple(group_values), fitted)
    return tuple(atoms), groups


def check_fitted(key: str, fitted: int, groups: Groups) -> None:
    """The fitted atoms split evenly over the fitted groups, each at least as many as a true group."""
    if groups.fitted < groups.count:
        fail(key.replace("fitted", "groups.fitted"), groups.fitted, f"below the truth's {groups.count} groups")
    if fitted % groups.fitted:
        fail(key, fitted, f"does not split evenly into the {groups.fitted} fitted groups (groups.fitted)")
    if fitted // groups.fitted < max(groups.sizes()):
        fail(
            key,
            fitted,
            f"{fitted // groups.fitted} atoms per fitted group, below the truth's {max(groups.sizes())} in one group",
        )


def _read(atom: Table, shapes: dict, per_component: tuple, components: int, dim: int, extra=(), tied=()) -> tuple:
    values = []
    for name, shape in shapes.items():
        if not atom.has(name):
            fail(atom.key(name), reason=f"missing (every atom gives {', '.join(shapes)})")
        raw, key = atom.raw(name), atom.key(name)
        value: Value
        if name in per_component:
            if not isinstance(raw, list) or len(raw) != components:
                fail(key, raw, f"expected {components} values, one per inner component")
            value = tuple(_value(v, shape, dim, f"{key}[{i}]") for i, v in enumerate(raw))
        else:
            value = _value(raw, shape, dim, key)
        values.append((name, value))
    for name in atom.data:
        if name in tied:
            fail(atom.key(name), atom.data[name], "a tied parameter: give it once per group, in groups.truth")
        if name not in shapes and name not in extra:
            known = ", ".join((*shapes, *extra))
            fail(atom.key(name), atom.data[name], f"not a parameter here{suggestion(name, shapes)}; here: {known}")
    return tuple(values)
