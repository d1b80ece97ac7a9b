"""Ground truths: a data file (JSON) holding G* = (ω*, M*, a*), φ and the noise level ν.

The shipped truth, ``truths/default.json``, is our own choice for the paper's Section 5 setting
(d = 2, H = 2, N = 2, K* = 2, φ = sigmoid, ν = 0.1): the paper's Appendix D table is not in our
copy. It satisfies (A.1)–(A.5) and is chosen so that the signal dominates the noise for every
model: Var f*(X)/ν² ≈ 339 (mha), 14 (gated1), 16 (gated2). File format::

    {"name": str, "description": str, "phi": "sigmoid(z)", "phi_params": {"b": "1"} (optional),
     "noise_std": 0.1, "omega": [H][K], "M": [H][N][d][d] (symmetric, M[h][N-1] = 0), "a": [H][N][K][d]}

A file is read only up to :data:`MAX_TRUTH_BYTES`; φ is parsed by identcheck's parser (never
evaluated) and must be real and finite on the range a fit can reach.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from identcheck import IdentcheckError, parse_activation
from identcheck.errors import InputError

from .attention import Model, as_numeric_error, exact_constants
from .attention_params import HMoEParams, NumericError

__all__ = ["Truth", "load_truth", "DEFAULT_TRUTH", "TRUTHS", "MIN_SIGNAL_TO_NOISE", "MAX_TRUTH_BYTES"]

TRUTHS_FOLDER = Path(__file__).with_name("truths")
#: The shipped ground truth of the paper's Section 5 setting (d = 2, H = 2, N = 2, K* = 2, φ = sigmoid).
DEFAULT_TRUTH = TRUTHS_FOLDER / "default.json"
#: Shipped truths by name (``--truth NAME`` or a path).
TRUTHS = {p.stem: p for p in sorted(TRUTHS_FOLDER.glob("*.json"))}
#: Var f*(X)/ν² below this and the experiment measures mostly noise (docs/method.md §10); refused unless allowed.
MIN_SIGNAL_TO_NOISE = 10.0
#: ν above this swamps any signal a truth of finite parameters can carry (and overflows ν²).
MAX_NOISE_STD = 1e3
#: A truth file is a few kB; anything above this is refused before reading.
MAX_TRUTH_BYTES = 1_000_000
_REQUIRED = ("omega", "M", "a")


@dataclass(frozen=True)
class Truth:
    """A validated ground truth."""

    name: str
    params: HMoEParams = field(repr=False)
    phi: str
    noise_std: float
    description: str = field(default="", repr=False)
    source: str = ""
    phi_params: dict = field(default_factory=dict)

    def with_phi(self, phi: str, params: dict | None = None) -> "Truth":
        """The same parameters with another φ (and its constants), checked as a truth file's φ is:
        parsed, then real and C² on the range of aᵀx (the domain check every command shares)."""
        check_phi(phi, params or {})
        check_phi_range(phi, tuple(sorted((k, str(v)) for k, v in (params or {}).items())), phi_bound(self.params))
        return dataclasses.replace(self, phi=phi, phi_params=dict(params or {}), name=f"{self.name}")

    @property
    def phi_text(self) -> str:
        """φ as shown: its text with its constants, e.g. ``sigmoid(z + b) [b=1]``."""
        if not self.phi_params:
            return self.phi
        return self.phi + " [" + ", ".join(f"{k}={v}" for k, v in sorted(self.phi_params.items())) + "]"

    def to_dict(self) -> dict:
        """The truth's content, as in its file (what a fit's result depends on)."""
        return {
            "name": self.name,
            "phi": self.phi,
            "phi_params": {k: str(v) for k, v in sorted(self.phi_params.items())},
            "noise_std": self.noise_std,
            **self.params.to_dict(),
        }

    def model(self, kind: str) -> Model:
        return Model(kind, self.phi, self.phi_params)

    def signal_to_noise(self, model, n: int = 100_000, seed: int = 0) -> float:
        """Var f*(X) / ν² for X ~ Uniform([−1, 1]^d), by Monte Carlo with ``n`` points."""
        X = np.random.default_rng(seed).uniform(-1, 1, size=(n, self.params.dim))
        return float(model.value(self.params, X).var() / self.noise_std**2)


def phi_bound(params) -> float:
    """The range φ must be C² on for these parameters: max |aᵀx| over x in [−1, 1]^d (at least 1)."""
    return round(max(float(np.abs(params.a).sum(axis=-1).max()), 1.0), 6)


@lru_cache(maxsize=64)
def check_phi_range(phi: str, params: tuple, bound: float) -> None:
    """φ, φ', φ'' real and finite on [−bound, bound] (the range of aᵀx); params as sorted (name, value) pairs."""
    try:
        parse_activation(phi, exact_constants(params)).check_domain(bound)
    except IdentcheckError as exc:  # its param, value and reason kept: the command line reads --phi
        raise as_numeric_error(exc, f" (|a.x| reaches {bound:g} on the data)") from None


