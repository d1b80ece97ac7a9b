"""Small declarations, one per gate kind, as data: the TOML a test fits or differentiates.

Each has two true atoms with linear experts h = aᵀx + b, inputs U[-1, 1]^d (U[-2, 2] for the
sigmoid gate), and ``fitted`` atoms (default: as many as the truth, an exact fit). Sigmoid weights
do not sum to one, so the sigmoid gate is declared as a regression; every other gate as a Gaussian
mixture with per-atom variance. The top-K gate keeps 1 of 2 atoms: its β are identified only
through the sign of β1₁ − β1₂ (the kept atom's weight is 1), its experts fully.
"""

from identcheck.declaration import parse_declaration

#: gate kind → (gate table, d, the two atoms' gate parameters as TOML inline entries)
GATES = {
    "constant": ('{ kind = "constant", weights = "free" }', 1, ("omega = 0.4", "omega = 0.6")),
    "softmax": ('{ kind = "softmax" }', 1, ("beta1 = 2.0, beta0 = 0.5", "beta1 = 0.0, beta0 = 0.0")),
    "sigmoid": ('{ kind = "sigmoid" }', 1, ("beta1 = 3.0, beta0 = 0.5", "beta1 = -2.0, beta0 = 0.0")),
    "normalized-sigmoid": (
        '{ kind = "normalized-sigmoid" }',
        1,
        ("beta1 = 3.0, beta0 = 0.5", "beta1 = -2.0, beta0 = -0.5"),
    ),
    "laplace": ('{ kind = "laplace" }', 2, ("W = [0.5, -0.5], beta = 0.3", "W = [-0.5, 0.5], beta = 0.0")),
    "top-k": (
        '{ kind = "top-k", top_k = 1, of = "softmax" }',
        1,
        ("beta1 = 3.0, beta0 = 0.2", "beta1 = 0.0, beta0 = 0.0"),
    ),
    "quadratic-softmax": (
        '{ kind = "quadratic-softmax" }',
        2,
        ("M = [[1.5, 0.5], [0.5, -1.0]]", "M = [[0.0, 0.0], [0.0, 0.0]]"),
    ),
}
EXPERTS = {1: ("a = 2.0, b = 0.5", "a = -1.5, b = -0.5"), 2: ("a = [2.0, -1.0], b = 0.5", "a = [-1.5, 1.0], b = -0.5")}


def gate_declaration(kind: str, fitted: int = 2, variance: float = 0.05):
    """The declaration of ``kind``'s small model (module docstring)."""
    gate, dim, gates = GATES[kind]
    span = 2.0 if kind == "sigmoid" else 1.0  # the sigmoid gate and its expert trade off less on a wider range
    density = kind != "sigmoid"
    mixture = 'kind = "gaussian-mixture"\nvariance_floor = 0.001'
    noise = mixture if density else 'kind = "gaussian-regression"\nsigma = 0.1'
    nu = f", nu = {variance}" if density else ""
    atoms = ",\n  ".join(f"{{ {g}, {e}{nu} }}" for g, e in zip(gates, EXPERTS[dim]))
    cells = '["a", "b", "nu"]' if density else '["a", "b"]'
    terms = '{ params = ["a", "b"], exact = 1, over = 2 }'
    terms += ', { params = ["nu"], exact = 1, over = 2 }' if density else ""
    shift = kind in ("softmax", "laplace", "top-k", "quadratic-softmax")  # re-anchored before errors are read
    symmetries = 'symmetries = ["softmax-shift", "permutations"]' if shift else 'symmetries = ["permutations"]'
    text = f"""
name = "gate-{kind}"
[inputs]
kind = "uniform"
dim = {dim}
low = -{span}
high = {span}
[noise]
{noise}
[parts.experts]
expert = "dot(a, x) + b"
{'variance = "nu"' if density else ""}
fitted = {fitted}
gate = {gate}
truth = [
  {atoms},
]
[loss]
kind = "voronoi"
{symmetries}
[loss.parts.experts]
cells = {cells}
mass = "none"
weight = "none"
terms = [{terms}]
"""
    return parse_declaration(text)
