"""A bounded path shows its plateau: t extended below 10⁻⁴ until the ratio is within 2× of its limit."""

import dataclasses

import numpy as np

from numeric.confirm.curves import DISTANCE_FLOOR, T_MIN, ratio_curve
from numeric.confirm.paths import index_of, line_path
from numeric.confirm.run import T_VALUES, _sequence
from numeric.model.attention import Model
from numeric.model.attention_params import HMoEParams
from numeric.model.attention_truth import load_truth

TRUTH = load_truth().params
X = np.random.default_rng(11).uniform(-1.0, 1.0, size=(4000, 2))


def _euler_tangent(G):
    """(ω, a) ↦ (ω/s, s·a) at s = 1 for every channel: an exact null direction of the model with φ = z."""
    omega_i, _, a_i = index_of(G)
    d = np.zeros(G.size)
    for h in range(G.H):
        for k in range(G.K):
            d[omega_i(h, k)] = -G.omega[h, k]
            for i in range(G.N):
                for j in range(G.dim):
                    d[a_i(h, i, k, j)] = G.a[h, i, k, j]
    return d


def test_a_nearly_null_line_is_followed_down_to_its_plateau():
    """d = d₀ + ε·d₁, d₀ exactly null (Euler, φ = z), ε = 1e-6: ρ falls like t, then levels off at
    ρ₀ = ε‖J d₁‖/ℓ below t ≈ 1e-6 — far below the standard window."""
    model = Model("gated1", "z")
    rng = np.random.default_rng(3)
    d1 = rng.standard_normal(TRUTH.size)
    d1 /= np.linalg.norm(d1)
    eps = 1e-6
    path = line_path("probe", "nearly null", "line", TRUTH, _euler_tangent(TRUTH) + eps * d1)
    sequence = _sequence(model, path, X)
    assert sequence.window == len(T_VALUES) and len(sequence.t) > len(T_VALUES) and sequence.t[-1] < 1e-5
    assert sequence.plateau and sequence.status == "bounded"
    # the limit by a second method: ‖J d₁‖ from a central difference of g, ℓ from the loss at a small t
    theta, shape, h = TRUTH.to_vector(), (TRUTH.H, TRUTH.N, TRUTH.K, TRUTH.dim), 1e-5
    g = lambda th: model.value(HMoEParams.from_vector(th, *shape), X)  # noqa: E731
    jd1 = (g(theta + h * d1) - g(theta - h * d1)) / (2 * h)
    ell = sequence.loss[-1] / sequence.t[-1]
    by_hand = eps * float(np.sqrt(np.mean(jd1**2))) / ell
    assert abs(sequence.limit / by_hand - 1) < 1e-3
    assert 0.5 <= sequence.ratio[-1] / by_hand <= 2.0
    # the standard window alone never shows it: the ratio at t = 1e-4 is far above the limit
    assert sequence.ratio[len(T_VALUES) - 1] / by_hand > 10


def test_a_limit_the_data_never_reach_is_not_resolved_and_t_stops_where_float64_stops():
    """A random line's ratio is constant; told a limit 100× smaller, the extension runs to the float64 floor."""
    model = Model("gated1", "sigmoid(z + 1)")
    direction = np.random.default_rng(4).standard_normal(TRUTH.size)
    line = line_path("random", "line", "line", TRUTH, direction / np.linalg.norm(direction))
    true_limit = ratio_curve(model, line, T_VALUES, X).limit
    lying = dataclasses.replace(line, direction=None, limit=true_limit / 100)  # no tangent: the recorded limit is used
    sequence = _sequence(model, lying, X)
    assert sequence.status == "not resolved" and sequence.plateau is False and not sequence.bounded
    scale = float(np.sqrt(np.mean(model.value(TRUTH, X) ** 2)))
    distance = sequence.ratio[-1] * sequence.loss[-1]
    stopped_by_t = sequence.t[-1] / np.sqrt(10) < T_MIN
    stopped_by_floor = distance < DISTANCE_FLOOR * scale
    assert stopped_by_t or stopped_by_floor
    assert sequence.t[-1] >= T_MIN


def test_without_a_limit_a_bounded_path_shows_a_flat_tail():
    """No first-order length (no limit): a slope below SLOPE_TO_ZERO is not enough, the last two
    ratios must also lie within 2× of each other."""
    from numeric.confirm.result import Sequence

    def sequence(ratio, slope):
        t = (1e-1, 1e-2, 1e-3)
        return Sequence("random", "r", "line", "", t, ratio, (0.0,) * 3, (1.0,) * 3, slope, False, 0.0, None)

    assert sequence((1e-2, 9e-3, 8e-3), 0.05).bounded  # flat tail
    assert not sequence((1e-2, 9e-3, 3e-3), 0.2).bounded  # slope below 0.25, but the tail falls 3x
