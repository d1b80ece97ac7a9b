r"""The paper's three attention models, as records: everything numeric asks about one of them.

With σ_{h,i} = softmax_i(xᵀM_{h,i}x) and s_{h,i,k}(x) = a_{h,i,k}ᵀx (docs/method.md §7):

- ``mha``,    model (2):  f(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} s_{h,i,k}          (no gate φ)
- ``gated1``, model (9):  g(x) = Σ_h Σ_k ω_{h,k} Σ_i σ_{h,i} φ(s_{h,i,k})       (φ after the values)
- ``gated2``, model (12): g(x) = Σ_h Σ_k ω_{h,k} φ(Σ_i σ_{h,i} s_{h,i,k})       (φ after the attention output)

Each is a shipped declaration (identcheck/declaration/examples/NAME.toml, docs/numeric.md "The
three models as declarations") and one :class:`ShippedModel` here, keyed by the name the command
line offers (:data:`SHIPPED`, in the order of the paper's equations: the sweep's seeds read the
position). A module elsewhere in numeric reads the record — ``SHIPPED[name].has_phi``,
``.loss_kind``, ``.condition`` — or the structural attribute a model object takes from it
(``Model.phi_after``), never the name: tests/numeric/test_model_names.py fails on a shipped name
spelled out anywhere else in the package. This module imports nothing heavy (``numeric --help``
lists the names without numpy; :mod:`numeric.errors` imports nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from .errors import NumericError

__all__ = ["AFTER_OUTPUT", "AFTER_VALUES", "SHIPPED", "ShippedModel", "shipped_model"]

#: Where a model applies its gate φ: to each value projection a_{h,i,k}ᵀx (Setting I), or to the
#: attention output, the inner mixture F_{h,k} = Σ_i σ_{h,i} a_{h,i,k}ᵀx (Setting II).
AFTER_VALUES, AFTER_OUTPUT = "values", "output"


@dataclass(frozen=True)
class ShippedModel:
    """One of the paper's attention models: its structure, its theory and how numeric shows it.

    ``phi_after``: None (linear experts, no φ), :data:`AFTER_VALUES` or :data:`AFTER_OUTPUT`.
    ``condition``: the identcheck condition that certifies φ for the model's theorem (None: no φ).
    ``loss_kind``: its channel-level Voronoi loss, ``"L1"`` (L1,r) or ``"L2"``
    (:func:`numeric.losses.attention_voronoi.voronoi_loss`). ``exponents``: the quantities a rate is
    fitted to for it (:data:`numeric.losses.attention_cells.QUANTITIES`) with the exponent α of
    (log n / n)^α the theory gives (None: no power law). ``paper_slopes``: the paper's Figure-1
    slope by K. ``local_legs``: the truths of the ``local`` preset it is fitted to, each with its K
    offsets from K* (empty: the preset's). ``recombination_note`` / ``recombination_short``: why
    re-paired channels are (or are not) an invariance of the model, in a table and in one phrase
    (None: confirm never runs the model).
    """

    name: str
    equation: str
    declaration: str
    title: str
    phi_after: str | None
    condition: str | None
    loss_kind: str
    exponents: Mapping[str, float | None]
    paper_slopes: Mapping[int, float]
    local_legs: tuple
    recombination_note: str
    recombination_short: str | None = None

    @property
    def has_phi(self) -> bool:
        """Whether the model has a gate activation φ (its experts are not linear)."""
        return self.phi_after is not None

    @property
    def channels_through_measures(self) -> bool:
        """Whether g depends on the channels only through the per-(head, gate) measures
        μ_{h,i} = Σ_k ω_{h,k} δ_{a_{h,i,k}} (φ, if any, acts on one atom's a_{h,i,k}ᵀx): then a
        re-pairing of channels that keeps every μ_{h,i} keeps g (numeric.confirm.recombination)."""
        return self.phi_after != AFTER_OUTPUT

    def applies(self, quantity: str) -> bool:
        """Whether a rate of ``quantity`` is measured for this model."""
        return quantity in self.exponents

    def loss_name(self, r: str = "r") -> str:
        """The channel-level loss as printed: ``L1,r`` (with ``r`` as given) or ``L2``."""
        return f"L1,{r}" if self.loss_kind == "L1" else self.loss_kind


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(dict(mapping))


#: The exponents of the gated models' rates (Theorems 2–3, per-cell errors of Theorem 3).
_GATED_EXPONENTS = {
    "voronoi": 0.5,
    "voronoi_function_cells": 0.5,
    "voronoi_measure": 0.5,
    "regression": 0.5,
    "exact_weight": 0.5,
    "exact_param": 0.5,
    "over_weight": 0.5,
    "over_param": 0.25,
}
#: The gated models' legs of the ``local`` preset: K = K*, K* + 1, K* + 2 (where Setting I's
#: channels can recombine exactly), on both local truths.
_GATED_LEGS = (("local_sigmoid", (0, 1, 2)), ("local_sigmoid_b1", (0, 1, 2)))

#: The shipped models by name, in the order of the paper's equations (2), (9), (12).
SHIPPED: Mapping[str, ShippedModel] = _frozen(
    {
        spec.name: spec
        for spec in (
            ShippedModel(
                name="mha",
                equation="(2)",
                declaration="mha",
                title="MHA",
                phi_after=None,
                condition=None,
                loss_kind="L1",
                # Theorem 1: MHA's Voronoi loss is slower than any polynomial; "mha_identified" is the
                # expectation for a regular parametric model, not a theorem of the paper
                exponents=_frozen(
                    {"voronoi": None, "voronoi_function_cells": None, "regression": 0.5, "mha_identified": 0.5}
                ),
                paper_slopes=_frozen({3: -0.12, 4: -0.13}),
                local_legs=(("local_sigmoid", ()),),
                recombination_note="model (2) depends on the channels only through the per-(head, gate) "
                "measures: exact",
            ),
            ShippedModel(
                name="gated1",
                equation="(9)",
                declaration="setting1",
                title="Setting I (gate after values)",
                phi_after=AFTER_VALUES,
                condition="type1",
                loss_kind="L2",
                exponents=_frozen(_GATED_EXPONENTS),
                paper_slopes=_frozen({3: -0.49, 4: -0.49}),
                local_legs=_GATED_LEGS,
                recombination_note="model (9) depends on the channels only through the per-(head, gate) measures "
                "sum_k omega_k delta_(a_ik): exact for every phi",
                recombination_short="model (9) sees the channels only through the per-(head, gate) measures, "
                "so a recombination is exact for every phi",
            ),
            ShippedModel(
                name="gated2",
                equation="(12)",
                declaration="setting2",
                title="Setting II (gate after SDPA)",
                phi_after=AFTER_OUTPUT,
                condition="type2",
                loss_kind="L2",
                exponents=_frozen(_GATED_EXPONENTS),
                paper_slopes=_frozen({3: -0.51, 4: -0.53}),
                local_legs=_GATED_LEGS,
                recombination_note="model (12) applies phi to one channel's gate mixture sum_i sigma_i a_ik^T x, "
                "so g is not a function of the per-(head, gate) "
                "measures: re-pairing atoms moves g unless phi is affine; no exact invariance is claimed",
                recombination_short="model (12) applies phi to each channel's gate mixture, "
                "so a recombination moves g unless phi is affine",
            ),
        )
    }
)


def shipped_model(name) -> ShippedModel:
    """The record of shipped model ``name``; numeric's one-line error (``model=NAME: unknown; …``)
    for any other name."""
    spec = SHIPPED.get(name) if isinstance(name, str) else None
    if spec is None:
        raise NumericError(param="model", value=name, reason=f"unknown; choose one of {', '.join(SHIPPED)}")
    return spec
