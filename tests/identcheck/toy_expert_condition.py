"""A toy condition on experts in one module, declaring its own set recipes (docs/conditions/your-own.md;
tests/identcheck/terms/test_expert_recipe.py). For an expert h(x; θ) and distinct atoms θ_1..θ_k:

    T13 = {∂h/∂θ⁽ᵘ⁾, ∂³h/∂θ⁽ᵘ⁾∂θ⁽ᵛ⁾∂θ⁽ʷ⁾ (u ≤ v ≤ w)}
    XP  = {x⁽ʷ⁾·∂²h/∂θ⁽ᵘ⁾∂θ⁽ᵛ⁾ (u ≤ v), ∂h/∂θ⁽ᵘ⁾·∂²h/∂θ⁽ᵛ⁾∂θ⁽ʷ⁾ (v ≤ w)} ∪ {1}

each linearly independent in x? Third derivatives: the expert must be three times differentiable
(the recipes' order). Everything else — probes, rank, relations and their reach, proofs,
certificates, JSON, replay — is the package's expert machinery, unedited. Registering it is one
line: ``CONDITIONS["toy-expert"] = ToyExpert``.
"""

from identcheck.conditions import Derivatives, ExpertCondition, Product, Scope, SetRecipe, XMultiplied

T13 = SetRecipe("T13", "first and third derivatives", (Derivatives(1), Derivatives(3)))
XP = SetRecipe(
    "XP",
    "x-multiplied second derivatives, products of a first and a second derivative, and the constant 1",
    (XMultiplied(Derivatives(2)), Product(Derivatives(1), Derivatives(2))),
    constants=1,
)


class ToyExpert(ExpertCondition):
    """T13 and XP on the expert's families of atoms."""

    name = "toy-expert"
    sets = (T13, XP)
    h = "g"
    scope = Scope(
        model="a toy: an expert g(x; θ)",
        theorem="none (a test of the expert recipes)",
        identifiable="T13 and XP independent on every probed family of atoms (proofs with --certify).",
        not_identifiable="T13 or XP dependent on a probed family (the witness relation).",
    )
