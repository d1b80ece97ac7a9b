"""Time budgets (identcheck/util/budget.py): a slow sympy computation is stopped, a fast one is not, and a relation
whose proof ran out of time is still reported, with ``timed_out``."""

import functools
import importlib
import threading
import time

import sympy as sp

import identcheck.conditions.type1 as type1_condition
from identcheck import check, default_probes, parse_activation, type1_term_set
from identcheck.families.proofs import prove_relation
from identcheck.util.budget import Outcome, budget_available, pool, pool_remaining, run

Z = sp.Symbol("z")


def _slow_expression():
    """simplify of φ''/φ for sin nested six times: tens of seconds without a budget."""
    phi = Z
    for _ in range(6):
        phi = sp.sin(phi)
    return sp.diff(phi, Z, 2) / phi


def test_a_slow_simplify_is_stopped_at_its_budget():
    assert budget_available()
    started = time.monotonic()
    value, timed_out = run(sp.simplify, _slow_expression(), seconds=0.3, default="late")
    elapsed = time.monotonic() - started
    assert (value, timed_out) == ("late", True)
    assert elapsed < 5  # tens of seconds unbudgeted; slack for a loaded shared machine


def test_a_fast_computation_returns_its_value():
    x = sp.Symbol("x")
    assert run(sp.simplify, sp.sin(x) ** 2 + sp.cos(x) ** 2, seconds=10) == (1, False)


def test_an_outer_budget_is_reported_by_the_outer_run():
    def inner():
        return run(sp.simplify, _slow_expression(), seconds=30, default="inner")

    started = time.monotonic()
    assert run(inner, seconds=0.3, default="outer") == ("outer", True)
    assert time.monotonic() - started < 5


def test_inner_budgets_run_out_one_after_another_inside_an_outer_one():
    def inner():
        return [run(sp.simplify, _slow_expression(), seconds=0.2, default=i) for i in range(2)]

    assert run(inner, seconds=30) == ([(0, True), (1, True)], False)


def test_outside_the_main_thread_there_is_no_budget():
    out = {}
    worker = threading.Thread(target=lambda: out.update(r=run(lambda: budget_available(), seconds=0.001)))
    worker.start()
    worker.join()
    assert out["r"] == (False, False)


def _shifted_sigmoids_relation(second):
    act = parse_activation("sigmoid(z + 1) + sigmoid(z - 1)")
    ts = type1_term_set(2)
    probe = next(p for p in default_probes(2) if p.name == "shared M, a2 = -a1")
    n = len(ts.terms)
    j = [t.label for t in ts.terms].index("∂ū/∂a1")
    return act, ts, probe, ((j, sp.Integer(-1)), (n + j, sp.Integer(second)))


def test_a_proof_that_runs_out_of_time_says_so():
    """A false relation: the abstract (symmetry) route fails at once, the concrete route — sympy's
    cancel on nested exponentials — runs for minutes unbudgeted; here it is cut at 0.2 s."""
    act, ts, probe, coefficients = _shifted_sigmoids_relation(2)
    started = time.monotonic()
    outcome = prove_relation(ts, act.derivatives, probe.components, coefficients, seconds=0.2)
    assert not outcome and outcome.timed_out
    assert outcome == Outcome(False, True)
    assert time.monotonic() - started < 5


def test_the_symmetry_relation_of_shifted_sigmoids_is_proved_abstractly_in_its_budget():
    """The shifted sigmoids' symmetry φ(−z) = 2 − φ(z), proved in one variable, the relation then with φ
    abstract — within the same 0.2 s that the concrete route could not use."""
    act, ts, probe, coefficients = _shifted_sigmoids_relation(1)
    outcome = prove_relation(ts, act.derivatives, probe.components, coefficients, seconds=0.2)
    assert outcome == Outcome(True, False)


def test_a_timed_out_relation_is_reported_with_its_numeric_evidence(monkeypatch):
    """Every proof gets no time at all: the relations stay, marked timed_out, the verdict holds
    on numeric evidence; with the normal budget the same relation is proved (the one-variable
    symmetry route)."""
    proved = check("tanh(z)", dim=2).to_dict()
    monkeypatch.setattr(type1_condition, "prove_relation", functools.partial(prove_relation, seconds=0.0))
    late = check("tanh(z)", dim=2).to_dict()
    assert late["verdict"] == proved["verdict"] == "not identifiable"
    assert proved["evidence"] == "proof" and late["evidence"] == "numeric"
    witness = next(p for p in late["probes"] if p["name"] == late["witness"])
    assert witness["relations"] and all(r["timed_out"] and not r["proved"] for r in witness["relations"][:1])
    before = next(p for p in proved["probes"] if p["name"] == proved["witness"])
    assert [r["text"] for r in before["relations"]] == [r["text"] for r in witness["relations"]]
    assert "timed_out" not in before["relations"][0]  # the key appears only when true


