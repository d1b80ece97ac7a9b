"""Compare a check's JSON with a golden copy, each kind of value with the tolerance it deserves.

The golden files pin the JSON field for field; what "the same value" means depends on where
the value comes from:

- **Exact** — keys, list lengths, strings (verdicts, labels, exact rationals, relation texts
  of templated relations), integers (counts, digits asked), booleans, null.
- **Floats: ``|x − y| ≤ FLOAT_ATOL + FLOAT_RTOL·max(|x|, |y|)``.** The floats of the JSON are
  singular values of unit-column matrices (float64 LAPACK, or arb/mpmath at 30–120 digits),
  interval bounds, relation coefficients of templates (exact rationals as floats), tolerances
  and the domain. A float64 SVD of B (unit columns, s_1 ≤ √T ≤ 16) moves its singular values
  by about eps·s_1·√n ≈ 1e-14 *absolute* between BLAS builds and CPU kernels — which for a
  σ_min of 6.5e-8 is already 1e-9 *relative* (observed: 5.1609537562e-06 against
  5.1609537561e-06). Hence an absolute ``FLOAT_ATOL`` = 1e-12 (100× that error) and a relative
  ``FLOAT_RTOL`` = 1e-9 for everything above it (bounds built from a float64 approximate
  inverse, whose relative error is a few eps). Below 1e-12 a value stays below it with its sign;
  a singular value that collapsed at p digits (below 10^-p) must collapse again at the same p —
  its size below that depends on the float64 rotation the high-precision step starts from (7.2e-82
  on one kernel, 1.4e-71 on another).
  A change of a value by more than this — a different margin, a different rational, a different
  digit count — turns the test red.
- **Relations** are canonical (identcheck/families/echelon.py: the reduced echelon basis of a null
  space in term order, for raw relations, a certificate's recovered relations and type-2's
  kept columns), so they are compared one by one: labels, texts and exact rationals exactly;
  the float coefficients of a relation without exact ones (``exact`` null: not rational) with
  ``NULL_VECTOR_TOL``·max(1, |c|), 1e-6 — the accuracy of a float64 null vector that
  identcheck itself assumes when it recognises a template in a null space
  (:data:`identcheck.families.relations.IN_NULL_SPACE`) — and their six-digit ``text`` not at all; their
  structural ``keys`` (schema 3) exactly. A relation list is found by its key wherever it sits
  (type-2's ``phi_free_relations`` is in a probe's ``details``).
  (Before the echelon form, another LAPACK returned another basis of the same null space:
  ∂ū/∂M12[1] − ∂ū/∂M12[2] + 1/2·∂²ū/∂M12∂a2[2] on one machine, a four-term combination on
  another.)
- **Interval records** (a certificate's or a rank decision's proof of full column rank: the
  rows and columns of a square minor, its column scaling, the precision, the bounds) record
  *choices* made from float64 — the minor from pivoting, the precision from float64's
  σ_min (``interval.start_digits``: 2·log10(1/σ) + 20 digits, and a σ at the noise floor
  moves between machines: 53 digits here, 52 under OpenBLAS's Prescott kernel). Another
  machine may make another choice, an equally valid proof with other bounds. They are
  compared by what does not depend on those choices — the keys, ``proved``, ``method``, the
  minor's size — and by what makes them a proof (``residual_bound < 1`` and
  ``sigma_min_lower_bound > 0`` when proved); the golden test also replays every fresh
  interval certificate (:func:`identcheck.rank.certificates.replay`).
- ``environment`` (the versions and BLAS that computed the result) differs between machines
  by design: only its keys are compared.
- A probe's ``relation`` (its first relation's terms) like the terms of a relation without
  exact coefficients.

Report *text* (:func:`assert_text_matches`) prints margins at three significant digits
(``4.82e-03``); a value within rounding of a printing boundary may print one unit apart on
another machine. Numbers in scientific notation are compared within one unit of their last
printed digit; everything else in the text exactly.

``assert_json_matches(golden, fresh)`` raises ``AssertionError`` naming the JSON path of the
first difference.
"""

