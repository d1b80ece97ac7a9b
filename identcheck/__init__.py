"""identcheck: does a gate activation φ make the experts of gated attention identifiable?

Builds the Taylor-expansion term sets of the strong-identifiability conditions symbolically,
tests their linear independence on structured parameter probes (escalating borderline cases
to higher precision), and names the degeneracies it finds.

>>> from identcheck import check
>>> print(check("sigmoid(z + 1)").verdict)
identifiable
"""

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
