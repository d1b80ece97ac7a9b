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
import sympy as sp

from .budget import Outcome
from .certify import recover_relations
from .conditions import CONDITIONS, ProbeMatrix
from .errors import IdentcheckError
from .evidence import Certificate, CertificateKind
from .interval import approximate_inverse_test, certify_full_column_rank
from .probes import Component, HeadConfig, Probe
from .report import Relation

__all__ = ["certify_probe", "replay", "hex_points"]


def hex_points(points: np.ndarray) -> list:
    """Points as exact float64 hex strings (``float.fromhex`` reads them back)."""
    return [[float(v).hex() for v in row] for row in np.atleast_2d(points)]


def certify_probe(decision, matrix: ProbeMatrix, prove: Callable[[tuple], bool], relations: tuple) -> tuple[Certificate, tuple]:
    """The certificate of one probe, and its relations (raw ones replaced by proved exact ones).

    Parameters
    ----------
    decision : RankDecision
        The rank decision on ``matrix``.
    matrix : ProbeMatrix
        The columns decided: ``float64()``, ``arb(digits)``, ``rows(rows, digits)`` (balls
        containing the exact values), ``points``, ``labels``, ``keys`` and ``columns`` (their positions in
        the probe's full column list, recorded for :func:`replay`).
    prove : callable
        ``prove(coefficients)`` → truthy when sympy proved Σ λ_c column_c ≡ 0 (an
        :class:`~identcheck.budget.Outcome` also says when the proof timed out: counted in
        ``detail["timed_out"]``, present only when non-zero).
    relations : tuple of Relation
        What the numerical explanation found.
    """
    values, points, columns = matrix.float64(), matrix.points, list(matrix.columns)
    if decision.independent is None:
        return Certificate(None, "the rank was not settled on the precision ladder; nothing to certify"), relations
    if decision.independent:
        cert = certify_full_column_rank(values, matrix.rows, decision.smallest_singular_value)
        detail = cert.to_dict()
        detail["points"] = hex_points(points[list(cert.rows)])
        detail["columns"] = columns
        if not cert.proved:
            detail["why_not"] = f"||I - R S||_F < 1 not reached up to {cert.digits} digits"
        return Certificate(CertificateKind.INTERVAL if cert.proved else None, detail), relations

    exact = recover_relations(decision.null_space, matrix.arb)
    outcomes = []
    for c in (c for c in exact if c is not None):
        # after one timeout the probe's budget is spent: the rest count as timed out, untried
        late = outcomes and getattr(outcomes[-1][1], "timed_out", False)
        outcomes.append((c, Outcome(False, True) if late else prove(c)))
    proved = [c for c, outcome in outcomes if outcome]
    timed_out = sum(bool(getattr(outcome, "timed_out", False)) for _, outcome in outcomes)
    detail = {
        "nullity": decision.nullity,
        "recovered": sum(c is not None for c in exact),
        "proved": len(proved),
        "relations": [_relation(c, matrix).to_dict() for c in proved],
        "method": "rational relation recovered from a 120-digit null space, proved identically zero by sympy",
    }
    if len(proved) == decision.nullity:
        pivots = {relation[0][0] for relation in proved}
        rest = [j for j in range(values.shape[1]) if j not in pivots]
        cert = None
        if rest:
            cert = certify_full_column_rank(values[:, rest], lambda rows, digits: _columns(matrix.rows(rows, digits), rest))
        detail["nullity_exact"] = bool(cert is None or cert.proved)
        detail["rest_certificate"] = None if cert is None else {
            **cert.to_dict(),
            "columns": [columns[j] for j in rest],
            "points": hex_points(points[list(cert.rows)]),
        }
        if all(r.family is None for r in relations):  # nothing recognised: show the exact relations instead
            relations = tuple(_relation(c, matrix) for c in proved)
    else:
        detail["nullity_exact"] = False
    if timed_out:  # only when it happened: the JSON keeps its shape otherwise
        detail["timed_out"] = timed_out
    already = any(r.proved for r in relations)
    if proved or already:
        if not proved:
            detail["method"] = "a family relation proved identically zero by sympy (rational recovery did not prove the basis)"
        return Certificate(CertificateKind.PROOF, detail), relations
    detail["why_not"] = (
        "coefficients not recognised as rationals" if not detail["recovered"] else "sympy did not reduce the recovered relations to 0"
    ) + (f" ({timed_out} exact proof(s) timed out)" if timed_out else "")
    return Certificate(None, detail), relations


def _relation(coefficients, matrix) -> Relation:
    return Relation(
        terms=tuple((matrix.labels[c], float(v)) for c, v in coefficients),
        exact=tuple((matrix.labels[c], str(v)) for c, v in coefficients),
        keys=tuple(matrix.keys[c] for c, _ in coefficients),
        family=None,
        hypothesis=None,
        proved=True,
    )


def _columns(arb, columns):
    return flint.arb_mat([[arb[i, j] for j in columns] for i in range(arb.nrows())])


def replay(result: dict, probe_name: str) -> dict:
    """Re-run the interval test of one probe from a check's JSON (``identcheck check --certify --json``).

    Rebuilds the condition (φ, the term set) and the probe's parameters from the JSON, evaluates
    the recorded minor (points read back exactly from hex) in arb at the recorded precision, and
    repeats the approximate-inverse test with the recorded column scaling. Returns the new bounds.
    """
    probe = next((p for p in result.get("probes", []) if p["name"] == probe_name), None)
    if probe is None:
        raise IdentcheckError(f"probe={probe_name!r}: not in this result")
    cert = probe.get("certificate") or {}
    if cert.get("kind") != CertificateKind.INTERVAL:
        raise IdentcheckError(f"probe={probe_name!r}: has no interval certificate")
    detail = cert["detail"]
    points = np.array([[float.fromhex(v) for v in row] for row in detail["points"]])
    condition = CONDITIONS[result["condition"]].from_json(result)
    arb = condition.full_matrix(Probe(probe_name, _components(probe["components"])), points).arb(int(detail["digits"]))
    arb = _columns(arb, detail["columns"])
    bound, sigma = approximate_inverse_test(arb, detail["column_exponents"], int(detail["digits"]))
    return {"proved": bound < 1, "residual_bound": bound, "sigma_min_lower_bound": sigma}


def _components(data) -> tuple:
    """Components (type-1) or head configurations (type-2) from their JSON form, exactly."""

    def exact(value):
        return sp.Rational(value) if isinstance(value, str) else tuple(exact(v) for v in value)

    return tuple((HeadConfig if _depth(c["M"]) == 3 else Component)(exact(c["M"]), exact(c["a"])) for c in data)


def _depth(value) -> int:
    return 1 + _depth(value[0]) if isinstance(value, list) and value else 0
