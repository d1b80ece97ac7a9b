"""Deciding a collocation matrix's rank: the rule and its precision ladder, interval certificates,
the reduced sets judged where a relation holds for every φ, and the per-probe certificates."""
