"""The ``cli-reference`` directive: a program's commands and flags, read from its argparse parser.

In a page::

    ```{cli-reference} identcheck.cli.parser:build_parser
    ```

builds the parser the program runs and writes, for the program and each of its commands, the
usage line, the description and every argument with its help text — the text ``--help`` prints,
``%(default)s`` expanded as argparse expands it, taken as plain text (a help string is never read
as markup). The page cannot drift from ``--help``: it is generated from the same parser at every
build, and tests/test_docs.py checks the built page against ``--help`` for every command.

:func:`commands` and :func:`arguments` are the reading of a parser that the directive and the
test share.
"""

import argparse
import importlib
import os

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

WIDTH = 100  # the usage lines' width, fixed so the page does not depend on the terminal that built it


def load_parser(spec: str) -> argparse.ArgumentParser:
    """``module:function`` → the parser that function builds."""
    module, function = spec.split(":")
    return getattr(importlib.import_module(module), function)()


def commands(parser: argparse.ArgumentParser, prefix: str | None = None):
    """(full command name, parser) for ``parser`` and every subcommand, depth first, in declaration order."""
    name = prefix or parser.prog
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from commands(sub, f"{name} {sub_name}")


def _formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(WIDTH)
    try:
        return parser._get_formatter()
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage line(s), as ``--help`` prints them at :data:`WIDTH` columns."""
    formatter = _formatter(parser)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def arguments(parser: argparse.ArgumentParser):
    """(group title, [(invocation, help text)]) for each of the parser's argument groups that has
    arguments; the invocation as ``--help`` writes it (``--dim D``, ``phi``), the help text with
    ``%(default)s`` and the like expanded. Suppressed arguments are left out, as ``--help`` does."""
    formatter = _formatter(parser)
    for group in parser._action_groups:
        rows = []
        for action in group._group_actions:
            if action.help == argparse.SUPPRESS:
                continue
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._get_subactions():
                    rows.append((choice.dest, formatter._expand_help(choice) if choice.help else ""))
                continue
            invocation = formatter._format_action_invocation(action)
            rows.append((invocation, formatter._expand_help(action) if action.help else ""))
        if rows:
            yield group.title, rows


class CLIReference(SphinxDirective):
    required_arguments = 1

    def run(self):
        parser = load_parser(self.arguments[0])
        sections = []
        for name, command in commands(parser):
            section = nodes.section(ids=[nodes.make_id(name)], names=[nodes.fully_normalize_name(name)])
            section += nodes.title(text=name)
            if command.description:
                section += nodes.paragraph(text=command.description)
            section += nodes.literal_block(text=usage(command), language="none")
            for title, rows in arguments(command):
                section += nodes.rubric(text=title)
                items = nodes.definition_list()
                for invocation, text in rows:
                    item = nodes.definition_list_item()
                    term = nodes.term()
                    term += nodes.literal(text=invocation)
                    item += term
                    definition = nodes.definition()
                    definition += nodes.paragraph(text=text)
                    item += definition
                    items += item
                section += items
            if command.epilog:
                section += nodes.paragraph(text=command.epilog)
            sections.append(section)
        return sections


def setup(app):
    app.add_directive("cli-reference", CLIReference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
