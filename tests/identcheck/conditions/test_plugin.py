"""The plug-in claim measured (docs/conditions/your-own.md): a condition written in one module outside the package
(:mod:`.toy_condition`, the ridge set {φ(aᵀx), ∂φ(aᵀx)/∂a}) and registered with one line runs
through check, --certify, replay and scan, from Python and from the command line's ``main``.

Expected values by hand. For φ = z every column is linear in x — φ(aᵀx) = aᵀx, ∂φ(aᵀx)/∂a_j = x_j —
so k vectors give k(d + 1) columns spanning the d functions x_1..x_d: nullity k(d + 1) − d, and
on one vector the null space is Euler's relation φ(aᵀx) − Σ_j a_j ∂φ/∂a_j = 0 (zφ' = φ). For
φ = z³, zφ' = 3φ: the relation 3φ(aᵀx) − Σ_j a_j ∂φ/∂a_j = 0, outside the toy's one family.

The second half installs the toy as a package would (a ``toy_plugin-0.1.dist-info`` with an entry
point ``toy = toy_condition:Toy`` in the group ``identcheck.conditions``, on PYTHONPATH) and runs
the ``identcheck`` program in a subprocess: every command a user has — check (text, --json,
--certify), replay, scan, catalog — reaches it with no registration in the process; a bad plug-in is
one line naming it, exit 2; a check of a built-in condition never reads the plug-ins.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from identcheck import CONDITIONS, check
from identcheck.cli.main import main
from identcheck.errors import IdentcheckError
from identcheck.replay import replay
from identcheck.scan import scan

from ..toy_condition import EULER, Toy


@pytest.fixture
def toy(monkeypatch):
    monkeypatch.setitem(CONDITIONS, "toy", Toy)  # the one line: CONDITIONS["toy"] = Toy
    return "toy"


def _coefficients(relation) -> dict:
    return {label: sp.Rational(value) for label, value in relation.exact}


@pytest.mark.parametrize("dim", [1, 2, 3])
def test_z_fails_through_euler_on_every_probe(toy, dim):
    result = check("z", condition=toy, dim=dim, certify=True)
    assert str(result.verdict) == "not identifiable" and str(result.evidence) == "proof"
    for probe in result.probes:
        k = len(probe.components)
        assert probe.dependent and probe.nullity == k * (dim + 1) - dim, probe.name
    single = next(p for p in result.probes if p.name == "single")
    (relation,) = single.relations
    a = single.components[0].a
    expected = {"φ(aᵀx)": 1} | {f"∂φ/∂a{j + 1}": -v for j, v in enumerate(a) if v != 0}
    assert relation.family == EULER and relation.proved and _coefficients(relation) == expected
    x = sp.symbols(f"x1:{dim + 1}")
    column = {"φ(aᵀx)": sum(v * xj for v, xj in zip(a, x))} | {f"∂φ/∂a{j + 1}": x[j] for j in range(dim)}
    assert sp.expand(sum(c * column[label] for label, c in expected.items())) == 0  # the relation, by hand
    text, markdown = result.to_text(), result._repr_markdown_()  # the face renders a condition it never saw
    assert f"[toy, d = {dim}]" in text and "NOT IDENTIFIABLE" in text and EULER.split(":")[0] in text
    assert "NOT IDENTIFIABLE" in markdown and "single" in markdown


def test_a_relation_outside_the_toys_family_is_read_raw_and_proved(toy):
    """φ = z³ on one vector: 3φ(aᵀx) − Σ a_j ∂φ/∂a_j = 0, not Euler's degree-1 relation."""
    single = next(p for p in check("z**3", condition=toy, certify=True).probes if p.name == "single")
    (relation,) = single.relations
    assert relation.family is None and relation.proved
    a = single.components[0].a
    got = _coefficients(relation)
    scale = got["φ(aᵀx)"] / 3
    assert got == {"φ(aᵀx)": 3 * scale} | {f"∂φ/∂a{j + 1}": -v * scale for j, v in enumerate(a) if v != 0}


def test_tanh_passes_with_certificates_that_replay(toy):
    result = check("tanh(z)", condition=toy, certify=True)
    assert str(result.verdict) == "identifiable" and str(result.evidence) == "proof"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["condition"] == "toy" and [p["name"] for p in data["probes"]] == ["single", "pair", "triple"]
    for probe in data["probes"]:
        assert probe["certificate"]["kind"] == "interval"
        again = replay(data, probe["name"])
        assert again["proved"] and again["residual_bound"] == probe["certificate"]["detail"]["residual_bound"]
    tampered = json.loads(json.dumps(data))
    tampered["probes"][1]["components"][0]["a"] = tampered["probes"][1]["components"][1]["a"]  # two equal vectors
    assert not replay(tampered, "pair")["proved"]


