"""Declarations feed the check: DeepSeekMoE's D2 exponents come out as the declaration's own loss states them."""

import time

import pytest

from identcheck.declaration import atom_functions, example_path, parse_declaration, read_example
from identcheck.errors import IdentcheckError
from identcheck.evidence import Evidence, Verdict
from identcheck.model.declared import REFUSED, DeclaredCheck, check_declaration, declared_atoms
from identcheck.model.examples import mha_linear_expert
from identcheck.model.recombination import recombinations
from identcheck.model.tied import check_tied, held_atom
from identcheck.model.verdict import Outcome, check_atom


def _declared_exponents(declaration, part, size):
    """{entry symbol name: the loss's exponent for cells of ``size`` atoms} from the declaration."""
    loss = declaration.loss.part(part)
    functions = atom_functions(declaration, part)
    by_name = {}
    for term in loss.terms:
        for name in term.params:
            by_name[name] = term.over.at(size, loss.r_table)
    return {s.name: by_name[n] for s, n in zip(functions.params, functions.names) if n in by_name}


@pytest.mark.slow  # 10–26 s; `python3 -m pytest -m slow` runs it
def test_deepseek_d2_exponents_from_the_declaration():
    """D2 (arXiv 2505.10860, Theorem 2): r̄ for β1, η0, κ0; r̄/2 for η1, ν, τ; κ1 squared; r̄(2) = 4."""
    declaration = read_example("deepseek-d2")
    result = check_declaration(declaration, max_order=4, max_cell=2)
    assert len(result.results) == 3
    # its printed true gate is constant in x (β1* = 5, 5): the denominator's terms are in the atoms' span
    assert result.coupled and result.joint is False and result.verdict == Verdict.INCONCLUSIVE
    for part, verdict in result.results:
        assert verdict.verdict == Verdict.IDENTIFIABLE and verdict.exact_fitted.identifiable, verdict.summary
        cell = verdict.cell(2)
        assert cell.rbar == 4 and cell.proved
        assert cell.exponents == _declared_exponents(declaration, part, 2), (part, cell.exponents)


def test_the_weight_is_factored_out():
    declaration = read_example("deepseek-d2")
    routed = declared_atoms(declaration, "routed")
    assert [p.name for p in routed[0].params] == ["beta1_1", "eta1_1", "eta0", "nu"]
    shared = declared_atoms(declaration, "shared")
    assert "omega" not in [p.name for p in shared[0].params]


def test_relu_is_refused_in_one_line():
    with pytest.raises(IdentcheckError, match="relu is not differentiable at 0") as error:
        declared_atoms(read_example("deepseek-d1"), "routed")
    assert "\n" not in str(error.value)


def test_an_unsupported_gate_is_refused_naming_the_key():
    text = example_path("softmax-gaussian-moe").read_text(encoding="utf-8")
    text = text.replace('kind = "softmax"\nreference = "last"', 'kind = "sigmoid"').replace('"softmax-shift", ', "")
    declaration = parse_declaration(text)
    with pytest.raises(
        IdentcheckError, match=r"^parts\.experts\.gate\.kind='sigmoid': a sigmoid gate's weights"
    ) as error:
        declared_atoms(declaration, "experts")
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("kind", sorted(REFUSED))
def test_every_refused_gate_has_a_one_line_reason(kind):
    assert "\n" not in REFUSED[kind] and "constant and softmax" in REFUSED[kind]


def test_the_model_verdict_follows_its_atoms():
    """Order too low when an atom's r̄(m) exceeds the order (an exact solution at the highest order
    tried, not a proved failure); inconclusive when the joint independence is undecided."""
    result = check_declaration(read_example("softmax-gaussian-moe"), max_order=2, max_cell=2)
    assert result.verdict == Outcome.ORDER_TOO_LOW, result.summary  # r̄(2) = 4 > 2: a solution at order 2
    assert result.to_dict()["verdict"] == "order too low" and result.summary.startswith("experts[1]: ")
    assert "r̄(2) > 2" in result.summary and result.evidence == Evidence.PROOF
    undecided = DeclaredCheck(result.name, tuple((p, v) for p, v in result.results), None)
    assert undecided.verdict == Outcome.ORDER_TOO_LOW
    identifiable = [(p, v) for p, v in check_declaration(_varying_gate("deepseek-tanh"), 2, 2).results]
    assert DeclaredCheck("x", tuple(identifiable), None).verdict == Verdict.INCONCLUSIVE
    assert DeclaredCheck("x", tuple(identifiable), True).verdict == Verdict.IDENTIFIABLE


