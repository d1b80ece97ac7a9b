r"""A mixture of experts as a value: the declaration's frozen dataclasses.

A declared model has one or more **parts** p, each a mixture of k_p atoms with its own gate and
expert. With gate weights w_{p,i}(x) (:mod:`.gates`), experts h_p(x; η) and, for a density, a
variance ν per atom:

- Gaussian **regression** (fitted by least squares): y = g(x) + N(0, σ²), with the parts summed,
      g(x) = Σ_p Σ_{i ≤ k_p} w_{p,i}(x) · h_p(x; η_{p,i});
- a Gaussian **mixture of densities** (fitted by maximum likelihood, each variance ≥ a floor):
      f(y | x) = Σ_p s_p Σ_{i ≤ k_p} w_{p,i}(x) · N(y | h_p(x; η_{p,i}), ν_{p,i}),
  with part shares s_p ≥ 0, Σ_p s_p = 1, fixed or free (DeepSeekMoE, arXiv 2505.10860 eq. (1):
  s = (½, ½), a constant-gated shared part and a softmax-gated routed one).

An **atom** is one component of a part with all its parameters (the gate's, the expert's and the
variance); the truth lists a part's atoms, the fit uses ``fitted`` ≥ as many. Inputs are
U[lo, hi]^d or N(0, I_d). The loss is :mod:`.loss`.

**Nested parts** (:mod:`.nested`): an expert that is a function of an *inner mixture* (its own
gate and expert, one value per component), and parameters *tied* within groups of atoms (one value
per group): multi-head attention and gated attention's Settings I and II of arXiv 2602.01468 are
parts of this kind. Declared *functions* (``[functions]``, e.g. ``phi = "sigmoid(z)"``, any φ of
identcheck's activation grammar) may be called by every expert (:mod:`.functions`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .expert import ExpertSpec
from .gates import GATES, Gate
from .loss import Loss
from .nested import Groups, Inner

__all__ = ["Atom", "Declaration", "ExpertSpec", "Gate", "Inputs", "Noise", "Note", "Part"]

Value = float | tuple  # a scalar, a vector (d floats) or a symmetric matrix (d rows)


@dataclass(frozen=True, slots=True)
class Inputs:
    """The input distribution: ``uniform`` on [low, high]^dim or ``normal`` N(0, I_dim)."""

    kind: str
    dim: int
    low: float | None = None
    high: float | None = None

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "dim": self.dim}
        return out | ({"low": self.low, "high": self.high} if self.kind == "uniform" else {})


@dataclass(frozen=True, slots=True)
class Noise:
    """``gaussian-regression`` (noise s.d. ``sigma``, least squares) or ``gaussian-mixture``
    (a variance per atom, each at least ``variance_floor``, maximum likelihood)."""

    kind: str
    sigma: float | None = None
    variance_floor: float | None = None

    @property
    def density(self) -> bool:
        return self.kind == "gaussian-mixture"

    @property
    def fit(self) -> str:
        return "maximum-likelihood" if self.density else "least-squares"

    def to_dict(self) -> dict:
        if self.density:
            return {"kind": self.kind, "variance_floor": self.variance_floor}
        return {"kind": self.kind, "sigma": self.sigma}


@dataclass(frozen=True, slots=True)
class Atom:
    """One atom's parameter values, in the part's parameter order: ``(name, value)`` pairs, a
    value a float, a vector (tuple of d floats) or a symmetric matrix (tuple of d rows)."""

    values: tuple[tuple[str, Value], ...]

    def __getitem__(self, name: str) -> Value:
        for key, value in self.values:
            if key == name:
                return value
        raise KeyError(name)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(key for key, _ in self.values)

    def replace(self, **values) -> "Atom":
        return Atom(tuple((key, values.get(key, value)) for key, value in self.values))

    def to_dict(self) -> dict:
        return {key: _plain(value) for key, value in self.values}


@dataclass(frozen=True, slots=True)
class Note:
    """Something the reader did to the declaration, or found in it, that a record and a report
    should say: ``key`` the path it is about, ``text`` one line."""

    key: str
    text: str

    def to_dict(self) -> dict:
        return {"key": self.key, "text": self.text}


@dataclass(frozen=True, slots=True)
class Part:
    """One mixture of the model: its gate, expert, the truth's atoms, the fitted atom count, its
    share of the density (``share``: the truth's; ``None`` in a regression, where parts are
    summed) and the name of its per-atom variance parameter (a density; ``None`` otherwise); a
    nested part also its ``inner`` mixture and its ``groups`` (:mod:`.nested`), ``fitted`` then
    counting every fitted atom of every group."""

    name: str
    gate: Gate
    expert: ExpertSpec
    truth: tuple[Atom, ...]
    fitted: int
    share: float | None = None
    variance: str | None = None
    inner: Inner | None = None
    groups: Groups | None = None

    @property
    def gate_parameters(self) -> tuple[str, ...]:
        return GATES[self.gate.kind].names

    @property
    def shapes(self) -> dict[str, str]:
        """Each parameter's shape: ``scalar``, ``vector`` (d entries) or ``symmetric`` (d × d); an
        inner parameter's is that of each of its per-component values (:attr:`per_component`)."""
        shapes = {p.name: p.shape for p in GATES[self.gate.kind].parameters}
        shapes |= {n: "vector" if n in self.expert.vectors else "scalar" for n in self.expert.names}
        if self.inner is not None:
            shapes |= {p.name: p.shape for p in GATES[self.inner.gate.kind].parameters}
            shapes |= {n: "vector" if n in self.inner.expert.vectors else "scalar" for n in self.inner.expert.names}
        return shapes | ({self.variance: "scalar"} if self.variance else {})

    @property
    def per_component(self) -> tuple[str, ...]:
        """The inner mixture's parameters, one value per component (none without an inner mixture)."""
        return self.inner.parameters if self.inner is not None else ()

    @property
    def tied(self) -> tuple[str, ...]:
        """The parameters with one value per group (none without groups)."""
        return self.groups.tied if self.groups is not None else ()

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every per-atom parameter: the gate's, the expert's, the inner mixture's, then the variance."""
        return (
            self.gate_parameters + self.expert.names + self.per_component + ((self.variance,) if self.variance else ())
        )

    def to_dict(self) -> dict:
        out = {
            "gate": self.gate.to_dict(),
            "expert": self.expert.text,
            "truth": [atom.to_dict() for atom in self.truth],
            "fitted": self.fitted,
        }
        if self.share is not None:
            out["share"] = self.share
        if self.variance is not None:
            out["variance"] = self.variance
        if self.inner is not None:
            out["inner"] = self.inner.to_dict()
        if self.groups is not None:  # the tied values once per group, each atom its group (from 1)
            out["groups"] = self.groups.to_dict()
            out["truth"] = [
                {"group": group + 1} | {k: v for k, v in atom.to_dict().items() if k not in self.groups.tied}
                for atom, group in zip(self.truth, self.groups.of)
            ]
        return out


