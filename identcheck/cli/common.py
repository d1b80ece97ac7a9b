"""What both command lines (``identcheck``, ``numeric``) share: a parser that suggests the flag or
command the user meant, the rendering of errors as flags, and a quiet end on a closed stdout. (The
output-path policy every flag that names where to write follows is :mod:`identcheck.util.outputs`, a
module of its own below the tools that write figures too.)

**Flags**: :class:`SuggestingParser` raises the command line's one exception type on every argparse
error, and refuses an unknown flag or command with the closest known one (``difflib``), as every
other error of both command lines does: ``unknown flag --condtion (did you mean --condition?)``;
argparse's own messages read as ``--flag VALUE: reason`` too (``--dim: expects a value``,
``--model 'nope': not one of mha, gated1, gated2``, ``--json 'yes': takes no value (a switch)``).
**Errors**: library errors name the API's parameters (:class:`~identcheck.errors.Param`:
``jobs=0: must be from 1 to 64``); :func:`render_error` spells each one as the flag of the command
that ran, found in that command's argparse parser — by ``dest`` (``n_gates`` → ``--gates``;
``params={'b': …}`` → ``--param b=…``), else by the flag of the parameter's name (``param`` →
``--param``) — so the user reads the flag they typed (``--jobs 0: must be from 1 to 64``). A
parameter the command has no flag for (a positional ``phi``, an internal value) keeps the API's
spelling, and a plain message passes unchanged.

**A closed stdout** (``identcheck check z --json | head -c 10``: the reader has what it wanted and
left) is answered as a Unix filter answers it — quietly, exit :data:`CLOSED_STDOUT_EXIT` = 141:
:func:`closed_stdout_quiet` runs a program's ``main``; a write to the closed pipe raises
:class:`StdoutClosed`, which is no ``Exception`` (a command's "internal error" handler lets it
through), and what is still buffered goes to ``os.devnull``. (Not SIGPIPE's default action: that
would end the process silently on a write to any closed pipe, a worker's included.)

Imports nothing heavy: ``--help`` and a mistyped flag answer at once.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys

from ..errors import IdentcheckError, InputError, Param
from ..util.interrupts import answer_interrupt, interrupts

__all__ = ["SuggestingParser", "command_parser", "flag_of", "render_error"]
__all__ += ["CLOSED_STDOUT_EXIT", "StdoutClosed", "closed_stdout_quiet"]

#: the exit code of a program whose stdout closed early: 128 + SIGPIPE (13), what the shell reports for
#: a filter the signal ended (``yes | head``) — the output was not all delivered, so not 0 (``set -o pipefail``)
CLOSED_STDOUT_EXIT = 141


class StdoutClosed(BaseException):
    """stdout's reader has gone. Not an ``Exception``: no command's handler mistakes it for a bug."""


class _Guarded:
    """sys.stdout, with a write or flush to a closed pipe raising :class:`StdoutClosed`."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise StdoutClosed from None

    def flush(self):
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise StdoutClosed from None

    def __getattr__(self, name):
        return getattr(self._stream, name)


def closed_stdout_quiet(main) -> int:
    """``main()``'s exit code; :data:`CLOSED_STDOUT_EXIT`, and nothing printed, when stdout closed early."""
    stdout = sys.stdout
    if stdout is None:  # no stdout at all (pythonw): nothing to guard
        return main()
    sys.stdout = _Guarded(stdout)
    try:
        try:
            code = main()
        finally:  # here, not at the interpreter's exit (where Python would print the error): --help's SystemExit too
            sys.stdout.flush()
    except StdoutClosed:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stdout.fileno())  # what is still buffered is flushed at exit: into /dev/null
        os.close(devnull)
        code = CLOSED_STDOUT_EXIT
    finally:
        sys.stdout = stdout
    return code


class SuggestingParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` that raises :attr:`error_type` (one line, exit 2 in the CLI) and suggests.

    Before argparse reads the arguments, a parser with subcommands checks the command name, and a
    command's parser checks each ``--flag`` against its own flags (argparse's unambiguous prefixes
    stay accepted); an unknown one is refused with the closest match.
    """

    error_type: type[ValueError] = IdentcheckError

    def error(self, message):
        raise self.error_type(_one_spelling(message))

    def parse_known_args(self, args=None, namespace=None):
        arguments = list(sys.argv[1:] if args is None else args)
        self._suggest(arguments)
        return super().parse_known_args(arguments, namespace)

    def _suggest(self, arguments) -> None:
        commands = next((a.choices for a in self._actions if isinstance(a, argparse._SubParsersAction)), None)
        known = sorted({o for a in self._actions for o in a.option_strings if o.startswith("--")})
        if commands is not None:  # the command's own parser checks the flags after the command
            position = next((i for i, a in enumerate(arguments) if not a.startswith("-")), len(arguments))
            self._check_flags(arguments[:position], known)
            if position < len(arguments) and arguments[position] not in commands:
                command = arguments[position]
                close = difflib.get_close_matches(command, list(commands), n=1)
                hint = f" (did you mean {close[0]}?)" if close else ""
                raise self.error_type(f"{command!r} is not a command{hint}; commands: {', '.join(commands)}")
            return
        self._check_flags(arguments, known)

    def _check_flags(self, arguments, known) -> None:
        for token in arguments:
            if token == "--":
                break
            if not token.startswith("--"):
                continue
            name = token.partition("=")[0]
            if name in known or any(o.startswith(name) for o in known):
                continue
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise self.error_type(f"unknown flag {name}{hint}; see {self.prog} --help")


#: argparse's own messages about a flag's value (Python 3.11's wording), as ``--flag VALUE: reason``
_ARGPARSE = [
    (r"expected one argument", lambda flag, m: f"{flag}: expects a value"),
    (r"expected at least one argument", lambda flag, m: f"{flag}: expects one or more values"),
    (r"expected at most one argument", lambda flag, m: f"{flag}: expects at most one value"),
    (r"ignored explicit argument (?P<value>.+)", lambda flag, m: f"{flag} {m['value']}: takes no value (a switch)"),
    (r"invalid (?P<type>\w+) value: (?P<value>.+)", lambda flag, m: f"{flag} {m['value']}: {_not_a(m['type'])}"),
    (r"invalid choice: (?P<value>.+?) \(choose from (?P<choices>.*)\)", lambda flag, m: _choice(flag, m)),
]


def _not_a(type_name: str) -> str:
    return {"int": "not an integer", "float": "not a number"}.get(type_name, f"not a valid {type_name}")


def _one_spelling(message: str) -> str:
    """argparse's error ``message`` in the command lines' one spelling, ``--flag VALUE: reason``: a
    converter's message that names its flag (``--dim 'x': not an integer``) without argparse's
    ``argument --dim:`` prefix; argparse's own (a missing value, a bad type, a choice not among the
    choices) reworded. Any other message passes unchanged."""
    if not message.startswith("argument "):
        return message
    names, _, rest = message.removeprefix("argument ").partition(": ")
    if any(rest.startswith(name + " ") for name in names.split("/")):
        return rest
    flag = next((name for name in names.split("/") if name.startswith("--")), names.split("/")[0])
    for pattern, spelled in _ARGPARSE:
        match = re.fullmatch(pattern, rest)
        if match:
            return spelled(flag, match)
    return message


def _choice(flag: str, match) -> str:
    choices = [c.strip().strip("'") for c in match["choices"].split(",")]
    value = match["value"].strip("'")
    close = difflib.get_close_matches(value, choices, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{flag} {match['value']}: not one of {', '.join(choices)}{hint}"


def command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser | None:
    """The parser of subcommand ``command`` of ``parser`` (None if there is no such command)."""
    if command is None:
        return None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action.choices.get(command)
    return None


def flag_of(parser: argparse.ArgumentParser, name: str):
    """The action of ``parser`` that sets the API's parameter ``name``: the one whose ``dest`` is
    ``name``, else the one whose flag is ``--name``; None if the parameter has no flag (a positional
    argument, or a parameter the command does not expose)."""
    for action in parser._actions:
        if action.dest == name:
            return action if action.option_strings else None
    flag = "--" + name.replace("_", "-")
    return next((a for a in parser._actions if flag in a.option_strings), None)


def render_error(error: Exception, parser: argparse.ArgumentParser | None) -> str:
    """``error``'s message for the command line: every parameter it names that ``parser`` (the
    parser of the command that ran) has a flag for, spelled as that flag with the value
    (``--gates 9``, ``--jobs 0``: one spelling for every flag), a switch alone
    (``include_zero=True`` → ``--include-zero``), a mapping's entry as ``--param b=VALUE``. Other
    parameters and plain messages read as the API spells them."""
    if parser is None or not isinstance(error, InputError):
        return str(error)
    return error.spelled(lambda param: _spelled(param, parser))


def _spelled(param: Param, parser: argparse.ArgumentParser) -> str:
    action = flag_of(parser, param.name)
    if action is None:
        return str(param)
    flag = next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
    if action.nargs == 0:  # a switch: named by its flag when the value is the one it sets
        return flag if param.value is action.const else str(param)
    if param.key is not None:
        return f"{flag} {param.key}={param.text}"
    if not param.text:
        return flag
    return f"{flag} {param.text}"


def guarded(program: str, error: type[Exception], run, argv) -> int:
    """``run(argv)`` as both programs' ``main`` runs it: SIGINT and SIGTERM raise Interrupted (exit 130,
    143, with what was kept); bad input (``error``) is one line and exit 2; anything else is a bug, said
    in one line with exit 1."""
    with interrupts():
        try:
            return run(argv)
        except error as exc:
            print(f"{program}: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt as exc:
            return answer_interrupt(exc, program)
        except Exception as exc:  # a bug: say so in one line, keep the exit code distinct
            print(f"{program}: internal error: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
