"""What a run prints: each verdict's meaning once, as a footnote keyed by verdict, and ``--brief``:
one line per phi (verdict, evidence, witness family)."""

from identcheck.cli.main import main


def test_the_meaning_of_a_verdict_is_printed_once_per_run_as_a_footnote(capsys):
    assert main(["check", "z", "tanh(z)", "sigmoid(z + 1)"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert not any(line.startswith("  means:") for line in lines)
    verdicts = [line for line in lines if line.startswith("  verdict:")]
    assert verdicts == [
        "  verdict: NOT IDENTIFIABLE (proof evidence) [1]",
        "  verdict: NOT IDENTIFIABLE (proof evidence) [1]",
        "  verdict: IDENTIFIABLE (numeric evidence) [2]",
    ]
    notes = [line for line in lines if line.startswith("[")]
    assert len(notes) == 2 and notes[0].startswith("[1] not identifiable (type1, Theorem 2")
    assert notes[1].startswith("[2] identifiable (type1, Theorem 2")
    assert out.count("The paper's sufficient condition fails") == 1


def test_brief_prints_one_line_per_phi_then_the_footnotes(capsys):
    assert main(["check", "z", "sigmoid(z)", "sigmoid(z + 1)", "--brief"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        "φ(z) = z  [type1, d = 2]  NOT IDENTIFIABLE (proof) [1]  witness 'random single': Euler/homogeneity "
        "(z*phi' = 1*phi), proved; order 0: bites in exact-fitted cells"  # φ odd: ū(−a) = −ū(a), no derivative
    )
    assert lines[1] == (
        "φ(z) = sigmoid(z)  [type1, d = 2]  NOT IDENTIFIABLE (proof) [1]  witness 'shared M, a2 = -a1': symmetry "
        "(φ(−z) = 1 − φ(z)), proved; order 1: bites in exact-fitted cells"  # ∂ū/∂a(−a) = ∂ū/∂a(a)
    )
    assert lines[2] == "φ(z) = sigmoid(z + 1)  [type1, d = 2]  IDENTIFIABLE (numeric) [2]  independent on all 9 probes"
    assert lines[3] == "" and lines[4].startswith("[1] not identifiable") and lines[5].startswith("[2] identifiable")
    assert len(lines) == 6


def test_brief_for_an_expert_says_what_lies_beyond_its_template(capsys):
    assert main(["check", "--condition", "deepseek-routed", "--expert", "e2*gelu(dot(e1, x))", "--brief"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("h(x; θ) = e2*gelu(dot(e1, x))  [deepseek-routed, d = 2]  NOT IDENTIFIABLE (proof) [1]")
    assert first.endswith("; beyond its template: 12 relation(s) specific to this expert")


def test_brief_scan_prints_its_head_and_summary(capsys):
    assert main(["scan", "sigmoid(z + b)", "--param", "b=-1:1:3", "--brief"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and lines[0].startswith("scan of φ(z) = sigmoid(z + b) over b")
    assert lines[1].startswith("  identifiable at every grid value of b in [-1, 1] except b = 0 (symmetry, proved)")
