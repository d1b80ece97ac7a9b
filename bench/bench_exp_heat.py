"""exp(z) in Setting I against identifiable activations (numbers in docs/confirm.md).

For exp(z), sigmoid(z + 1), softplus(z + 1), tanh(z + 1):

1. the smallest singular value s_min/s_max of the column-scaled model-level Taylor term set
   (∂g/∂θ and the split terms ∂²g/∂a∂a, :mod:`numeric.confirm.taylor`) at the shipped default truth and
   at exp's witness configuration (identcheck's probe 'random pair', lifted);
2. exp's witness construction — the compensated split of channel (h=2, k=1) along v = (0, 1) at
   gate 1 of that lift (construction 4, :mod:`numeric.confirm.splits`) — built the same way for every φ:
   relative residual ‖Q + Jw‖/‖Q‖ and the t → 0 limit ρ₀;
3. the least sensitive line at the same lift (probe path): ρ₀.

    python3 bench/bench_exp_heat.py [--mc 20000]
"""

from __future__ import annotations

import argparse

import numpy as np

import identcheck
from numeric.confirm.curves import first_order_limit
from numeric.confirm.lift import lift_probe
from numeric.confirm.splits import compensated_split
from numeric.confirm.taylor import taylor_singular_values
from numeric.confirm.witness import probe_path
from numeric.model.attention import Model
from numeric.model.attention_truth import load_truth

PHIS = ("exp(z)", "sigmoid(z + 1)", "softplus(z + 1)", "tanh(z + 1)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mc", type=int, default=20_000)
    args = parser.parse_args()
    X = np.random.default_rng([0, 0xC0F]).uniform(-1.0, 1.0, size=(args.mc, 2))  # confirm's points (seed 0)
    check = identcheck.check("exp(z)", condition="type1", dim=2, seed=0)
    probe = next(p for p in check.probes if p.name == "random pair")
    lift = lift_probe(probe, "type1").params
    generic = load_truth().params
    v = np.zeros((lift.N, lift.dim))
    v[0] = (0.0, 1.0)
    print(
        f"{'phi':<16} {'Taylor s_min default':>20} {'Taylor s_min lift':>18} {'split residual':>15} "
        f"{'split rho0':>11} {'line rho0':>10}"
    )
    for phi in PHIS:
        model = Model("gated1", phi)
        s_generic = taylor_singular_values(model, generic, X)
        s_lift = taylor_singular_values(model, lift, X)
        split = compensated_split(model, lift, 1, 0, v, X, "witness", "exp's witness construction")
        line = probe_path(model, "random pair", lift, X)
        line_limit, _ = first_order_limit(model, line, X)
        print(
            f"{phi:<16} {s_generic[-1] / s_generic[0]:20.2e} {s_lift[-1] / s_lift[0]:18.2e} {split.sensitivity:15.2e} "
            f"{split.limit:11.2e} {line_limit:10.2e}"
        )


if __name__ == "__main__":
    main()