@pytest.mark.parametrize(("order", "cells"), [(0, 2), (9, 2), (4, 0), (4, 5), (True, 2)])
def test_orders_and_cells_out_of_range_are_refused_before_any_check(order, cells):
    with pytest.raises(IdentcheckError, match=r"^max_(order|cell)="):
        check_declaration(read_example("deepseek-d2"), max_order=order, max_cell=cells)


def test_a_softmax_regression_is_refused_in_one_line():
    with pytest.raises(IdentcheckError, match=r"^parts\.experts\.gate\.kind='softmax': a softmax-gated regression"):
        declared_atoms(read_example("least-squares"), "experts")


def test_a_nested_part_gives_its_atoms_with_the_inner_mixture_in_f():
    atoms = declared_atoms(read_example("mha"), "channels")
    assert len(atoms) == 4 and [p.name for p in atoms[0].params][:3] == ["M_c1_11", "M_c1_12", "M_c1_22"]


def test_tied_atoms_held_at_the_truth_give_the_witness():
    """exp(M x²)·a x with M tied: held at M*, F is linear in a, and the weight absorbs a move along a
    at every order (Euler) — a witness of the tied model."""
    atom = mha_linear_expert(dim=1)
    (m,) = [p for p in atom.params if p.name == "M"]
    assert held_atom(atom, (m,)).params == tuple(p for p in atom.params if p != m)
    result = check_tied(atom, (m,), max_order=3, max_cell=2, seconds=30)
    assert result.verdict == Verdict.NOT_IDENTIFIABLE and "held at the truth" in result.summary, result.summary
    assert "bites in exact-fitted cells" in result.summary


def test_recombination_is_found_exactly_and_is_local_from_k_star_plus_2():
    found = recombinations(read_example("setting1"))
    assert [(r.group, r.atoms, r.fitted, r.true, r.local) for r in found] == [
        (1, (1, 2), 3, 2, False),
        (2, (3, 4), 3, 2, False),
    ]
    assert recombinations(read_example("setting2")) == ()  # phi(inner) is not additive over components
    text = example_path("setting1").read_text(encoding="utf-8").replace("fitted = 6", "fitted = 8")
    wider = recombinations(parse_declaration(text))
    assert all(r.local for r in wider) and "an ε-path keeps f" in wider[0].text()
    assert DeclaredCheck("setting1", (), True, recombinations=wider).verdict == Verdict.NOT_IDENTIFIABLE


def _varying_gate(name):
    """The example with its second routed atom's gate slope moved from 5 to −1: a true gate that varies with x."""
    text = example_path(name).read_text(encoding="utf-8")
    assert text.count("{ beta1 = 5.0, beta0 = 0.5") == 1
    return parse_declaration(text.replace("{ beta1 = 5.0, beta0 = 0.5", "{ beta1 = -1.0, beta0 = 0.5"))


@pytest.mark.parametrize("name", ["deepseek-gelu", "deepseek-tanh"])
def test_smooth_deepseek_experts_take_squares(name):
    """The shipped smooth experts (k2·φ(k1 x + k0) shared, η2·φ(η1 x) routed): strongly identifiable at
    the model level — every exponent 2, as D1 writes it — however steep the expert (a tube sampler),
    once the true gate varies with x, the shared part's terms taken times the routed true denominator
    S*(x) in the joint test; with the printed β1* = (5, 5) the cells couple through the softmax
    denominator and the model is inconclusive."""
    printed = check_declaration(read_example(name), max_order=2, max_cell=2)
    assert printed.joint is False and printed.verdict == Verdict.INCONCLUSIVE, printed.summary
    result = check_declaration(_varying_gate(name), max_order=2, max_cell=2)
    assert result.joint is True and result.mixed and result.cleared == ("shared",)
    assert result.verdict == Verdict.IDENTIFIABLE and not result.coupled, result.summary
    assert result.to_dict()["cleared"] == ["shared"]
    for part, verdict in result.results:
        assert verdict.verdict == Verdict.IDENTIFIABLE and verdict.cell(2).rbar == 2, (part, verdict.summary)
        assert set(verdict.cell(2).exponents.values()) == {2}


