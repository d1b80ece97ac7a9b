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
=========================  ===============================================================

(arXiv 2505.10860 Appendix G.1 for the four DeepSeekMoE declarations; docs/declaration.md shows
them in full.)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from ..errors import IdentcheckError
from .keys import suggestion
from .model import Declaration
from .reader import read_declaration

__all__ = ["EXAMPLES", "example_path", "read_example"]

EXAMPLES = ("softmax-gaussian-moe", "deepseek-d1", "deepseek-d2", "deepseek-d3", "deepseek-d4", "least-squares")


def example_path(name: str) -> Path:
    """The path of the shipped example ``name``."""
    if name not in EXAMPLES:
        why = f"no such example{suggestion(name, EXAMPLES)}; examples: {', '.join(EXAMPLES)}"
        raise IdentcheckError(param="model", value=name, reason=why)
    return Path(str(resources.files(__package__).joinpath("examples", f"{name}.toml")))


def read_example(name: str) -> Declaration:
    """The shipped example ``name``, read."""
    return read_declaration(example_path(name))