def test_scan_finds_the_euler_value(toy):
    """φ = z + b·tanh(z): at b = 0 exactly, φ = z fails through Euler's relation."""
    result = scan("z + b*tanh(z)", {"b": (-1, 1, 3)}, condition=toy, dim=2)
    assert [str(g.verdict) for g in result.grid] == ["identifiable", "not identifiable", "identifiable"]
    (point,) = result.exceptional
    assert point.values == (("b", 0),) and point.family == EULER and point.proved


def _cli(argv) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(argv)
    return code, out.getvalue()


def test_the_command_line_reaches_a_condition_registered_in_its_process(toy):
    code, text = _cli(["check", "z", "--condition", toy])
    assert code == 0 and "NOT IDENTIFIABLE" in text and EULER in text
    code, text = _cli(["check", "tanh(z)", "--condition", toy, "--certify", "--json"])
    (data,) = json.loads(text)
    assert code == 0 and data["verdict"] == "identifiable"
    assert all(replay(data, p["name"])["proved"] for p in data["probes"])
    code, text = _cli(["scan", "z + b*tanh(z)", "--condition", toy, "--param", "b=-1:1:3", "--json"])
    data = json.loads(text)
    assert code == 0 and [g["verdict"] for g in data["grid"]] == ["identifiable", "not identifiable", "identifiable"]
    assert [(e["values"], e["family"]) for e in data["exceptional"]] == [({"b": "0"}, EULER)]


# --- the installed plug-in: the program in a subprocess, the toy found through its entry point ----------------

HERE = Path(__file__).resolve().parents[1]  # tests/identcheck, beside toy_condition.py
ROOT = HERE.parents[1]


def _install(folder: Path, dist: str, entry: str, module: bool = True) -> Path:
    """A distribution as pip leaves it: ``DIST-0.1.dist-info`` (METADATA, entry_points.txt) beside its module."""
    info = folder / f"{dist.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[identcheck.conditions]\n{entry}\n", encoding="utf-8")
    if module:
        shutil.copy(HERE / "toy_condition.py", folder / "toy_condition.py")
    return folder


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    return _install(tmp_path_factory.mktemp("site"), "toy-plugin", "toy = toy_condition:Toy")


def _program(site: Path, *argv, cwd=None) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    command = [sys.executable, "-m", "identcheck", *map(str, argv)]
    return subprocess.run(command, cwd=cwd or site, env=env, capture_output=True, text=True, timeout=300)


def test_an_installed_plugin_is_checked_by_the_program(installed):
    """φ = z, d = 2: every probe dependent with nullity k(d + 1) − d; on one vector Euler's relation
    φ(aᵀx) − Σ a_j ∂φ/∂a_j = 0, checked against the columns written out by hand."""
    run = _program(installed, "check", "z", "--condition", "toy", "--json")
    assert run.returncode == 0 and run.stderr == "", run.stderr
    (data,) = json.loads(run.stdout)
    assert (data["condition"], data["verdict"], data["evidence"]) == ("toy", "not identifiable", "proof")
    assert [(p["name"], p["nullity"]) for p in data["probes"]] == [("single", 1), ("pair", 4), ("triple", 7)]
    single = data["probes"][0]
    a = [sp.Rational(v) for v in single["components"][0]["a"]]
    (relation,) = single["relations"]
    expected = {"φ(aᵀx)": 1} | {f"∂φ/∂a{j + 1}": -v for j, v in enumerate(a) if v != 0}
    assert relation["family"] == EULER and relation["proved"]
    assert {label: sp.Rational(value) for label, value in relation["exact"]} == expected
    x1, x2 = sp.symbols("x1 x2")
    column = {"φ(aᵀx)": a[0] * x1 + a[1] * x2, "∂φ/∂a1": x1, "∂φ/∂a2": x2}
    assert sp.expand(sum(c * column[label] for label, c in expected.items())) == 0
    text = _program(installed, "check", "z", "--condition", "toy")
    assert text.returncode == 0 and "NOT IDENTIFIABLE" in text.stdout and EULER in text.stdout


