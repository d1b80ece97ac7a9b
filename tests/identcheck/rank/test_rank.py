"""The rank decision on matrices whose answer is known by construction."""

import flint
import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from identcheck.rank import rule as rank
from identcheck.rank.rule import decide_rank, raw_gram, unresolved_columns
from identcheck.terms.compile import arb_precision


def _functions_matrix(columns, points):
    """float64 matrix and an exact arb provider for columns given as f(x_arb) -> arb."""

    def provider(digits):
        with arb_precision(digits):
            return flint.arb_mat([[f(flint.arb(float(x))) for f in columns] for x in points])

    with arb_precision(20):
        m = provider(20)
        matrix = np.array([[float(v.mid()) for v in row] for row in m.tolist()])
    return matrix, provider


POINTS = np.random.default_rng(7).uniform(-1, 1, 40)


def _exp(k, eps):
    return lambda x: (x * (k * eps)).exp()


def test_well_conditioned_independent_is_settled_in_float64():
    matrix, provider = _functions_matrix([lambda x: x, lambda x: x.exp(), lambda x: x.sin()], POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is True and d.precision_digits == 16 and d.nullity == 0


def test_exact_dependence_collapses_and_is_found():
    cols = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x.exp() * 2 - x.sin() * 3]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is False and d.nullity == 1
    v = d.null_space[:, 0] / d.null_space[2, 0]
    assert np.allclose(v, [-2, 3, 1], atol=1e-10)


def test_ill_conditioned_independence_is_not_mistaken_for_dependence():
    """exp(k·ε·x), k = 0..7, ε = 0.05: independent, smallest scaled singular value below 1e-8."""
    cols = [_exp(k, 0.05) for k in range(8)]
    matrix, provider = _functions_matrix(cols, POINTS)
    s = np.linalg.svd(matrix / np.linalg.norm(matrix, axis=0), compute_uv=False)
    assert s[-1] < 1e-8  # float64 alone would be borderline here
    d = decide_rank(matrix, provider)
    assert d.independent is True and d.precision_digits >= 30
    assert d.smallest_singular_value == pytest.approx(d.history[-1][1])


def test_tiny_true_singular_value_below_first_rung_is_resolved_higher_up():
    """ε = 0.0005 with 10 columns: true s_min far below 1e-30, settled on a higher rung."""
    cols = [_exp(k, 0.0005) for k in range(10)]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is True
    assert d.smallest_singular_value < 1e-30
    assert d.precision_digits >= 60


def test_undecidable_within_the_ladder_is_inconclusive():
    cols = [_exp(k, 0.002) for k in range(10)]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider, ladder=(20, 25))
    assert d.independent is None


def test_zero_column_is_a_dependence():
    cols = [lambda x: x.exp(), lambda x: x * 0, lambda x: x.cos()]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is False and d.nullity == 1
    assert abs(d.null_space[1, 0]) == pytest.approx(1.0)


@settings(max_examples=15)
@given(
    scales=st.lists(st.integers(-20, 20), min_size=5, max_size=5),
    order=st.permutations(range(5)),
    dependent=st.booleans(),
)
def test_decision_invariant_to_column_scaling_and_order(scales, order, dependent):
    base = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x.cos(), lambda x: x * x]
    base.append((lambda x: x.exp() - x * x * 3) if dependent else (lambda x: x.atan()))
    ref = decide_rank(*_functions_matrix(base, POINTS))
    scaled = [(lambda f, s: lambda x: f(x) * flint.arb(2.0**s))(base[i], scales[i]) for i in order]
    got = decide_rank(*_functions_matrix(scaled, POINTS))
    assert got.independent == ref.independent == (not dependent)
    assert got.nullity == ref.nullity
    assert got.smallest_singular_value == pytest.approx(ref.smallest_singular_value, rel=1e-6, abs=1e-40)


def _tiny_sigmoid(b):
    """σ(b·x) − 1/2 in arb: for b = 1e-300 the balls are [0 ± 2^-prec] at every working precision."""
    return lambda x: 1 / (1 + (-(x * b)).exp()) - flint.arb(0.5)