from __future__ import annotations

import math
import re

FLOAT_ATOL = 1e-12
FLOAT_RTOL = 1e-9
NULL_VECTOR_TOL = 1e-6
RELATION_LISTS = ("relations", "phi_free_relations")
IGNORED = ("seconds",)
INTERVAL_RECORD = "column_exponents"  # the key that marks an interval record


def assert_json_matches(golden, fresh, path="$"):
    """Raise AssertionError at the first value of ``fresh`` that differs from ``golden``."""
    if isinstance(golden, dict) and INTERVAL_RECORD in golden:
        _interval_record_matches(golden, fresh, path)
    elif isinstance(golden, dict):
        _require(isinstance(fresh, dict), path, golden, fresh)
        g_keys = [k for k in golden if k not in IGNORED]
        f_keys = [k for k in fresh if k not in IGNORED]
        _require(g_keys == f_keys, path, f"keys {g_keys}", f"keys {f_keys}")
        for key in g_keys:
            sub = f"{path}.{key}"
            if key in RELATION_LISTS and isinstance(golden[key], list):
                _relations_match(golden[key], fresh[key], sub)
            elif key == "environment" and isinstance(golden[key], dict):
                _environment_matches(golden[key], fresh[key], sub)
            elif key == "relation" and golden[key] is not None:
                _terms_match(golden[key], fresh[key], sub)
            elif key == "smallest_singular_value" and _collapsed(golden):
                _collapsed_matches(golden, fresh, sub)
            else:
                assert_json_matches(golden[key], fresh[key], sub)
    elif isinstance(golden, list):
        _require(isinstance(fresh, list) and len(golden) == len(fresh), path, f"{len(golden)} items", _length(fresh))
        for i, (g, f) in enumerate(zip(golden, fresh)):
            assert_json_matches(g, f, f"{path}[{i}]")
    elif isinstance(golden, float) and not isinstance(golden, bool):
        _require(isinstance(fresh, (int, float)) and not isinstance(fresh, bool), path, golden, fresh)
        _require(floats_close(golden, float(fresh)), path, golden, fresh)
    else:
        _require(type(golden) is type(fresh) and golden == fresh, path, golden, fresh)


def _digits(record) -> int | None:
    return record.get("precision_digits", record.get("digits"))


def _collapsed(record) -> bool:
    """A singular value recorded below 10^-p at the p digits it was computed with: a collapse."""
    digits, value = _digits(record), record.get("smallest_singular_value")
    return isinstance(digits, int) and digits > 16 and isinstance(value, float) and value < 10.0**-digits


def _collapsed_matches(golden, fresh, path):
    """A collapsed value depends on the float64 rotation the high-precision Schur step starts from:
    seen 7.2e-82 on one kernel and 1.4e-71 on another at 60 digits. What is pinned is the
    collapse: 0 ≤ fresh < 10^-p at the same p."""
    digits, value = _digits(fresh), fresh.get("smallest_singular_value")
    _require(digits == _digits(golden), path, f"collapsed at {_digits(golden)} digits", f"{digits} digits")
    _require(isinstance(value, (int, float)) and 0 <= value < 10.0**-digits, path, f"< 1e-{digits}", value)


def floats_close(x: float, y: float) -> bool:
    """``|x − y| ≤ FLOAT_ATOL + FLOAT_RTOL·max(|x|, |y|)`` (and equal infinities, NaN with NaN);
    a tiny value (|x| < FLOAT_ATOL) stays tiny and keeps its sign (a collapsed singular value is
    compared by its collapse, :func:`_collapsed_matches`)."""
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    if abs(x) < FLOAT_ATOL:
        return abs(y) < FLOAT_ATOL and x * y >= 0
    return abs(x - y) <= FLOAT_ATOL + FLOAT_RTOL * max(abs(x), abs(y))