def test_an_installed_plugin_certifies_and_its_certificates_replay(installed, tmp_path):
    """tanh passes with an interval certificate per probe; ``identcheck replay`` repeats them. A
    tampered record — the pair's second point made equal to its first — gives a minor with two equal
    rows: singular, so no bound ‖I − R·S‖ < 1 can exist (it would make R·S, hence S, invertible)."""
    run = _program(installed, "check", "tanh(z)", "--condition", "toy", "--certify", "--json")
    assert run.returncode == 0, run.stderr
    (data,) = json.loads(run.stdout)
    assert (data["verdict"], data["evidence"]) == ("identifiable", "proof")
    assert [p["certificate"]["kind"] for p in data["probes"]] == ["interval"] * 3
    saved = tmp_path / "check.json"
    saved.write_text(run.stdout, encoding="utf-8")
    one = _program(installed, "replay", saved, "pair")
    assert one.returncode == 0 and one.stdout.startswith("tanh(z) [toy] probe 'pair': replays"), one.stderr
    every = _program(installed, "replay", saved, "--all", "--json")
    assert every.returncode == 0, every.stderr
    recorded = {p["name"]: p["certificate"]["detail"]["residual_bound"] for p in data["probes"]}
    assert {r["probe"]: (r["proved"], r["residual_bound"]) for r in json.loads(every.stdout)} == {
        name: (True, bound) for name, bound in recorded.items()
    }
    points = data["probes"][1]["certificate"]["detail"]["points"]
    points[1] = points[0]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps([data]), encoding="utf-8")
    again = _program(installed, "replay", tampered, "pair")
    assert again.returncode == 1 and "'pair': does NOT replay" in again.stdout, again.stderr


def test_an_installed_plugin_scans(installed):
    """φ = z + b·tanh(z): exactly at b = 0, φ = z fails through Euler's relation."""
    run = _program(installed, "scan", "z + b*tanh(z)", "--condition", "toy", "--param", "b=-1:1:3", "--json")
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [g["verdict"] for g in data["grid"]] == ["identifiable", "not identifiable", "identifiable"]
    assert [(e["values"], e["family"]) for e in data["exceptional"]] == [({"b": "0"}, EULER)]


def test_an_installed_plugin_runs_over_the_catalog(installed):
    """By hand: z, z², z³ are homogeneous (zφ' = cφ), so Σ a_j ∂φ/∂a_j = c·φ on one vector: dependent —
    Euler's relation for c = 1; tanh(z) passes (its certificates above)."""
    run = _program(installed, "catalog", "--condition", "toy", "--json", "--jobs", "2")
    assert run.returncode == 0, run.stderr
    rows = {row["phi"]: row for row in json.loads(run.stdout)}
    assert all(set(row) == {"phi", "note", "toy"} for row in rows.values())
    assert [rows[phi]["toy"]["verdict"] for phi in ("z", "z**2", "z**3", "tanh(z)")] == [
        "not identifiable",
        "not identifiable",
        "not identifiable",
        "identifiable",
    ]
    assert rows["z"]["toy"]["witness"].startswith(f"single — {EULER}: ") and rows["tanh(z)"]["toy"]["witness"] == ""
    table = _program(installed, "catalog", "--condition", "toy", "--markdown", "--jobs", "2").stdout.splitlines()
    assert "| φ | toy | toy witness |" in table and "| `tanh(z)` | identifiable (numeric) | — |" in table


@pytest.mark.parametrize(
    "dist, entry, module, why",
    [
        ("broken-import", "toy = no_such_module:Toy", False, "cannot be imported (ModuleNotFoundError"),
        ("not-a-condition", "toy = json:JSONDecoder", False, "is not a Condition subclass"),
        ("renamed", "ridge = toy_condition:Toy", True, "its class's name is 'toy', not 'ridge'"),
        ("takes-type1", "type1 = toy_condition:Toy", True, "'type1' is a built-in condition's name"),
    ],
)
def test_a_bad_plugin_is_one_line_naming_it(tmp_path, dist, entry, module, why):
    site = _install(tmp_path, dist, entry, module)
    name = entry.split(" = ")[0]
    run = _program(site, "check", "z", "--condition", "ridge" if name == "ridge" else "toy")
    (line,) = run.stderr.splitlines()
    assert run.returncode == 2 and run.stdout == ""
    assert f"plug-in {entry} ({dist} 0.1, entry point group identcheck.conditions)" in line and why in line, line


def _abstract():
    from identcheck.conditions.base import Condition

    return type("Half", (Condition,), {"name": "half"})


