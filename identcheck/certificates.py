"""Per-probe certificates (``--certify``): what a probe's outcome rests on, beyond numerics.

- **independent** → an interval certificate (:mod:`interval`): a square minor of the collocation
  matrix, enclosed in arb balls, is proved nonsingular by ‖I − R·S‖_F < 1. Kind ``"interval"``;
  the detail holds the sample points of the minor (float64 hex, exact), the column scaling, the
  working precision and the bounds — enough to replay it (:func:`replay`).
- **dependent** → exact relations: the numerical null space is turned into rational relations
  (:func:`~certify.recover_relations`) and each is proved identically zero in x by sympy
  (:func:`~certify.is_exact_zero`). One proved relation proves the dependence: kind ``"proof"``.
  When all k basis relations are proved *and* the remaining columns are certified independent
  by the interval test, the nullity is exactly k (``"nullity_exact": true``).
- **undecided**, or a test that failed → kind None, with the reason.

A certified probe proves a statement at *its* parameter values only; the verdict says so.
"""

from __future__ import annotations

from typing import Callable

import flint
import numpy as np

from .certify import recover_relations
from .interval import certify_full_column_rank
from .report import Relation

__all__ = ["certify_probe", "replay", "hex_points"]


def hex_points(points: np.ndarray) -> list:
    """Points as exact float64 hex strings (``float.fromhex`` reads them back)."""
    return [[float(v).hex() for v in row] for row in np.atleast_2d(points)]


def certify_probe(
    decision,
    matrix: np.ndarray,
    points: np.ndarray,
    arb_matrix: Callable[[int], object],
    arb_rows: Callable[[list, int], object],
    prove: Callable[[tuple], bool],
    labels: list,
    relations: tuple,
    columns: list | None = None,
) -> tuple[dict, tuple]:
    """The certificate of one probe, and its relations (raw ones replaced by proved exact ones).

    Parameters
    ----------
    decision : RankDecision
    matrix : ndarray (n, T)
        float64 collocation matrix of the columns decided.
    points : ndarray (n, d)
    arb_matrix : callable
        ``arb_matrix(digits)`` → the n × T matrix in arb.
    arb_rows : callable
        ``arb_rows(rows, digits)`` → those rows of it, in arb (balls containing the exact values).
    prove : callable
        ``prove(coefficients)`` → True when sympy proved Σ λ_c column_c ≡ 0.
    labels : list of str
        Column labels.
    relations : tuple of Relation
        What the numerical explanation found.
    columns : list of int, optional
        Indices of the decided columns in the probe's full column list (for replay).
    """
    columns = list(range(matrix.shape[1])) if columns is None else [int(c) for c in columns]
    if decision.independent is None:
        return {"kind": None, "detail": "the rank was not settled on the precision ladder; nothing to certify"}, relations
    if decision.independent:
        cert = certify_full_column_rank(matrix, arb_rows, decision.smallest_singular_value)
        detail = cert.to_dict()
        detail["points"] = hex_points(points[list(cert.rows)])
        detail["columns"] = columns
        if not cert.proved:
            detail["why_not"] = f"||I - R S||_F < 1 not reached up to {cert.digits} digits"
        return {"kind": "interval" if cert.proved else None, "detail": detail}, relations

    exact = recover_relations(decision.null_space, arb_matrix)
    proved = [c for c in exact if c is not None and prove(c)]
    detail = {
        "nullity": decision.nullity,
        "recovered": sum(c is not None for c in exact),
        "proved": len(proved),
        "relations": [_relation(c, labels).to_dict() for c in proved],
        "method": "rational relation recovered from a 120-digit null space, proved identically zero by sympy",
    }
    if len(proved) == decision.nullity:
        pivots = {relation[0][0] for relation in proved}
        rest = [j for j in range(matrix.shape[1]) if j not in pivots]
        cert = None
        if rest:
            cert = certify_full_column_rank(matrix[:, rest], lambda rows, digits: _columns(arb_rows(rows, digits), rest))
        detail["nullity_exact"] = bool(cert is None or cert.proved)
        detail["rest_certificate"] = None if cert is None else {
            **cert.to_dict(),
            "columns": [columns[j] for j in rest],
            "points": hex_points(points[list(cert.rows)]),
        }
        if all(r.family is None for r in relations):  # nothing recognised: show the exact relations instead
            relations = tuple(_relation(c, labels) for c in proved)
    else:
        detail["nullity_exact"] = False
    already = any(r.proved for r in relations)
    if proved or already:
        if not proved:
            detail["method"] = "a family relation proved identically zero by sympy (rational recovery did not prove the basis)"
        return {"kind": "proof", "detail": detail}, relations
    detail["why_not"] = (
        "coefficients not recognised as rationals" if not detail["recovered"] else "sympy did not reduce the recovered relations to 0"
    )
    return {"kind": None, "detail": detail}, relations


