"""A bad declaration refused alike by the three commands that read one — ``identcheck model``,
``numeric fit --model-file`` and ``numeric reproduce --model-file``: one line naming the key and why,
exit 2, nothing on stdout, no store written (docs/declaration.md, "Refusals")."""

import pytest

from identcheck.cli.main import main as identcheck_main
from identcheck.declaration import example_path
from numeric.cli.main import main as numeric_main

SHARED = "truth = [{ omega = 1.0, k1 = 2.0, k0 = 0.0, tau = 0.2 }]"


def _two_weights(first: float, second: float):
    """D2 with two true shared atoms of weights (first, second)."""
    two = (
        f"truth = [{{ omega = {first}, k1 = 2.0, k0 = 0.0, tau = 0.2 }}, "
        f"{{ omega = {second}, k1 = 3.0, k0 = 1.0, tau = 0.2 }}]"
    )
    return "deepseek-d2", SHARED, two


#: (case, (example, text replaced, by), the whole line after "error: ")
CASES = [
    (
        "a negative weight summing to one",
        _two_weights(-0.5, 1.5),
        "parts.shared.truth[0].omega=-0.5: a weight must be positive",
    ),
    ("a zero weight", _two_weights(1.0, 0.0), "parts.shared.truth[1].omega=0.0: a weight must be positive"),
    (
        "weights not summing to one",
        _two_weights(0.3, 0.5),
        "parts.shared.truth[*].omega: the truth's weights omega sum to 0.8, not 1 (a density's weights must)",
    ),
    (
        "shares not summing to one",
        ("deepseek-d2", "share = 0.5", "share = 0.6"),
        "parts.*.share: the parts' shares sum to 1.1, not 1 (a density's weights must)",
    ),
    (
        "a zero variance",
        ("deepseek-d2", "tau = 0.2", "tau = 0.0"),
        "parts.shared.truth[0].tau=0.0: a variance must be positive",
    ),
    (
        "a negative variance",
        ("deepseek-d2", "tau = 0.2", "tau = -0.2"),
        "parts.shared.truth[0].tau=-0.2: a variance must be positive",
    ),
    (
        "a top-K above the truth's atoms",
        ("deepseek-topk", "top_k = 2, fitted_top_k = 3", "top_k = 4, fitted_top_k = 4"),
        "parts.routed.gate.top_k=4: above the truth's 3 atoms",
    ),
    (
        "a fitted top-K above the fitted atoms",
        ("deepseek-topk", "fitted_top_k = 3", "fitted_top_k = 5"),
        "parts.routed.gate.fitted_top_k=5: above the 4 fitted atoms",
    ),
]


def _declaration(tmp_path, example: str, old: str, new: str) -> str:
    text = example_path(example).read_text(encoding="utf-8")
    assert old in text, (example, old)
    path = tmp_path / "bad.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")  # the first only
    return str(path)


@pytest.mark.parametrize("change, line", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_command_refuses_in_one_line(tmp_path, capsys, change, line):
    path = _declaration(tmp_path, *change)
    out = tmp_path / "store"
    runs = [
        ("identcheck", identcheck_main, ["model", path]),
        ("numeric", numeric_main, ["fit", "--model-file", path, "--n", "200"]),
        (
            "numeric",
            numeric_main,
            ["reproduce", "--model-file", path, "--sizes", "100", "200", "--reps", "1", "--out", str(out)],
        ),
    ]
    for program, main, argv in runs:
        assert main(argv) == 2, argv
        captured = capsys.readouterr()
        assert captured.out == "", argv
        assert captured.err == f"{program}: error: {line}\n", argv
    assert not out.exists()


def test_positive_weights_summing_to_one_still_read(tmp_path):
    """The refusal is of a weight ≤ 0, not of two shared atoms: (0.25, 0.75) reads."""
    from identcheck.declaration import read_declaration

    path = _declaration(tmp_path, *_two_weights(0.25, 0.75))
    assert [atom["omega"] for atom in read_declaration(path).part("shared").truth] == [0.25, 0.75]