@pytest.mark.parametrize(
    "name, make, why",
    [
        ("both", lambda: type("Both", (Toy,), {"name": "both"}), "Both: 'both' is reserved (check --condition both"),
        ("my-routed", lambda: CONDITIONS["deepseek-routed"], "DeepSeekRouted: its class's name is 'deepseek-routed'"),
        ("toy", lambda: json.JSONDecoder, "JSONDecoder: is not a Condition subclass: JSONDecoder is the class json."),
        ("half", _abstract, "Half: does not implement explain, matrix, probes, prover"),
    ],
)
def test_a_registration_in_the_process_is_checked_as_a_plugin_is(name, make, why):
    """CONDITIONS['both'] = X is refused, and so is CONDITIONS['my-routed'] = DeepSeekRouted, which would record
    'deepseek-routed' in its results (replay then reads another class): a subclass with its own name is the way."""
    with pytest.raises(IdentcheckError) as refused:
        CONDITIONS[name] = make()
    assert str(refused.value).startswith(f"condition={name!r}: CONDITIONS[{name!r}] = {why}"), refused.value
    assert name not in CONDITIONS  # nothing registered


def test_a_builtin_condition_never_reads_the_plugins(tmp_path):
    """A broken plug-in installed (it takes a built-in's name) does not touch a type-1 check, text or
    --json; nor does the list of names load before a name outside it is asked for."""
    site = _install(tmp_path, "takes-type1", "type1 = toy_condition:Toy")
    run = _program(site, "check", "z", "--dim", "1", "--json")
    assert run.returncode == 0 and json.loads(run.stdout)[0]["verdict"] == "not identifiable", run.stderr
    code = (
        "import importlib.metadata, contextlib, io\nfrom identcheck.cli.main import main\n"
        "def boom(**kw):\n    raise SystemExit('entry points read')\n"
        "importlib.metadata.entry_points = boom\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    assert main(['check', 'z', '--dim', '1']) == 0\n"
        "    assert main(['scan', 'sigmoid(z + b)', '--param', 'b=0:1:2', '--dim', '1', '--jobs', '1']) == 0\n"
        "print('ok')"
    )
    fresh = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert fresh.stdout.strip() == "ok", fresh.stderr


def test_the_registry_lists_a_plugin_and_imports_it_when_read(installed):
    """Listed once, after the built-ins, its module imported only when the condition is read; a
    class registered in the process under the same name keeps it."""
    code = (
        "import sys\nfrom identcheck import CONDITIONS\nnames = list(CONDITIONS)\n"
        "print(names.index('toy') == len(names) - 1 == len(CONDITIONS) - 1, 'toy_condition' in sys.modules)\n"
        "cls = CONDITIONS['toy']\nprint(cls.__module__, cls.__name__, 'toy_condition' in sys.modules)\n"
    )
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(installed), str(ROOT)])}
    run = subprocess.run([sys.executable, "-c", code], cwd=installed, env=env, capture_output=True, text=True)
    assert run.stdout.splitlines() == ["True False", "toy_condition Toy True"], run.stderr
    mine = (
        "from identcheck import CONDITIONS\nfrom identcheck.conditions.type1 import Type1\n"
        "class Mine(Type1):\n    name = 'toy'\n"
        "CONDITIONS['toy'] = Mine\nassert 'type9' not in CONDITIONS\nprint(CONDITIONS['toy'].__name__)\n"
    )
    run = subprocess.run([sys.executable, "-c", mine], cwd=installed, env=env, capture_output=True, text=True)
    assert run.stdout.strip() == "Mine", run.stderr


@pytest.mark.parametrize("command", ["check", "scan"])
def test_a_mistyped_name_is_answered_from_the_registry_with_its_plugins(installed, command):
    argv = [command, "z + b*tanh(z)", "--condition", "tyo"] + (["--param", "b=0:1:2"] if command == "scan" else [])
    run = _program(installed, *argv)
    (line,) = run.stderr.splitlines()
    assert run.returncode == 2 and run.stdout == "" and "(did you mean toy?)" in line, line
    assert "available: type1, type2, " in line and "deepseek-weak, toy" in line


# --- what a condition judges is its class's `subject`, never its name ----------------------------------------


def test_the_builtin_conditions_say_what_they_judge():
    subjects = {name: CONDITIONS[name].subject for name in ("type1", "type2", "type1-full", "mha")}
    subjects |= {name: CONDITIONS[name].subject for name in ("deepseek-shared", "deepseek-routed", "deepseek-weak")}
    assert subjects == {"type1": "phi", "type2": "phi", "type1-full": "phi", "mha": None} | dict.fromkeys(
        ("deepseek-shared", "deepseek-routed", "deepseek-weak"), "expert"
    )
    assert Toy.subject == "phi"  # the default: a plug-in on φ says nothing