def test_a_pool_caps_the_total_of_many_budgets():
    """Three proofs of 30 s each inside a 0.5 s pool: the first is cut by the pool (reported
    timed_out, not re-raised), the others are not even started."""
    calls = []

    def slow(i):
        calls.append(i)
        return sp.simplify(_slow_expression())

    started = time.monotonic()
    with pool(0.5):
        outcomes = [run(slow, i, seconds=30, default="late") for i in range(3)]
        assert pool_remaining() <= 0
    assert outcomes == [("late", True)] * 3
    assert calls == [0]
    assert time.monotonic() - started < 5
    assert pool_remaining() == float("inf")
    assert run(lambda: "fast", seconds=1) == ("fast", False)  # outside the pool: no cap


def test_a_pool_cut_inside_an_outer_budget_is_reported_by_the_outer_run():
    def outer():
        return run(sp.simplify, _slow_expression(), seconds=30, default="inner")

    with pool(0.3):
        assert run(outer, seconds=30, default="outer") == ("outer", True)


def test_a_spent_check_pool_keeps_every_relation_and_marks_it(monkeypatch):
    """The check's pool (check.POOL_SECONDS) at 0: no family hypothesis and no proof gets any
    time. The relations are still found and reported, unrecognised and marked timed_out with the
    hypotheses that ran out named; the verdict stands on numeric evidence. The next check, with
    its normal pool, recognises and proves them again (nothing late was cached)."""
    monkeypatch.setattr(importlib.import_module("identcheck.families.phi"), "_PROPERTIES", {})  # nothing cached yet
    with monkeypatch.context() as spent:
        spent.setattr(importlib.import_module("identcheck.check"), "POOL_SECONDS", 0.0)
        late = check("tanh(z)", dim=2).to_dict()
    assert late["verdict"] == "not identifiable" and late["evidence"] == "numeric"
    witness = next(p for p in late["probes"] if p["name"] == late["witness"])
    first = witness["relations"][0]
    assert first["timed_out"] and first["family"] is None and "ran out of time" in first["hypothesis"]
    assert "symmetry" in first["hypothesis"]
    again = check("tanh(z)", dim=2).to_dict()
    assert again["evidence"] == "proof"


def _burn(cpu_seconds):
    """Spin until this thread has used ``cpu_seconds`` of CPU time."""
    start = time.thread_time()
    while time.thread_time() - start < cpu_seconds:
        pass
    return "done"


def test_cpu_time_taken_by_another_thread_does_not_consume_the_budget():
    """A budget counts its own thread's CPU time: with a second thread burning CPU beside it (it
    takes about half of the interpreter's time), 0.2 s of work takes more than its 0.3 s budget of
    wall time, yet completes; 0.3 s of work in a 0.1 s budget is still cut."""
    stop = threading.Event()

    def burner():
        while not stop.is_set():
            pass

    other = threading.Thread(target=burner)
    other.start()
    try:
        started = time.monotonic()
        assert run(_burn, 0.2, seconds=0.3, default="late") == ("done", False)
        assert time.monotonic() - started > 0.3  # wall time alone would have cut it
        assert run(_burn, 0.3, seconds=0.1, default="late") == ("late", True)
    finally:
        stop.set()
        other.join()


def test_a_computation_that_does_not_run_is_cut_by_the_wall_clock_backstop(monkeypatch):
    """Blocked (no CPU time passes), a computation is still stopped: by the wall-clock backstop
    (here set to 1·s + 0.1 s)."""
    budget = importlib.import_module("identcheck.util.budget")
    monkeypatch.setattr(budget, "WALL_FACTOR", 1.0)
    monkeypatch.setattr(budget, "WALL_SLACK", 0.1)
    started = time.monotonic()
    assert run(time.sleep, 5, seconds=0.1, default="late") == ("late", True)
    assert time.monotonic() - started < 2
    with pool(0.1):  # a pool has its backstop too
        assert run(time.sleep, 5, seconds=30, default="late") == ("late", True)
    assert time.monotonic() - started < 3


def test_a_deadline_swallowed_once_is_raised_again():
    """An alarm whose exception Python discards (raised inside a __del__ or a weakref finalizer, seen
    under load) must not let the computation run on: the alarm repeats until run() ends."""
    from identcheck.util.budget import BudgetExceeded

    def swallows_the_first_alarm():
        swallowed = False
        stop = time.monotonic() + 5
        while time.monotonic() < stop:
            try:
                sum(range(1000))
            except BudgetExceeded:
                if swallowed:
                    raise
                swallowed = True  # what Python does with an exception raised inside a finalizer
        return "ran to the end"

    started = time.monotonic()
    assert run(swallows_the_first_alarm, seconds=0.2, default="late") == ("late", True)
    assert time.monotonic() - started < 2
