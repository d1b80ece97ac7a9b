"""identcheck: does a gate activation φ make the experts of gated attention identifiable?

Builds the Taylor-expansion term sets of the strong-identifiability conditions symbolically,
tests their linear independence on structured parameter probes (escalating borderline cases
to higher precision), and names the degeneracies it finds.

>>> from identcheck import check
>>> print(check("sigmoid(z + 1)").verdict)
identifiable
"""

from typing import TYPE_CHECKING

from .util.lazy import lazy_package
from .util.version import project_version

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    __version__: str  # pyproject.toml's version, from the package metadata (identcheck.util.version)
    from .check import check
    from .conditions import CONDITIONS, Condition, ProbeMatrix
    from .errors import IdentcheckError, InputError, Param
    from .evidence import Certificate, CertificateKind, Evidence, Tolerance, Verdict
    from .parse.activation import Activation, parse_activation, parse_param
    from .replay import replay
    from .results import CheckResult, ProbeResult, Relation
    from .scan import ScanResult, scan
    from .terms.probes import Component, Probe, default_probes
    from .terms.type1 import Merge, Term, TermSet, type1_term_set, type1_terms

#: Public name → the module that defines it. ``import identcheck`` loads none of them (no sympy,
#: numpy or scipy: ``identcheck --help`` starts in a tenth of a second); a name is imported the
#: first time it is used (:mod:`identcheck.util.lazy`), and ``from identcheck import check`` works.
_API = {
    **dict.fromkeys(("Activation", "parse_activation", "parse_param"), ".parse.activation"),
    "check": ".check",
    **dict.fromkeys(("CONDITIONS", "Condition", "ProbeMatrix"), ".conditions"),
    **dict.fromkeys(("IdentcheckError", "InputError", "Param"), ".errors"),
    **dict.fromkeys(("Certificate", "CertificateKind", "Evidence", "Tolerance", "Verdict"), ".evidence"),
    **dict.fromkeys(("Component", "Probe", "default_probes"), ".terms.probes"),
    "replay": ".replay",
    **dict.fromkeys(("CheckResult", "ProbeResult", "Relation"), ".results"),
    "scan": ".scan",
    "ScanResult": ".scan",
    **dict.fromkeys(("Merge", "Term", "TermSet", "type1_term_set", "type1_terms"), ".terms.type1"),
}
#: (The text report needs no import here: a result imports it the first time it renders, identcheck.results.)
lazy_package(__name__, _API, computed={"__version__": project_version})

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
    "InputError",
    "Merge",
    "Param",
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
    "replay",
    "scan",
    "type1_term_set",
    "type1_terms",
]
