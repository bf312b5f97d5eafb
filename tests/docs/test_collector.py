"""The doc-block checks fail when an example breaks: the slips a first hour
with the docs found, each written back into a page and caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs import check
from tests.docs.blocks import Block, BlockError, blocks, scan

# docs/hardware.md's panel before it was mended: a multi-line inline table is
# not TOML 1.0, and croupier check-config refused the example.
OLD_PANEL = """
```toml
[drivers.panel]
hold_s = 1.5
buttons = { close_bets = 5, stand = 6, double = 13, split = 19,
            confirm = 21, void = 7, new_shoe = 8 }
```
"""


def page(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return path


def only(tmp_path: Path, text: str) -> Block:
    [block] = blocks(page(tmp_path, text))
    return block


def test_a_config_example_croupier_refuses_fails(tmp_path: Path) -> None:
    block = only(tmp_path, OLD_PANEL)
    with pytest.raises(check.DocFailed, match="croupier check-config refuses it"):
        check.check_config(block, tmp_path)
    fixed = only(tmp_path, OLD_PANEL.replace(",\n            confirm", ", confirm"))
    check.check_config(fixed, tmp_path)  # the same example on one line passes


def test_a_command_that_fails_as_written_fails(tmp_path: Path) -> None:
    box = check.sandbox(tmp_path / "clone")
    block = only(tmp_path, "```sh\ncroupier simulate --rules be-casino --hands 0\n```\n")
    with pytest.raises(check.DocFailed, match="exit status 2"):
        check.run_block(block, box)
    check.run_block(only(tmp_path, "```sh\ncroupier rules be-casino\n```\n"), box)


def test_a_renamed_option_fails_even_where_nothing_runs(tmp_path: Path) -> None:
    text = "<!-- doc-test: parse: a benchmark -->\n```sh\npython -m bench engine --handz 10\n```\n"
    with pytest.raises(check.DocFailed, match="its parser refuses it"):
        check.parse_block(only(tmp_path, text), tmp_path)
    check.parse_block(only(tmp_path, text.replace("--handz", "--hands")), tmp_path)


def test_a_server_that_does_not_stay_up_fails(tmp_path: Path) -> None:
    box = check.sandbox(tmp_path / "clone")
    text = ('<!-- doc-test: serve 30 expect="broker ok" -->\n'
            "```sh\ncroupier sim --rules no-such-rules\n```\n")
    block = only(tmp_path, text)
    [(ok, why)] = check.serve_blocks([block], box).values()
    assert not ok and "ended with exit status 2 before it was stopped" in why
    # Up, but never saying what the page promises.
    text = '<!-- doc-test: serve 2 expect="broker ok" -->\n```sh\ncroupier rules\n```\n'
    [(ok, why)] = check.serve_blocks([only(tmp_path, text)], box).values()
    assert not ok and "nothing printed 'broker ok' in 2.0 s" in why


def test_a_block_that_says_nothing_of_itself_fails(tmp_path: Path) -> None:
    _, errors = scan(page(tmp_path, "```\ncroupier sim\n```\n"))
    assert errors == [f"{tmp_path / 'page.md'}:1: a fenced block without a language "
                      "(sh, toml, text, ...)"]
    for marker, why in (("skip:", "needs the reason"), ("serve", "takes the seconds"),
                        ("runn", "unknown doc-test marker")):
        with pytest.raises(BlockError, match=why):
            blocks(page(tmp_path, f"<!-- doc-test: {marker} -->\n```sh\ntrue\n```\n"))


def test_the_readme_reader_has_no_croupier_on_path(tmp_path: Path) -> None:
    """The README is followed from a fresh clone: croupier is in .venv, which
    scripts/run uses; a bare `croupier` there is a command not found."""
    box = check.sandbox(tmp_path / "clone")
    readme = tmp_path / "README.md"
    readme.write_text("```sh\ncroupier rules\n```\n", encoding="utf-8")
    [bare] = blocks(readme)
    with pytest.raises(check.DocFailed, match="exit status 127"):
        check.run_block(bare, box)
    readme.write_text("```sh\nscripts/run rules\n```\n", encoding="utf-8")
    [through] = blocks(readme)
    check.run_block(through, box)
