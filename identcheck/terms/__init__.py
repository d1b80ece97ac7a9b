"""The term sets a condition judges, built symbolically: type-1 and type-2 terms, the expert sets and
their recipes, the merges of coinciding terms, their compilation to arrays, and the parameter probes."""