@pytest.fixture
def renamed(monkeypatch):
    """The DeepSeek routed condition and mha under names no code knows: a plug-in on experts, one on nothing."""
    from identcheck.conditions.deepseek import DeepSeekRouted
    from identcheck.conditions.mha import MHA

    expert = type("MyRouted", (DeepSeekRouted,), {"name": "my-routed"})
    fixed = type("Fixed", (MHA,), {"name": "fixed-linear"})
    monkeypatch.setitem(CONDITIONS, "my-routed", expert)
    monkeypatch.setitem(CONDITIONS, "fixed-linear", fixed)
    return "my-routed", "fixed-linear"


def _refused(argv, capsys) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1, err
    return err.strip().removeprefix("identcheck: error: ")


def test_a_plugin_on_experts_takes_its_expert_as_expert(renamed, capsys):
    """A linear routed expert dot(e1, x) + e0: ∂h/∂e1⁽ʲ⁾ = x_j·∂h/∂e0 (∂h/∂e0 = 1), the paper's relation —
    not identifiable, proved; the same verdict and relations as deepseek-routed's (nothing else edited)."""
    expert, _ = renamed
    code, text = _cli(["check", "--condition", expert, "--expert", "dot(e1, x) + e0", "--json"])
    (data,) = json.loads(text)
    assert code == 0 and (data["condition"], data["verdict"], data["evidence"]) == (
        expert,
        "not identifiable",
        "proof",
    )
    reference = check("dot(e1, x) + e0", condition="deepseek-routed").to_dict()
    assert [[r["exact"] for r in p["relations"]] for p in data["probes"]] == [
        [r["exact"] for r in p["relations"]] for p in reference["probes"]
    ]
    line = _refused(["check", "z", "--condition", expert], capsys)
    assert line.startswith(f"--condition '{expert}': give the expert as --expert EXPR")
    line = _refused(["check", "--expert", "dot(e1, x) + e0"], capsys)  # type1 judges φ
    assert "condition 'type1' takes PHI, not an expert" in line and f"deepseek-weak, {expert})" in line
    line = _refused(["catalog", "--condition", expert], capsys)
    assert line == f"--condition '{expert}': does not judge an activation φ (it judges an expert: catalog --experts)"
    line = _refused(["check", "--condition", expert, "--expert", "tanh(dot(e1, x))", "--param", "c=1"], capsys)
    assert line == "--param c=1: no expert uses 'c'"


def test_a_plugin_on_experts_scans_its_expert(renamed, capsys):
    """s·(dot(e1, x) + e0): ∂h/∂e0 = s at every atom, so two atoms tie for every s ≠ 0 — not identifiable
    at every grid value; an unused constant is named against the expert, not a phi."""
    expert, _ = renamed
    code, text = _cli(
        ["scan", "--expert", "s*(dot(e1, x) + e0)", "--condition", expert, "--param", "s=1:2:2", "--json"]
    )
    data = json.loads(text)
    assert code == 0 and [g["verdict"] for g in data["grid"]] == ["not identifiable"] * 2
    line = _refused(["scan", "--expert", "tanh(dot(e1, x) + b)", "--condition", expert, "--param", "c=0:1:3"], capsys)
    assert line == "--param c: --expert 'tanh(dot(e1, x) + b)' does not use 'c'"
    line = _refused(["scan", "--condition", expert, "--param", "c=0:1:3"], capsys)  # by its subject, not its name
    assert line.startswith(f"--condition '{expert}': give the expert to scan as --expert EXPR")


def test_a_condition_that_takes_no_input_is_refused_its_input(renamed, capsys):
    _, fixed = renamed
    code, text = _cli(["check", "--condition", fixed, "--json"])
    (data,) = json.loads(text)
    assert code == 0 and (data["condition"], data["verdict"]) == (fixed, "not identifiable")  # PDE (5)
    line = _refused(["check", "tanh(z)", "--condition", fixed], capsys)
    assert line.startswith(f"phi='tanh(z)': condition '{fixed}' takes no phi")
    assert _refused(["check", "--condition", fixed, "--param", "b=2/3"], capsys).startswith("--param b=2/3: ")
    line = _refused(["check", "--condition", fixed, "--expert", "dot(e1, x)"], capsys)
    assert line.startswith(f"--expert 'dot(e1, x)': condition '{fixed}' takes no input, not an expert")
    line = _refused(["scan", "z + b", "--condition", fixed, "--param", "b=0:1:3"], capsys)
    assert line == f"--condition '{fixed}': takes no expression (it judges a fixed one): nothing to scan"
    line = _refused(["catalog", "--condition", fixed], capsys)
    assert line == f"--condition '{fixed}': does not judge an activation φ (it takes no input)"