def test_column_below_the_precision_is_undecided_not_a_zero_column():
    """Values ~1e-300 that arb cannot separate from 0 must not become a relation."""
    b = flint.arb(2) ** -997  # ≈ 7.5e-301, exact
    cols = [lambda x: x.exp(), _tiny_sigmoid(b), lambda x: x.cos()]
    matrix, provider = _functions_matrix(cols, POINTS)
    assert np.all(matrix[:, 1] == 0)  # float64 sees an exact zero column
    d = decide_rank(matrix, provider)
    assert d.independent is None and d.nullity == 0 and d.null_space.shape == (3, 0)
    assert "1 column(s) not resolved at 120 digits" in d.note
    assert [h[0] for h in d.history] == [16]  # no rung could be used, none is recorded


def test_a_small_column_that_the_precision_resolves_is_used():
    """b = 2^-133 ≈ 1e-40: σ(bx) − 1/2 ≈ b·x/4 is zero in float64 but resolved at 120 and 240 digits."""
    b = flint.arb(2) ** -133
    cols = [lambda x: x.exp(), _tiny_sigmoid(b), lambda x: x.cos()]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider)
    assert d.independent is True and d.note is None


def test_raw_gram_diagonal_encloses_the_exact_column_norms():
    """Balls with known radii: the diagonal ball must hold ‖A_j‖² for every matrix inside the balls."""
    mids = [[1.0, 0.0], [2.0, 0.0], [-1.0, 0.0]]
    radius = 1e-8
    with arb_precision(30):
        a = flint.arb_mat([[flint.arb(m, radius) for m in row] for row in mids])
        g = raw_gram(a, 30)
        extreme = 0.0  # the largest ‖A_0‖² inside the balls: every entry pushed outwards
        for row in mids:
            extreme += (abs(row[0]) + radius) ** 2
        assert g[0, 0].contains(flint.arb(6.0)) and g[0, 0].contains(flint.arb(extreme))
        assert g[1, 1].contains(flint.arb(3 * radius**2)) and float(g[1, 1].mid()) == 0.0
        assert float(g[0, 1].rad()) == 0.0  # off the diagonal: midpoints only, as before
    assert list(unresolved_columns(g, 1)) == [1]  # [0 ± r], r > 0: not a zero column
    with arb_precision(30):
        exact_zero = raw_gram(flint.arb_mat([[1.0, 0.0], [2.0, 0.0]]), 30)
    assert list(unresolved_columns(exact_zero, 20)) == []  # an exact zero column is resolved (as zero)


def test_check_with_a_parameter_near_the_float_limit_claims_no_relation(capsys):
    """`identcheck check 'sigmoid(z*b)' --param b=1e-300` used to report ∂²ū/∂a1² = 0 'confirmed at two precisions'."""
    import json

    from identcheck.cli.main import main

    assert main(["check", "sigmoid(z*b)", "--param", "b=1e-300", "--json"]) == 0
    (result,) = json.loads(capsys.readouterr().out)
    assert result["verdict"] == "inconclusive" and result["witness"] is None
    assert all(p["dependent"] is None and not p["relations"] for p in result["probes"])
    assert "stayed below the precision" in result["summary"] and "∂²ū/∂a1²" in result["summary"]
    assert all(p["note"].startswith("not settled: column(s) too small for the precision") for p in result["probes"])


def _rows_of(provider, asked=None):
    """rows(indices, digits) for decide_rank's proof, from a full-matrix provider; the precisions
    asked for are appended to ``asked``."""

    def rows(indices, digits):
        if asked is not None:
            asked.append(digits)
        full = provider(digits)
        return flint.arb_mat([[full[i, j] for j in range(full.ncols())] for i in indices])

    return rows


