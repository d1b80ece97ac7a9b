"""The example declarations shipped with identcheck (package data: ``declaration/examples/*.toml``).

=========================  ===============================================================
name                       model
=========================  ===============================================================
``softmax-gaussian-moe``   softmax-gated Gaussian MoE, linear experts (arXiv 2305.03288)
``deepseek-d1``            DeepSeekMoE shared + softmax-routed ReLU experts, loss D1
``deepseek-d2``            DeepSeekMoE shared + softmax-routed linear experts, loss D2
``deepseek-d3``            normalised sigmoid routing, sparse regime, loss D3
``deepseek-d4``            normalised sigmoid routing, dense regime, loss D4 (KL projection)
``least-squares``          softmax-gated sigmoid experts, regression (arXiv 2402.02952)
``mha``                    multi-head attention, model (2) of arXiv 2602.01468, loss L1,r
``setting1``               gated attention's Setting I, model (9) (``gated1``), loss L2
``setting2``               gated attention's Setting II, model (12) (``gated2``), loss L2
``deepseek-gelu``          DeepSeekMoE shared + softmax-routed smooth experts, φ = GELU, loss D1
``deepseek-sigmoid``       the same with φ = sigmoid
``deepseek-tanh``          the same with φ = tanh
=========================  ===============================================================

(arXiv 2505.10860 Appendix G.1 for the DeepSeekMoE declarations; the three of arXiv 2602.01468
carry numeric's default truth. docs/declaration.md shows them in full.) ``gated1`` and ``gated2``,
numeric's model names, read ``setting1`` and ``setting2``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import IdentcheckError
from .keys import suggestion
from .model import Declaration
from .reader import read_declaration

__all__ = ["ALIASES", "EXAMPLES", "example_path", "read_example"]

EXAMPLES = (
    "softmax-gaussian-moe",
    "deepseek-d1",
    "deepseek-d2",
    "deepseek-d3",
    "deepseek-d4",
    "deepseek-d1-gate",
    "deepseek-topk",
    "least-squares",
    "mha",
    "setting1",
    "setting2",
    "deepseek-gelu",
    "deepseek-sigmoid",
    "deepseek-tanh",
)
#: Other names of shipped examples: numeric's model names.
ALIASES = {"gated1": "setting1", "gated2": "setting2"}


def example_path(name: str) -> Path:
    """The path of the shipped example ``name`` (or of its alias, :data:`ALIASES`)."""
    name = ALIASES.get(name, name)
    if name not in EXAMPLES:
        why = f"no such example{suggestion(name, EXAMPLES)}; examples: {', '.join(EXAMPLES)}"
        raise IdentcheckError(param="model", value=name, reason=why)
    return Path(str(resources.files(__package__).joinpath("examples", f"{name}.toml")))


def read_example(name: str, functions: dict | None = None) -> Declaration:
    """The shipped example ``name``, read; ``functions`` replaces its declared functions' texts
    (``read_example("setting1", {"phi": "tanh(z)"})``)."""
    return read_declaration(example_path(name), functions)
