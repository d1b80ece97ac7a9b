"""A declared model's experiment: the grid of fits (resumable, shardable), its store, its rates and its plot.

The same commands as the hand-written models' (``numeric reproduce --model-file F.toml``, ``merge``,
``rates``, ``plot``), on a store of its own (``declared.sqlite``) that holds one model: its records
keep the declaration's digest and canonical content, so two models never pool.
"""

from .plot import declared_figure, plot_declared
from .rates import DECLARED_RATES_SCHEMA, DeclaredRate, declared_quantities, declared_rates, declared_rates_text
from .store import (
    DECLARED_FILE,
    DECLARED_SCHEMA_VERSION,
    DeclaredRecord,
    DeclaredSettings,
    DeclaredStore,
    merge_declared,
    open_declared,
    read_declared,
)
from .sweep import DeclaredGrid, run_declared

__all__ = [
    "DECLARED_FILE",
    "DECLARED_RATES_SCHEMA",
    "DECLARED_SCHEMA_VERSION",
    "DeclaredGrid",
    "DeclaredRate",
    "DeclaredRecord",
    "DeclaredSettings",
    "DeclaredStore",
    "declared_figure",
    "declared_quantities",
    "declared_rates",
    "declared_rates_text",
    "merge_declared",
    "open_declared",
    "plot_declared",
    "read_declared",
    "run_declared",
]
