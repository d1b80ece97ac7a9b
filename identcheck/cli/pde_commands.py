"""The ``prove-pde`` and ``positions`` commands: which PDE families a φ satisfies, proved exactly
(:mod:`identcheck.pde`), and where a gate placed in attention lets the PDE survive
(:mod:`identcheck.positions`, docs/positions.md). Each command imports what it runs inside it, as the
other command modules do, so ``identcheck --help`` stays light."""

from __future__ import annotations

import json

from ..errors import IdentcheckError

__all__ = ["run_positions", "run_prove_pde"]


def run_prove_pde(args) -> int:
    from ..parse.activation import parse_param
    from ..pde import prove_pde

    params = dict(parse_param(p) for p in args.params)
    proofs = prove_pde(args.phi, dim=args.dim, params=params)
    if args.json:
        print(
            json.dumps(
                {"phi": args.phi, "dim": args.dim, "families": [p.to_dict() for p in proofs]},
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    print(f"phi(z) = {args.phi}; u = exp(x'Mx)*phi(a'x), x, a in R^{args.dim}, M symmetric")
    for proof in proofs:
        print(proof.to_text())
    held = [p for p in proofs if p.holds]
    if not held:
        print("no known family applies: nothing to prove (the numeric check and --certify speak to independence)")
    return 0


def run_positions(args) -> int:
    from ..check import check
    from ..parse.activation import parse_activation, parse_param
    from ..positions import positions

    params = dict(parse_param(p) for p in args.params)
    if args.seed < 0:
        raise IdentcheckError(f"--seed {args.seed}: must be >= 0")
    parse_activation(args.phi, params)
    rows = positions(args.phi, params, seed=args.seed)
    verdicts = {}
    if args.check:
        for row in rows:
            if row.decided_by:
                verdicts[row.position] = check(
                    args.phi, condition=row.decided_by, params=params, seed=args.seed
                ).verdict
    if args.json:
        out = [r.to_dict() | ({"verdict": verdicts[r.position]} if r.position in verdicts else {}) for r in rows]
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return 0
    print(f"gate positions for phi(z) = {args.phi}")
    print(f"  {'pos':<4}{'phi acts':<28}{'PDE survives (derived)':<26}{'numeric r_V - c r_O':<22}decided by")
    for r in rows:
        derived = ("yes" if r.predicted_survives else "no") + (" (every phi)" if r.decided_by is None else "")
        seen = f"{r.residual:.1e} ({'holds' if r.observed_survives else 'fails'})"
        decided = r.decided_by or "nothing: fails for every phi"
        if r.position in verdicts:
            decided += f" -> {verdicts[r.position]}"
        print(f"  {r.position:<4}{r.where:<28}{derived:<26}{seen:<22}{decided}")
    agree = all(r.predicted_survives == r.observed_survives for r in rows)
    print(f"  derivation and numerics {'agree' if agree else 'DISAGREE'} (see docs/positions.md)")
    return 0