def _environment_matches(golden, fresh, path):
    """Versions and BLAS differ between machines by design: only the layout is pinned."""
    _require(isinstance(fresh, dict) and list(golden) == list(fresh), path, f"keys {list(golden)}", fresh)
    layouts = [sorted({tuple(lib) for lib in side.get("blas", [])}) for side in (golden, fresh)]
    _require(
        all(len(layout) <= 1 for layout in layouts) and layouts[0] == layouts[1], f"{path}.blas", layouts[0], layouts[1]
    )


def _interval_record_matches(golden, fresh, path):
    _require(isinstance(fresh, dict) and list(golden) == list(fresh), path, f"keys {list(golden)}", fresh)
    for key in ("proved", "method"):
        if key in golden:
            assert_json_matches(golden[key], fresh[key], f"{path}.{key}")
    for key in ("rows", "columns", "points", "column_exponents"):
        if key in golden:
            _require(len(golden[key]) == len(fresh[key]), f"{path}.{key}", _length(golden[key]), _length(fresh[key]))
    if fresh.get("proved"):
        _require(fresh["residual_bound"] < 1, f"{path}.residual_bound", "< 1", fresh["residual_bound"])
        _require(
            fresh["sigma_min_lower_bound"] > 0, f"{path}.sigma_min_lower_bound", "> 0", fresh["sigma_min_lower_bound"]
        )


def _relations_match(golden, fresh, path):
    _require(isinstance(fresh, list) and len(golden) == len(fresh), path, f"{len(golden)} relations", _length(fresh))
    for i, (g, f) in enumerate(zip(golden, fresh)):
        sub = f"{path}[{i}]"
        if not isinstance(g, dict) or g.get("exact") is not None:
            assert_json_matches(g, f, sub)
            continue
        _require(isinstance(f, dict) and list(g) == list(f), sub, f"keys {list(g)}", f)
        for key in g:
            if key == "terms":
                _terms_match(g[key], f[key], f"{sub}.terms")
            elif key != "text":
                assert_json_matches(g[key], f[key], f"{sub}.{key}")


def _terms_match(golden, fresh, path):
    """[label, float] pairs of a null vector: the same labels, coefficients within NULL_VECTOR_TOL."""
    _require(isinstance(fresh, list) and [t[0] for t in golden] == [t[0] for t in fresh], path, golden, fresh)
    for (label, g), (_, f) in zip(golden, fresh):
        _require(abs(g - f) <= NULL_VECTOR_TOL * max(1.0, abs(g)), f"{path}[{label}]", g, f)


def _length(value):
    return f"{len(value)} items" if isinstance(value, list) else repr(value)


def _require(ok, path, expected, got):
    if not ok:
        raise AssertionError(f"{path}: golden {expected!r}, fresh {got!r}")


SCIENTIFIC = re.compile(r"-?\d\.(\d+)e[+-]\d+")


def assert_text_matches(golden: str, fresh: str):
    """Line by line: the same text, numbers in scientific notation within one printed unit."""
    g_lines, f_lines = golden.splitlines(), fresh.splitlines()
    _require(len(g_lines) == len(f_lines), "text", f"{len(g_lines)} lines", f"{len(f_lines)} lines")
    for n, (g, f) in enumerate(zip(g_lines, f_lines), 1):
        where = f"line {n}"
        _require(SCIENTIFIC.sub("#", g) == SCIENTIFIC.sub("#", f), where, g, f)
        for gm, fm in zip(SCIENTIFIC.finditer(g), SCIENTIFIC.finditer(f)):
            unit = 10.0 ** (int(gm.group(0).split("e")[1]) - len(gm.group(1)))
            _require(abs(float(gm.group(0)) - float(fm.group(0))) <= unit * 1.000001, where, g, f)
