"""Reading what the user writes: the expression grammar, activations φ(z), experts h(x; θ) and their
parameters' ids. Nothing here is executed: text is parsed by a whitelist grammar, never evaluated."""
