"""identcheck: does a gate activation φ make the experts of gated attention identifiable?

Builds the Taylor-expansion term sets of the strong-identifiability conditions symbolically,
tests their linear independence on structured parameter probes (escalating borderline cases
to higher precision), and names the degeneracies it finds.

>>> from identcheck import check
>>> check("sigmoid(z + 1)").verdict
'identifiable'
"""

from .activation import Activation, parse_activation, parse_param
from .check import CONDITIONS, check
from .errors import IdentcheckError
from .probes import Component, Probe, default_probes
from .report import CheckResult, ProbeResult, Relation
from .terms import Merge, Term, TermSet, type1_term_set


def type1_terms(phi=None, dim: int = 2, params=None):
    """The labelled type-1 terms of one component (after merges), for a generic or given φ.

    Returns a list of (label, sympy expression). With ``phi`` given, φ and its derivatives are
    substituted; without it, φ^(m) appears as ``Phi<m>``.
    """
    import sympy as sp

    from .activation import Z
    from .terms import _PhiDerivative

    term_set = type1_term_set(dim)
    if phi is None:
        return [(t.label, t.expr) for t in term_set.terms]
    derivatives = parse_activation(phi, params).derivatives
    out = []
    for t in term_set.terms:
        expr = t.expr.replace(
            lambda e: isinstance(e, _PhiDerivative), lambda e: derivatives[e.order].subs(Z, e.args[0])
        )
        out.append((t.label, expr))
    return out


__all__ = [
    "Activation",
    "CONDITIONS",
    "CheckResult",
    "Component",
    "IdentcheckError",
    "Merge",
    "Probe",
    "ProbeResult",
    "Relation",
    "Term",
    "TermSet",
    "check",
    "default_probes",
    "parse_activation",
    "parse_param",
    "type1_term_set",
    "type1_terms",
]
__version__ = "0.1.0"
