"""Ground truths: a data file (JSON) holding G* = (ω*, M*, a*), φ and the noise level ν.

The shipped truth, ``truths/default.json``, is our own choice for the paper's Section 5 setting
(d = 2, H = 2, N = 2, K* = 2, φ = sigmoid, ν = 0.1): the paper's Appendix D table is not in our
copy. It satisfies (A.1)–(A.5) and is chosen so that the signal dominates the noise for every
model: Var f*(X)/ν² ≈ 339 (mha), 14 (gated1), 16 (gated2). File format::

    {"name": str, "description": str, "phi": "sigmoid(z)", "noise_std": 0.1,
     "omega": [H][K], "M": [H][N][d][d] (symmetric, M[h][N-1] = 0), "a": [H][N][K][d]}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .params import HMoEParams, NumericError

__all__ = ["Truth", "load_truth", "DEFAULT_TRUTH"]

DEFAULT_TRUTH = Path(__file__).with_name("truths") / "default.json"
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

    def signal_to_noise(self, model, n: int = 100_000, seed: int = 0) -> float:
        """Var f*(X) / ν² for X ~ Uniform([−1, 1]^d), by Monte Carlo with ``n`` points."""
        X = np.random.default_rng(seed).uniform(-1, 1, size=(n, self.params.dim))
        return float(model.value(self.params, X).var() / self.noise_std**2)


def load_truth(path: str | Path | None = None) -> Truth:
    """Read and validate a truth file; errors name the file, the field and the assumption."""
    path = Path(path) if path is not None else DEFAULT_TRUTH
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise NumericError(f"--truth {str(path)!r}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NumericError(f"--truth {str(path)!r}: cannot read ({exc})") from None
    except json.JSONDecodeError as exc:
        raise NumericError(f"--truth {str(path)!r}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict):
        raise NumericError(f"--truth {str(path)!r}: expected a JSON object")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        raise NumericError(f"--truth {str(path)!r}: missing field {missing[0]!r}")
    try:
        arrays = {k: np.array(data[k], dtype=float) for k in _REQUIRED}
    except (TypeError, ValueError):
        raise NumericError(f"--truth {str(path)!r}: omega, M and a must be nested lists of numbers of regular shape") from None
    noise = data.get("noise_std", 0.1)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not np.isfinite(noise) or noise < 0:
        raise NumericError(f"--truth {str(path)!r}: noise_std={noise!r} must be a number >= 0")
    phi = data.get("phi", "sigmoid(z)")
    if not isinstance(phi, str):
        raise NumericError(f"--truth {str(path)!r}: phi must be a string such as 'sigmoid(z)'")
    params = HMoEParams(arrays["omega"], arrays["M"], arrays["a"]).validate(f"--truth {str(path)!r}")
    return Truth(
        name=str(data.get("name", path.stem)),
        params=params,
        phi=phi,
        noise_std=float(noise),
        description=str(data.get("description", "")),
        source=str(path),
    )
