"""Golden report text. Regenerate with: pytest tests/identcheck/test_report.py --regen-golden"""

from pathlib import Path

import pytest

from identcheck import check
from identcheck.report import format_relation

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("phi, name", [("z", "identity"), ("sigmoid(z + 1)", "sigmoid_bias")])
def test_report_text_matches_golden(phi, name, regen_golden):
    text = "\n".join(line for line in check(phi).to_text().splitlines() if not line.strip().startswith("time:"))
    path = GOLDEN / f"{name}.txt"
    if regen_golden:
        path.write_text(text + "\n", encoding="utf-8")
    assert text + "\n" == path.read_text(encoding="utf-8")


def test_format_relation():
    assert format_relation([("∂ū/∂a1", "1/2"), ("ū", "-1")]) == "1/2·∂ū/∂a1 − ū = 0"
    assert format_relation([("A", 1.0), ("B", -0.25)]) == "A − 0.25·B = 0"
