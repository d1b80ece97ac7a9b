"""One probe's interval record, read from a check's JSON (``identcheck check --certify --json``) and
checked for shape: the part of a replay that needs no condition. :mod:`identcheck.replay`, above the
conditions, finds the condition by name and replays the record (:func:`identcheck.replay.replay`);
:mod:`.certificates` checks it against the probe's claim and repeats the interval test.
"""

from __future__ import annotations

from ..errors import IdentcheckError
from ..evidence import CertificateKind
from .certificates import IntervalDetail
from .interval import MAX_DIGITS

__all__ = ["MAX_REPLAY_DIGITS", "interval_record"]

#: The most digits a record may ask a replay for: the interval test's own top (MAX_DIGITS, 480 = 4 × the
#: ladder's top 120); a record asking more (10**7 ran past a minute) is refused.
MAX_REPLAY_DIGITS = MAX_DIGITS


def interval_record(result: dict, probe_name: str) -> tuple[dict, IntervalDetail, list | None]:
    """(the probe's JSON, its interval record, the recorded relations) from a check's JSON, checked for
    shape: the part of a replay that needs no condition (:func:`identcheck.replay.replay` rebuilds it).

    An independent probe's record is its ``interval`` certificate (relations None); a dependent
    probe's is the ``rest_certificate`` of its ``proof`` (the columns left after one pivot per
    proved relation), with its relations (their JSON) — present only when every basis relation was proved.
    """
    probe = next((p for p in result.get("probes", []) if p["name"] == probe_name), None)
    if probe is None:
        raise IdentcheckError(param="probe", value=probe_name, reason="not in this result")
    cert = probe.get("certificate") or {}
    relations = None
    if cert.get("kind") == CertificateKind.INTERVAL and isinstance(cert.get("detail"), dict):
        record = cert["detail"]
    elif cert.get("kind") == CertificateKind.PROOF and isinstance(
        (cert.get("detail") or {}).get("rest_certificate"), dict
    ):
        record, relations = cert["detail"]["rest_certificate"], cert["detail"].get("relations")
        if not isinstance(relations, list) or not all(_relation_shape(r) for r in relations):
            raise IdentcheckError(param="probe", value=probe_name, reason="malformed relations in its proof")
    else:
        raise IdentcheckError(param="probe", value=probe_name, reason="has no interval certificate")
    detail = IntervalDetail.from_dict(record)
    test = detail.test
    if not len(detail.points) == len(detail.columns) == len(test.column_exponents) == len(test.rows) or test.digits < 1:
        raise IdentcheckError(
            param="probe",
            value=probe_name,
            reason=f"malformed interval record ({len(detail.points)} points, {len(detail.columns)} columns, "
            f"{len(test.column_exponents)} exponents, {len(test.rows)} rows, {test.digits} digits)",
        )
    if test.digits > MAX_REPLAY_DIGITS:
        raise IdentcheckError(
            param="probe",
            value=probe_name,
            reason=f"its record asks for {test.digits} digits, above {MAX_REPLAY_DIGITS} (the most check --certify "
            "uses): not replayed",
        )
    return probe, detail, relations


def _relation_shape(relation) -> bool:
    """``exact`` pairs [label, "p/q"], ``keys`` aligned with them or absent (schema 2: read by label)."""
    return (
        isinstance(relation, dict)
        and isinstance(relation.get("exact"), list)
        and len(relation["exact"]) > 0
        and (
            "keys" not in relation
            or isinstance(relation["keys"], list)
            and len(relation["keys"]) == len(relation["exact"])
        )
        and all(
            isinstance(e, list) and len(e) == 2 and isinstance(e[0], str) and isinstance(e[1], str)
            for e in relation["exact"]
        )
    )
