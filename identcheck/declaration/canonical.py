"""The canonical form of a declaration and its digest: the key a record keeps so that different
models never pool and the same model always does.

The canonical form is the declaration's content (:meth:`.Declaration.content`: inputs, noise,
shares, parts with their gates, experts, truths and fitted counts, and the loss) after reading —
defaults filled in, numbers as floats (``6`` and ``6.0`` alike), a shift-invariant truth at its
reference atom — as JSON with sorted keys and no spaces. Table keys are sorted, so reordering them
in the TOML file leaves it unchanged; lists (atoms, terms, vectors) keep their order, which means
something. The labels (``name``, ``description``, ``source``) and the notes are left out: two
files declaring the same model under two names pool. The digest is the SHA-256 of that text.

An expert is kept as its text; two spellings of one expression (``a*x1`` and ``x1*a``) are two
contents — the safe side, they never pool.
"""

from __future__ import annotations

import hashlib
import json

from .model import Declaration

__all__ = ["canonical_form", "canonical_json", "digest"]


def canonical_form(declaration: Declaration) -> dict:
    """The content as plain data with sorted keys (a fresh dict)."""
    return json.loads(canonical_json(declaration))


def canonical_json(declaration: Declaration) -> str:
    """The content as compact JSON with sorted keys."""
    return json.dumps(declaration.content(), sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def digest(declaration: Declaration) -> str:
    """The SHA-256 (hex) of :func:`canonical_json`."""
    return hashlib.sha256(canonical_json(declaration).encode("utf-8")).hexdigest()
