"""The configuration file and `croupier check-config`: clear errors, nothing started."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from controller.config import ConfigError, load


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


GOOD = """
[table]
id = "blue-7"
rules = "fr-classic"
boxes = 5

[state]
dir = "/var/lib/croupier"

[mqtt]
broker = "mqtts://pit.example:8883"
username = "table-blue-7"
password = "secret"

[mqtt.tls]
ca_file = "/etc/croupier/ca.pem"

[cards]
min_confidence = 0.95
"""


def test_a_good_file_loads_and_check_config_summarises_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, GOOD)
    config = load(path)
    assert config.table.id == "blue-7" and config.table.boxes == 5
    assert config.mqtt.tls is not None and config.mqtt.embedded.ws_port == 9001
    assert main(["check-config", str(path)]) == 0
    out = capsys.readouterr().out
    assert "ok" in out and "fr-classic" in out and "mqtts://pit.example:8883" in out


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[table]\nrulez = 'pt'\n", "table.rulez: unknown key"),
        ("[tabel]\n", "tabel: unknown key"),
        ("[table]\nrules = 'monte-carlo'\n", "table.rules: unknown rule profile 'monte-carlo'"),
        ("[table]\nboxes = 12\n", "table.boxes: Input should be less than or equal to 9"),
        ("[table]\nid = 'a/b'\n", "table.id: a table id is 1 to 32 letters"),
        ("[mqtt]\nbroker = 'http://x'\n", "mqtt.broker: 'http://x': the scheme must be one of"),
        ("[mqtt]\nbroker = 'mqtt://x:99999'\n", "mqtt.broker: 'mqtt://x:99999': the port"),
        ("[cards]\nmin_confidence = 2\n", "cards.min_confidence: Input should be less than"),
        ("[sim]\nspeed = 0\n", "sim.speed: speed is a factor above 0"),
        ("[state]\nfsync = 'yes'\n", "state.fsync: Input should be a valid boolean"),
        ("[table\n", "not valid TOML"),
    ],
)
def test_each_problem_names_the_file_the_key_and_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert expected in str(caught.value)
    assert main(["check-config", str(path)]) == 2
    assert expected in capsys.readouterr().err


def test_every_problem_is_listed_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, "[table]\nboxes = 0\ncolour = 'green'\n[cards]\nmin_confidence = -1\n")
    with pytest.raises(ConfigError) as caught:
        load(path)
    lines = str(caught.value).splitlines()
    assert len(lines) == 3 and all(line.startswith(f"{path}: ") for line in lines)


def test_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-config", str(tmp_path / "nope.toml")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_sim_flags_are_checked_like_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["sim", "--no-view", "--speed", "fast", "--state-dir", str(tmp_path)])
    assert code == 2
    assert "command line: sim.speed" in capsys.readouterr().err
    assert not (tmp_path / "table.db").exists()  # nothing started, nothing written


def test_the_pi_installer_template_is_a_valid_configuration(tmp_path: Path) -> None:
    template = Path(__file__).resolve().parents[2] / "systemd" / "table.toml.in"
    text = template.read_text()
    for placeholder, value in (("@TABLE@", "t7"), ("@RULES@", "be-casino"), ("@PASSWORD@", "x")):
        text = text.replace(placeholder, value)
    config = load(write(tmp_path, text))
    assert config.mqtt.username == "table-t7" and config.table.id == "t7"


def test_a_hard_cap_below_keep_days_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        load(write(tmp_path, "[journal]\nkeep_days = 90\nhard_cap_days = 30\n"))
    assert "journal: hard_cap_days (30) is below keep_days (90)" in str(caught.value)