def _relation(coefficients, labels) -> Relation:
    return Relation(
        terms=tuple((labels[c], float(v)) for c, v in coefficients),
        exact=tuple((labels[c], str(v)) for c, v in coefficients),
        family=None,
        hypothesis=None,
        proved=True,
    )


def _columns(arb, columns):
    return flint.arb_mat([[arb[i, j] for j in columns] for i in range(arb.nrows())])


def replay(result: dict, probe_name: str) -> dict:
    """Re-run the interval test of one probe from a check's JSON (``identcheck check --certify --json``).

    Rebuilds φ, the term set and the probe's parameters from the JSON, evaluates the recorded
    minor (points read back exactly from hex) in arb at the recorded precision, and repeats the
    approximate-inverse test with the recorded column scaling. Returns the new bounds.
    """
    from .interval import _approximate_inverse_test
    from .errors import IdentcheckError

    probe = next((p for p in result.get("probes", []) if p["name"] == probe_name), None)
    if probe is None:
        raise IdentcheckError(f"probe={probe_name!r}: not in this result")
    cert = probe.get("certificate") or {}
    if cert.get("kind") != "interval":
        raise IdentcheckError(f"probe={probe_name!r}: has no interval certificate")
    detail = cert["detail"]
    points = np.array([[float.fromhex(v) for v in row] for row in detail["points"]])
    arb = _evaluator(result, probe)(points, int(detail["digits"]))
    arb = _columns(arb, detail["columns"])
    bound, sigma = _approximate_inverse_test(arb, detail["column_exponents"], int(detail["digits"]))
    return {"proved": bound < 1, "residual_bound": bound, "sigma_min_lower_bound": sigma}


def _evaluator(result: dict, probe: dict):
    import sympy as sp

    from .activation import parse_activation
    from .compile import compile_terms
    from .probes import Component

    components = [
        Component(tuple(tuple(sp.Rational(v) for v in row) for row in c["M"]), tuple(sp.Rational(v) for v in c["a"]))
        for c in probe["components"]
    ]
    dim = int(result["dim"])
    if result["condition"] == "type2":
        from .type2 import type2_term_set
        from .type2_check import _compiled

        head = result["head"]
        ts = type2_term_set(dim, head["n_gates"], head["n_channels"], head["mixed_products"])
        activation = parse_activation(result["expression"])
        full = _compiled(ts)[0]
        theta = ts.numeric_params(components[0].M, components[0].a)
        return lambda points, digits: full.arb(points, [theta], activation, digits)
    from .terms import type1_term_set

    ts = type1_term_set(dim, "u" if result["condition"] == "mha" else "ū")
    activation = parse_activation("z" if result["condition"] == "mha" else result["expression"])
    compiled = compile_terms(ts)
    thetas = [list(ts.numeric_params(c.M, c.a).values()) for c in components]
    return lambda points, digits: compiled.arb(points, thetas, activation, digits)