@dataclass(frozen=True, slots=True)
class Declaration:
    """A declared model: inputs, noise, parts (in name order), how part shares are fitted
    (``shares``: ``fixed`` or ``free`` in a density, ``sum`` in a regression), the loss, and the
    notes the reader recorded; the declared ``functions`` (name, φ's text) and further named
    ``losses``, both in name order. ``name``, ``description`` and ``source`` label it; they are not
    part of its content (:func:`~identcheck.declaration.canonical.canonical_form`)."""

    name: str
    inputs: Inputs
    noise: Noise
    parts: tuple[Part, ...]
    shares: str
    loss: Loss
    notes: tuple[Note, ...] = ()
    description: str = ""
    source: str = ""
    functions: tuple[tuple[str, str], ...] = ()  # declared functions: (name, φ's text), e.g. ("phi", "sigmoid(z)")
    losses: tuple[tuple[str, Loss], ...] = ()  # further named losses beside ``loss``

    def other_loss(self, name: str) -> Loss:
        """The further loss ``name`` (``[losses.NAME]``)."""
        for key, loss in self.losses:
            if key == name:
                return loss
        raise KeyError(name)

    def part(self, name: str) -> Part:
        for part in self.parts:
            if part.name == name:
                return part
        raise KeyError(name)

    def refusal(self) -> str | None:
        """Why identcheck's checks cannot take this declaration, in one line (None: they can)."""
        for part in self.parts:
            experts = [("expert", part.expert)] + ([("inner.expert", part.inner.expert)] if part.inner else [])
            for key, expert in experts:
                if expert.simulation_only:
                    function = expert.simulation_only[0]
                    return (
                        f"parts.{part.name}.{key}={expert.text!r}: {function} is not differentiable at 0; "
                        f"identcheck's checks need a smooth expert (numeric simulates {function} with its "
                        "almost-everywhere derivative)"
                    )
        return None

    def content(self) -> dict:
        """The model's content as plain data (what :mod:`.canonical` sorts and hashes)."""
        out = {
            "inputs": self.inputs.to_dict(),
            "noise": self.noise.to_dict(),
            "shares": self.shares,
            "parts": {part.name: part.to_dict() for part in self.parts},
            "loss": self.loss.to_dict(),
        }
        if self.functions:  # only when declared: a declaration without them keeps its digest
            out["functions"] = dict(self.functions)
        if self.losses:
            out["losses"] = {name: loss.to_dict() for name, loss in self.losses}
        return out

    def to_dict(self) -> dict:
        """The content with its labels and notes (a record's ``model``)."""
        labels = {"name": self.name, "description": self.description, "source": self.source}
        return labels | self.content() | {"notes": [note.to_dict() for note in self.notes]}


def as_number(value: Value) -> float:
    """``value`` as the number it is (a scalar parameter's value)."""
    if isinstance(value, tuple):
        raise TypeError(f"expected a number, not the tuple {value!r}")
    return value


def as_tuple(value: Value) -> tuple[Value, ...]:
    """``value`` as the tuple it is: a vector's entries, a matrix's rows, an inner parameter's
    values by component."""
    if not isinstance(value, tuple):
        raise TypeError(f"expected a tuple of values, not the number {value!r}")
    return value


def _plain(value: Value):
    """A value as JSON data: tuples become lists."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value
