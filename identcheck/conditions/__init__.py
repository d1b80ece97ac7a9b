"""The registry of conditions: name → :class:`~identcheck.conditions.base.Condition` subclass.

Adding a condition is one module in this package and one entry here (docs/architecture.md).
"""

from .base import Condition, ProbeMatrix
from .deepseek import DeepSeekRouted, DeepSeekShared, DeepSeekWeak
from .mha import MHA
from .type1 import Type1
from .type1_full import Type1Full
from .type2 import Type2

__all__ = ["CONDITIONS", "Condition", "ProbeMatrix"]

#: type1: Setting I (gate after the value projection); type2: Setting II (after the SDPA output);
#: mha: no gate, the linear expert u = exp(xᵀMx)·aᵀx (the contrast: PDE (5) makes it fail);
#: type1-full: T1 ∪ the softmax-denominator terms of Theorem 2's decomposition (Appendix B.2);
#: deepseek-shared / -routed / -weak: an expert h(x; θ)'s sets of arXiv 2505.10860 (Definitions 1 and 2).
CONDITIONS: dict[str, type[Condition]] = {
    "type1": Type1, "type2": Type2, "mha": MHA, "type1-full": Type1Full,
    "deepseek-shared": DeepSeekShared, "deepseek-routed": DeepSeekRouted, "deepseek-weak": DeepSeekWeak,
}
