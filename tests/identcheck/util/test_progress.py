"""The status line: in place on a terminal, plain throttled lines on a pipe only when asked."""

import io

import identcheck.util.progress as progress
from identcheck.util.progress import CLEAR, StatusLine


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_on_a_terminal_the_line_is_rewritten_in_place_and_cleared():
    stream = Terminal()
    with StatusLine.for_command(stream=stream) as status:
        status.show("fit 1")
        status.show("fit 2")
    assert stream.getvalue() == f"{CLEAR}fit 1{CLEAR}fit 2{CLEAR}"


def test_json_keeps_the_terminal_quiet_unless_asked():
    stream = Terminal()
    StatusLine.for_command(json=True, stream=stream).show("x")
    assert stream.getvalue() == ""
    StatusLine.for_command(asked=True, json=True, stream=stream).show("x")
    assert stream.getvalue() == f"{CLEAR}x"


def test_a_pipe_gets_nothing_unless_asked_then_plain_lines_at_most_once_a_second(monkeypatch):
    pipe = io.StringIO()
    StatusLine.for_command(stream=pipe).show("x")
    assert pipe.getvalue() == ""
    clock = iter([10.0, 10.0, 10.5, 11.2, 11.2])
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock))
    with StatusLine.for_command(asked=True, stream=pipe) as status:
        status.show("a")  # 10.0: shown
        status.show("b")  # 10.5: within a second, dropped
        status.show("c")  # 11.2: shown
    assert pipe.getvalue() == "a\nc\n" and "\033" not in pipe.getvalue()


def test_identcheck_check_progress_on_a_pipe_when_asked(capsys):
    from identcheck.cli.main import main

    assert main(["check", "z", "--dim", "1", "--json"]) == 0
    assert "probe" not in capsys.readouterr().err
    assert main(["check", "z", "--dim", "1", "--json", "--progress"]) == 0
    assert ": probe 1/" in capsys.readouterr().err
