"""Catalogs: many checks run and tabulated — the activations under type-1 and type-2, the experts under
DeepSeekMoE's conditions, and the activations under the type-1-full condition."""
