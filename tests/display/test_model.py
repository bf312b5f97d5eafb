"""The pages' table model (controller/display/static/js/model.js) under node's
own test runner: gaps, duplicates, restarts, keyed-in cards, rounds per hour,
the dealer's wording. The browser tests check the same model end to end."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def test_table_model_under_node() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the model's own tests need it (not the browser tests)")
    done = subprocess.run(
        [node, "--test", str(HERE / "model.test.mjs")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "# fail 0" in done.stdout and "# pass 0" not in done.stdout