def check_phi(phi, params: dict, source: str | None = None) -> None:
    """φ must parse (identcheck's whitelist parser) with its constants. Errors keep identcheck's
    param, value and reason (``phi='foo(z)': unknown function …``, read as ``--phi`` by the command
    line); φ read from a file (``source``, e.g. ``truth 'x.json'``) is named by the file instead."""
    if not isinstance(phi, str):
        if source is not None:
            raise NumericError(f"{source}: phi must be a string such as 'sigmoid(z)'")
        raise NumericError(param="phi", value=phi, reason="must be a string such as 'sigmoid(z)'")
    try:
        parse_activation(phi, exact_constants(params))
    except InputError as exc:
        if source is not None:  # no flag of the command line holds it: the file's words, as text
            raise NumericError(f"{source}: {_for_a_fit(str(exc))}") from None
        raise as_numeric_error(exc, reword=_for_a_fit) from None


def _for_a_fit(reason: str) -> str:
    """identcheck's parser says what *the condition* needs of φ; a fit has no condition: what the fit needs
    (the models evaluate φ and φ', identcheck's check of the fitted φ φ'' too)."""
    return reason.replace("the condition needs", "a fit needs")


def load_truth(path: str | Path | None = None) -> Truth:
    """Read and validate a truth file (a path, or the name of a shipped truth).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        A JSON truth file, or the name of a shipped one (``"default"``, ``"local_sigmoid"``,
        ``"local_sigmoid_b1"``); default :data:`DEFAULT_TRUTH`.

    Returns
    -------
    Truth

    Raises
    ------
    NumericError
        Naming the file, the field and the violated assumption (A.1)–(A.5).
    """
    if path is not None and str(path) in TRUTHS:
        path = TRUTHS[str(path)]
    path = Path(path) if path is not None else DEFAULT_TRUTH
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_TRUTH_BYTES + 1)
        if len(raw) > MAX_TRUTH_BYTES:
            raise NumericError(
                f"truth {str(path)!r}: larger than {MAX_TRUTH_BYTES:,} bytes; a truth file holds a few numbers"
            )
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise NumericError(f"truth {str(path)!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NumericError(f"truth {str(path)!r}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise NumericError(f"truth {str(path)!r}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    return truth_from_dict(data, str(path), default_name=path.stem)


def truth_from_dict(data, source: str, default_name: str = "truth") -> Truth:
    """Validate a truth's content (a truth file's JSON object); errors name ``source``."""
    path = source
    if not isinstance(data, dict):
        raise NumericError(f"truth {str(path)!r}: expected a JSON object")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise NumericError(f"truth {str(path)!r}: missing field {missing[0]!r}")
    try:
        arrays = {k: np.array(data[k], dtype=float) for k in _REQUIRED}
    except (TypeError, ValueError):
        raise NumericError(
            f"truth {str(path)!r}: omega, M and a must be nested lists of numbers of regular shape"
        ) from None
    noise = data.get("noise_std", 0.1)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise <= MAX_NOISE_STD:
        raise NumericError(f"truth {str(path)!r}: noise_std={noise!r} must be a number from 0 to {MAX_NOISE_STD:g}")
    phi = data.get("phi", "sigmoid(z)")
    phi_params = data.get("phi_params", {})
    if not isinstance(phi_params, dict) or not all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in phi_params.values()
    ):
        raise NumericError(f'truth {str(path)!r}: phi_params must map names to numbers, e.g. {{"b": 1}}')
    check_phi(phi, phi_params, f"truth {str(path)!r}")
    params = HMoEParams(arrays["omega"], arrays["M"], arrays["a"]).validate(f"truth {str(path)!r}")
    try:
        check_phi_range(phi, tuple(sorted((k, str(v)) for k, v in phi_params.items())), phi_bound(params))
    except NumericError as exc:
        raise NumericError(f"truth {str(path)!r}: {exc}") from None
    return Truth(
        name=str(data.get("name", default_name)),
        params=params,
        phi=phi,
        noise_std=float(noise),
        description=str(data.get("description", "")),
        source=str(source),
        phi_params=dict(phi_params),
    )