def test_a_tied_atom_carries_the_held_systems_order_too_low_and_no_relaxed_witness():
    """F = N(y | μ + t, ν), t tied. Held (t = t*): the location–scale Gaussian, r̄(2) = 4 — at order 2
    its exact solution shows r̄(2) > 2 for the tied model too (every group keeps t*). Relaxed: ∂F/∂t =
    ∂F/∂μ, a witness of the relaxed model only, which says nothing about the tied one: inconclusive."""
    import sympy as sp

    from identcheck.model.atom import atom_function, gaussian_density

    y, mu, t = sp.symbols("y mu t", real=True)
    nu = sp.Symbol("nu", positive=True)
    atom = atom_function(gaussian_density(y, mu + t, nu), [y], [mu, t, nu], {"mu": 0, "t": 0, "nu": 1}, {"y": (-6, 6)})
    low = check_tied(atom, (t,), max_order=2, max_cell=2, seconds=30)
    assert low.verdict == Outcome.ORDER_TOO_LOW and "held at the truth" in low.summary, low.summary
    assert low.cell(2).witness is not None and low.cell(2).witness.order == 2
    high = check_tied(atom, (t,), max_order=4, max_cell=2, seconds=60)
    assert high.verdict == Verdict.INCONCLUSIVE, high.summary  # held r̄(2) = 4; relaxed: t and μ are one move
    assert "own copy of t: not identifiable" in high.summary and "held at the truth: identifiable" in high.summary


def _setting2_held_atom():
    declaration = read_example("setting2")
    (part,) = declaration.parts
    atom = declared_atoms(declaration, part.name)[0]
    tied = tuple(p for p in atom.params if p.name.startswith("M_"))
    return atom, tied


def test_setting2s_atom_with_its_gates_held_is_strongly_identifiable():
    """Setting II, F = φ(Σ_c w_c(x; M*)·a_cᵀx), φ = sigmoid, M held: every second derivative in the
    basis, so the order-2 equations are ½ Σ p_i ‖Δa_i‖² = 0 — r̄(2) = 2 by the sum of squares alone."""
    atom, tied = _setting2_held_atom()
    assert [p.name for p in tied] == ["M_c1_11", "M_c1_12", "M_c1_22"]
    verdict = check_atom(held_atom(atom, tied), max_order=2, max_cell=2, seconds=60)
    assert verdict.verdict == Verdict.IDENTIFIABLE and verdict.exact_fitted.identifiable, verdict.summary
    cell = verdict.cell(2)
    assert cell.rbar == 2 and cell.proved and cell.decisions[-1].method == "sum of squares"


@pytest.mark.slow
def test_setting2_is_identifiable_at_second_order():
    """The shipped Setting II (arXiv 2602.01468, model (12)): every atom identifiable at order 2 with
    each atom its own copy of M (a relaxation, sound for absence), exponents 2, no recombination
    (φ(inner) is not additive over the components); about 10 s at load 1."""
    result = check_declaration(read_example("setting2"), max_order=2, max_cell=2)
    assert result.verdict == Verdict.IDENTIFIABLE and result.joint is True, result.summary
    assert result.recombinations == () and len(result.results) == 4
    for _, verdict in result.results:
        assert verdict.cell(2).rbar == 2 and set(verdict.cell(2).exponents.values()) == {2}


def _spinning(real, seconds=30.0):
    """``real`` after ``seconds`` of CPU work: a model-wide step that outlasts a small budget."""

    def step(*args, **kwargs):
        end = time.process_time() + seconds
        while time.process_time() < end:
            pass
        return real(*args, **kwargs)

    return step


@pytest.mark.parametrize("step", ["joint_independence", "recombinations"])
def test_a_model_wide_step_out_of_time_is_inconclusive_never_a_verdict(monkeypatch, step):
    """The joint independence (with the softmax denominator's terms) and the recombination search count
    against the model's seconds: cut by the deadline, the model is inconclusive and says which step."""
    import identcheck.model.declared as declared

    declaration = read_example("softmax-gaussian-moe")
    honest = check_declaration(declaration, max_order=1, max_cell=1, seconds=30)
    assert honest.verdict == Verdict.IDENTIFIABLE and honest.joint is True  # what the full steps decide
    monkeypatch.setattr(declared, step, _spinning(getattr(declared, step)))
    start = time.monotonic()
    result = check_declaration(declaration, max_order=1, max_cell=1, seconds=3)
    assert time.monotonic() - start < 20  # not the 30 s the step would take
    assert result.verdict == Verdict.INCONCLUSIVE and result.evidence == Evidence.NUMERIC
    assert all(v.verdict == Verdict.IDENTIFIABLE for _, v in result.results)  # the atoms finished
    words = "joint independence" if step == "joint_independence" else "re-pairing"
    assert words in result.summary and "did not finish within the model's 3 s" in result.summary, result.summary
    cut = result.to_dict()["unfinished"]  # the model-wide steps cut first, named; then any atom's own
    assert honest.to_dict()["unfinished"] == [] and cut[: len(result.unfinished)] == list(result.unfinished)
    assert any(words in u and "did not finish within the model's 3 s" in u for u in cut), cut
    if step == "joint_independence":
        assert result.joint is None and result.to_dict()["joint_independent"] is None


