"""docs/declaration.md's TOML blocks read, and its complete examples are the shipped files verbatim."""

import re
from pathlib import Path

from identcheck.declaration import EXAMPLES, digest, example_path, parse_declaration

DOC = Path(__file__).resolve().parents[3] / "docs" / "declaration.md"


def _blocks() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_every_toml_block_of_the_page_is_a_declaration_that_reads():
    blocks = _blocks()
    assert len(blocks) >= 5
    for block in blocks:
        parse_declaration(block)


def test_the_complete_examples_are_the_shipped_files():
    shown = {parse_declaration(block).name: block for block in _blocks()}
    for name in ("softmax-gaussian-moe", "deepseek-d1", "deepseek-d2", "least-squares"):
        assert name in EXAMPLES
        assert shown[name] == example_path(name).read_text(encoding="utf-8"), name
        assert digest(parse_declaration(shown[name])) == digest(parse_declaration(example_path(name).read_text()))
