"""``numeric confirm``: the numeric confirmation of identcheck's verdict (docs/confirm.md).

One module per concept:

- :mod:`~numeric.confirm.run` — :func:`confirm`: the check, the witness paths, the ratio curves,
  the rates, the outcome;
- :mod:`~numeric.confirm.expert_run` — :func:`confirm_expert`: the same for an expert condition in
  the DeepSeekMoE declaration (:mod:`~numeric.confirm.expert_model`, :mod:`~numeric.confirm.expert_paths`,
  :mod:`~numeric.confirm.expert_rates`);
- :mod:`~numeric.confirm.result` — :class:`Sequence`, :data:`OUTCOMES`, :class:`ConfirmResult`
  and the other result types;
- :mod:`~numeric.confirm.outcome` — the paths' outcome from identcheck's verdict;
- :mod:`~numeric.confirm.rates` — the rate grids at the witness and a generic truth, their separation;
- :mod:`~numeric.confirm.plot` — the figures (matplotlib, imported when drawn);
- :mod:`~numeric.confirm.cli` — the command line (an entry point: it imports the rest when it runs).

Names are imported on first use (:mod:`identcheck.util.lazy`): ``numeric --help`` imports
``numeric.confirm.cli`` and, through this package, nothing heavy.
"""

from typing import TYPE_CHECKING

from identcheck.util.lazy import lazy_package

if TYPE_CHECKING:  # the public API, for readers and type checkers; at run time __getattr__ imports it on first use
    from .expert_run import ExpertConfirmResult, confirm_expert
    from .rates import SNR_TARGET
    from .result import OUTCOMES, SLOPE_TO_ZERO, ConfirmResult, RateRow, Sequence
    from .run import FULL_BUDGET, FULL_SIZES, QUICK_BUDGET, QUICK_SIZES, T_VALUES, confirm

_API = {
    "SNR_TARGET": ".rates",
    **dict.fromkeys(("ExpertConfirmResult", "confirm_expert"), ".expert_run"),
    **dict.fromkeys(("OUTCOMES", "SLOPE_TO_ZERO", "ConfirmResult", "RateRow", "Sequence"), ".result"),
    **dict.fromkeys(("FULL_BUDGET", "FULL_SIZES", "QUICK_BUDGET", "QUICK_SIZES", "T_VALUES", "confirm"), ".run"),
}
lazy_package(__name__, _API)

__all__ = [
    "ConfirmResult",
    "ExpertConfirmResult",
    "FULL_BUDGET",
    "FULL_SIZES",
    "OUTCOMES",
    "QUICK_BUDGET",
    "QUICK_SIZES",
    "RateRow",
    "SLOPE_TO_ZERO",
    "SNR_TARGET",
    "Sequence",
    "T_VALUES",
    "confirm",
    "confirm_expert",
]
