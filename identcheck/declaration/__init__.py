"""A mixture of experts as one declaration: parts, gates, experts, noise, inputs, truth, fitted
counts and loss as data (docs/declaration.md), read from TOML, validated at the boundary, with a
canonical form and its digest, and the model's per-atom functions in sympy.

Nested parts (:mod:`.nested`) — an expert that is a function of an inner mixture, parameters tied
within groups of atoms — and declared functions (``phi = "sigmoid(z)"``) express the multi-head
attention and gated attention models of arXiv 2602.01468 (``read_example("setting1")``).

The one parser both halves read: numeric builds its array code, fits and losses on it, and the
model-level identifiability check takes its Taylor terms from :func:`atom_functions`.

>>> from identcheck.declaration import read_example, digest
>>> model = read_example("deepseek-d2")
>>> [(part.name, len(part.truth), part.fitted) for part in model.parts]
[('routed', 2, 3), ('shared', 1, 2)]
"""

from .canonical import canonical_form, canonical_json, digest
from .gates import GATES, GateKind, GateParameter
from .loss import Exponent, Loss, PartErrors, PartLoss, Term
from .model import Atom, Declaration, ExpertSpec, Gate, Inputs, Noise, Note, Part
from .nested import Groups, Inner
from .reader import SUM_TOLERANCE, parse_declaration, read_declaration
from .shipped import EXAMPLES, example_path, read_example
from .symbolic import AtomFunctions, atom_functions, gate_weights, model_function, part_layout, truth_values

__all__ = [
    "EXAMPLES",
    "GATES",
    "SUM_TOLERANCE",
    "Atom",
    "AtomFunctions",
    "Declaration",
    "ExpertSpec",
    "Exponent",
    "Gate",
    "GateKind",
    "GateParameter",
    "Groups",
    "Inner",
    "Inputs",
    "Loss",
    "Noise",
    "Note",
    "Part",
    "PartErrors",
    "PartLoss",
    "Term",
    "atom_functions",
    "canonical_form",
    "canonical_json",
    "digest",
    "example_path",
    "gate_weights",
    "model_function",
    "parse_declaration",
    "part_layout",
    "read_declaration",
    "read_example",
    "truth_values",
]