def test_ill_conditioned_independence_is_proved_first_at_the_first_evaluation_precision():
    """exp(k·ε·x), k = 0..7, ε = 0.05: float64 borderline (s_min ≈ 1e-11), above its rounding floor,
    so the proof is tried first; it settles the decision at 60 digits (2 × the first rung) with
    the float64 margin, the ladder untouched (one history entry)."""
    cols = [_exp(k, 0.05) for k in range(8)]
    matrix, provider = _functions_matrix(cols, POINTS)
    d = decide_rank(matrix, provider, rows=_rows_of(provider))
    assert d.independent is True and d.proof is not None and d.proof.proved
    assert d.precision_digits == 60 == d.proof.digits and len(d.history) == 1
    ladder = decide_rank(matrix, provider)  # the same matrix, the ladder only
    assert ladder.independent is True and ladder.proof is None and len(ladder.history) == 3
    # the margin is float64's (close to the ladder's 30-digit value); the proof's bound lies below
    assert (
        d.smallest_singular_value == d.history[0][1] == pytest.approx(ladder.smallest_singular_value, rel=1e-4, abs=0)
    )
    s = np.linalg.svd(matrix / np.linalg.norm(matrix, axis=0), compute_uv=False)
    used = {t.name: t.value for t in d.tolerances}  # this matrix's thresholds
    assert used["proof"] == pytest.approx(16 * np.finfo(float).eps * s[0], rel=1e-9, abs=0) and used[
        "borderline"
    ] == pytest.approx(np.sqrt(np.finfo(float).eps) * s[0], rel=1e-9, abs=0)
    assert s[-1] >= used["proof"]  # why the proof was tried
    exact = _unit_column_singular_values(cols, POINTS)[-1]  # mpmath, 50 digits
    assert 0 < d.proof.sigma_min_lower_bound <= exact
    assert ladder.smallest_singular_value == pytest.approx(exact, rel=1e-6, abs=0)


def _unit_column_singular_values(columns, points):
    """Singular values of the unit-column matrix by mpmath at 50 digits, from 60-digit arb values."""
    with arb_precision(60):
        values = [[f(flint.arb(float(x))) for f in columns] for x in points]
    with mpmath.workdps(50):
        a = mpmath.matrix([[mpmath.mpf(v.mid().str(55, radius=False)) for v in row] for row in values])
        for j in range(a.cols):
            norm = mpmath.sqrt(mpmath.fsum(a[i, j] ** 2 for i in range(a.rows)))
            for i in range(a.rows):
                a[i, j] /= norm
        return sorted((float(s) for s in mpmath.svd_r(a, compute_uv=False)), reverse=True)


#: exp, sin and 2·exp − 3·sin: one exact dependence
DEPENDENT = [lambda x: x.exp(), lambda x: x.sin(), lambda x: x.exp() * 2 - x.sin() * 3]


def test_a_dependence_is_not_sent_to_the_proof():
    """float64 puts a dependence at its rounding floor, below PROOF_FLOOR: rows are never asked for."""
    matrix, provider = _functions_matrix(DEPENDENT, POINTS)
    asked = []
    d = decide_rank(matrix, provider, rows=_rows_of(provider, asked))
    assert d.independent is False and d.nullity == 1 and d.proof is None and asked == []


def test_a_failed_proof_leaves_the_ladder_as_it_was(monkeypatch):
    """With the floor removed the proof is tried on a dependence, fails (a singular minor cannot
    pass), and the decision is the ladder's, field for field."""
    monkeypatch.setattr(rank, "PROOF_FLOOR", 0.0)
    matrix, provider = _functions_matrix(DEPENDENT, POINTS)
    asked = []
    with_proof, ladder = decide_rank(matrix, provider, rows=_rows_of(provider, asked)), decide_rank(matrix, provider)
    assert asked == [60] and with_proof.proof is None
    assert (with_proof.independent, with_proof.nullity, with_proof.history) == (False, 1, ladder.history)
    assert (with_proof.smallest_singular_value, with_proof.precision_digits) == (
        ladder.smallest_singular_value,
        ladder.precision_digits,
    )
    assert np.allclose(with_proof.null_space, ladder.null_space)
