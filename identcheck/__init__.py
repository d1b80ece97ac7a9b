"""identcheck: does a gate activation φ make the experts of gated attention identifiable?

Builds the Taylor-expansion term sets of the strong-identifiability conditions symbolically,
tests their linear independence on structured parameter probes (escalating borderline cases
to higher precision), and names the degeneracies it finds.

>>> from identcheck import check
>>> print(check("sigmoid(z + 1)").verdict)
identifiable
"""

import importlib
import sys
import types
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    from .activation import Activation, parse_activation, parse_param
    from .check import check
    from .conditions import CONDITIONS, Condition, ProbeMatrix
    from .errors import IdentcheckError
    from .evidence import Certificate, CertificateKind, Evidence, Tolerance, Verdict
    from .probes import Component, Probe, default_probes
    from .report import CheckResult, ProbeResult, Relation
    from .scan import scan
    from .scan_report import ScanResult
    from .terms import Merge, Term, TermSet, type1_term_set, type1_terms

#: Public name → the module that defines it. ``import identcheck`` loads none of them (no sympy,
#: numpy or scipy: ``identcheck --help`` starts in a tenth of a second); a name is imported the
#: first time it is used, ``from identcheck import check`` as before (issue 23 §5).
_API = {
    **dict.fromkeys(("Activation", "parse_activation", "parse_param"), ".activation"),
    "check": ".check",
    **dict.fromkeys(("CONDITIONS", "Condition", "ProbeMatrix"), ".conditions"),
    "IdentcheckError": ".errors",
    **dict.fromkeys(("Certificate", "CertificateKind", "Evidence", "Tolerance", "Verdict"), ".evidence"),
    **dict.fromkeys(("Component", "Probe", "default_probes"), ".probes"),
    **dict.fromkeys(("CheckResult", "ProbeResult", "Relation"), ".report"),
    "scan": ".scan",
    "ScanResult": ".scan_report",
    **dict.fromkeys(("Merge", "Term", "TermSet", "type1_term_set", "type1_terms"), ".terms"),
}
#: Names that are also their module's name (``identcheck.check``): the function, not the submodule.
_SHADOWED = frozenset(name for name, module in _API.items() if module == "." + name)


def __getattr__(name: str):
    if name not in _API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_API[name], __name__), name)
    globals()[name] = value  # imported once
    return value


def __dir__():
    return sorted(set(globals()) | set(_API))


class _Package(types.ModuleType):
    """``identcheck.check`` and ``identcheck.scan`` are the functions, as they were when this module
    imported them eagerly: the import system binds a submodule to its package when it loads it
    (``from .check import run`` anywhere would make ``identcheck.check`` the module), and here it
    does not, for the names in _SHADOWED."""

    def __setattr__(self, name, value):
        if name in _SHADOWED and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "Activation",
    "CONDITIONS",
    "Certificate",
    "CertificateKind",
    "CheckResult",
    "Component",
    "Condition",
    "Evidence",
    "IdentcheckError",
    "Merge",
    "Probe",
    "ProbeMatrix",
    "ProbeResult",
    "Relation",
    "ScanResult",
    "Term",
    "TermSet",
    "Tolerance",
    "Verdict",
    "check",
    "default_probes",
    "parse_activation",
    "parse_param",
    "scan",
    "type1_term_set",
    "type1_terms",
]
__version__ = "0.1.0"
