"""The worked round script of every profile gives the settlements worked out by hand."""

import json
from pathlib import Path

import pytest

from controller import rules
from controller.replay import replay

SCRIPTS = Path(__file__).parent / "scripts"


@pytest.mark.parametrize("profile", rules.SHIPPED)
def test_worked_script(profile):
    script = (SCRIPTS / f"{profile}.jsonl").read_text().splitlines()
    expected = [json.loads(line) for line in (SCRIPTS / f"{profile}.expected.jsonl").open()]
    assert list(replay(script)) == expected