def test_a_softmax_part_with_every_cell_possibly_over_fitted_is_inconclusive_from_order_2():
    """K = 2K* fitted atoms: every cell may hold two, so no fitted atom alone in its cell normalises the
    softmax translation and the reference cell's second moments couple the cells (docs/model.md). The
    shipped K = 3 around K* = 2 always leaves one exact-fitted cell; at order 1 the translation and the
    scaling remove the reference cell's moments whatever its size."""
    text = example_path("softmax-gaussian-moe").read_text(encoding="utf-8")
    assert text.count("fitted = 3") == 1
    four = parse_declaration(text.replace("fitted = 3", "fitted = 4"))
    wide = check_declaration(four, max_order=2, max_cell=2)
    assert wide.joint is True and wide.coupled and wide.verdict == Verdict.INCONCLUSIVE
    assert "fits 4 atoms around 2 true ones" in wide.summary, wide.summary
    shipped = check_declaration(read_example("softmax-gaussian-moe"), max_order=2, max_cell=2)
    assert not shipped.coupled and shipped.verdict == Outcome.ORDER_TOO_LOW  # r̄(2) = 4 > 2
    first = check_declaration(four, max_order=1, max_cell=1)
    assert not first.coupled and first.verdict == Verdict.IDENTIFIABLE, first.summary


def test_a_cut_joint_step_leaves_no_atoms_proved_failure_as_a_mixed_softmax_models_verdict(monkeypatch):
    """A not-identifiable atom beside a softmax part (the shared expert k2·(k1 x + k0): dF/dk1 ∝ dF/dk2,
    DeepSeekMoE's shared + routed parts): run to the end, with the gate varying in x, the atoms' bases (the
    shared one times S*) are independent and the atom's proved failure is the model's; with the joint step
    cut by the budget the model must be inconclusive — the softmax is known without the step — never the
    atom's proved "not identifiable"."""
    import identcheck.model.declared as declared

    text = example_path("deepseek-tanh").read_text(encoding="utf-8")
    assert text.count('expert = "k2*phi(dot(k1, x) + k0)"') == 1
    text = text.replace('expert = "k2*phi(dot(k1, x) + k0)"', 'expert = "k2*(dot(k1, x) + k0)"')
    linear = parse_declaration(text.replace("{ beta1 = 5.0, beta0 = 0.5", "{ beta1 = -1.0, beta0 = 0.5"))
    honest = check_declaration(linear, max_order=1, max_cell=1, seconds=60)
    shared = [v for part, v in honest.results if part == "shared"]
    assert [v.verdict for v in shared] == [Verdict.NOT_IDENTIFIABLE] and shared[0].evidence == Evidence.PROOF
    assert honest.mixed and not honest.coupled and honest.joint is True, honest.summary
    assert honest.verdict == Verdict.NOT_IDENTIFIABLE and honest.evidence == Evidence.PROOF, honest.summary
    monkeypatch.setattr(declared, "joint_independence", _spinning(declared.joint_independence))
    start = time.monotonic()
    cut = check_declaration(linear, max_order=1, max_cell=1, seconds=3)
    assert time.monotonic() - start < 20  # not the 30 s the step would take
    assert [v.verdict for p, v in cut.results if p == "shared"] == [Verdict.NOT_IDENTIFIABLE]  # the atoms finished
    assert cut.joint is None and cut.denominators == ()
    assert cut.mixed and cut.coupled
    assert cut.verdict == Verdict.INCONCLUSIVE and cut.evidence == Evidence.NUMERIC, cut.summary
    assert "joint independence" in cut.summary and "did not finish within the model's 3 s" in cut.summary
    assert cut.to_dict()["verdict"] == "inconclusive"
