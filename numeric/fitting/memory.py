"""How much memory a fit may use and will use, checked before any allocation.

Before any allocation a fit's peak memory is estimated (:func:`estimate_bytes`) and
refused above the budget (:func:`memory_budget`: half the machine's memory, or the environment
variable ``NUMERIC_MEMORY_BUDGET_MB``).
"""

from __future__ import annotations

import math
import os

from ..losses.regression_error import MC_POINTS
from ..model.attention import CHUNK
from ..model.attention_params import NumericError

__all__ = ["memory_budget", "estimate_bytes"]


def memory_budget() -> int:
    """Bytes a fit may use: ``NUMERIC_MEMORY_BUDGET_MB`` if set, else half the machine's memory."""
    text = os.environ.get("NUMERIC_MEMORY_BUDGET_MB")
    if text is not None:
        try:
            value = float(text)
        except ValueError:
            value = -1.0
        if not (value > 0 and math.isfinite(value)):
            raise NumericError(f"NUMERIC_MEMORY_BUDGET_MB={text!r}: must be a positive number of megabytes")
        return int(value * 2**20)
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2)
    except (ValueError, OSError, AttributeError):  # not a POSIX system: assume 8 GB
        return 8 * 2**30


def estimate_bytes(optimizer: str, n: int, H: int, N: int, K: int, d: int) -> int:
    """Peak memory of one fit, in bytes (a conservative estimate, checked before allocating).

    Data: X, Y, residuals and a trial residual, n·(d + 3) floats. ``lm`` adds a block of the
    Jacobian and its temporaries (:data:`numeric.model.attention.CHUNK` rows); ``gd`` holds the forward
    pass's per-sample arrays, about 8·H·N·K·n floats (measured: 7.3); ``trf`` (scipy) the whole n × P Jacobian
    and its scaled copy and SVD factors, about six times.
    """
    P = H * K + H * (N - 1) * d * (d + 1) // 2 + H * N * K * d
    data = n * (d + 3) * 8 + MC_POINTS * (d + 2) * 8
    block = min(n, CHUNK)
    if optimizer == "lm":
        work = 4 * block * P * 8 + 6 * H * N * K * block * 8
    elif optimizer == "gd":
        work = 8 * H * N * K * n * 8 + 4 * H * N * n * 8  # measured 938 B/sample at H=N=2, K=4 (tracemalloc)
    else:
        work = 6 * n * P * 8
    return int(data + work + 100 * 2**20)  # + the interpreter and libraries
