"""Every shell, TOML and Python block of README.md and docs/ works as written
(tests/docs/blocks.py says how each is marked and what is checked). The
README is followed top to bottom in one sandbox, as a new reader would; each
doc file has a sandbox of its own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs import check
from tests.docs.blocks import SHELL, Block, scan


def _collect() -> tuple[list[Block], list[str]]:
    found: list[Block] = []
    errors: list[str] = []
    for doc in check.DOCS:
        some, wrong = scan(doc, shown=doc.relative_to(check.REPO))
        found += [b for b in some if b.lang in SHELL | {"toml", "python"}]
        errors += wrong
    return found, errors


BLOCKS, ERRORS = _collect()


def test_every_block_says_what_it_is() -> None:
    """A block without a language, or with a marker the collector does not know,
    fails here rather than going unchecked."""
    assert ERRORS == []
    assert len(BLOCKS) > 20


class Sandboxes:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.made: dict[Path, Path] = {}
        self.served: dict[str, tuple[bool, str]] = {}

    def of(self, block: Block) -> Path:
        if block.path not in self.made:
            self.made[block.path] = check.sandbox(self.base / str(block.path).replace("/", "_"))
        return self.made[block.path]


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandboxes]:
    yield Sandboxes(tmp_path_factory.mktemp("docs"))


def _group(block: Block) -> list[Block]:
    """The serve block that starts the block's group, and the `beside` ones after it."""
    same = [b for b in BLOCKS if b.path == block.path]
    i = same.index(block)
    while same[i].marker.beside:
        i -= 1
    group = [same[i]]
    for b in same[i + 1:]:
        if b.marker.mode != "serve" or not b.marker.beside:
            break
        if not check.missing(b):  # its own test says what it lacks
            group.append(b)
    return group


@pytest.mark.parametrize("block", BLOCKS, ids=[b.where for b in BLOCKS])
def test_doc_block(block: Block, sandboxes: Sandboxes, tmp_path: Path) -> None:
    mode = block.marker.mode
    try:
        check.needs(block)
        if block.lang == "python":
            check.check_python(block)
        elif mode == "config":
            check.check_config(block, tmp_path)
        elif mode == "skip":
            if block.lang in SHELL:
                check.syntax(block)
            pytest.skip(f"{block.where}: not run: {block.marker.reason}")
        elif mode == "parse":
            check.parse_block(block, sandboxes.of(block))
        elif mode == "run":
            check.run_block(block, sandboxes.of(block))
        elif mode == "serve":
            if block.where not in sandboxes.served:
                sandboxes.served.update(check.serve_blocks(_group(block), sandboxes.of(block)))
            ok, why = sandboxes.served[block.where]
            if not ok:
                raise check.DocFailed(f"{block.where}: {why}")
    except check.CannotRun as exc:
        pytest.skip(f"{block.where}: {exc}")
