"""systemd/install.sh run into a scratch root (--root): what it writes, that a
second run changes nothing, and that what it wrote works with mosquitto."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.deploy.mosquitto import Peer, free_port, mosquitto, need, scratch_dir, templated
from tests.deploy.units import SYSTEMD, prepare_root, verify

INSTALL = SYSTEMD / "install.sh"


@pytest.fixture
def root() -> Iterator[Path]:
    need("mosquitto_passwd", "mosquitto")  # install.sh writes the broker's password file
    with scratch_dir() as path:
        yield path


def install(root: Path, *args: str, ok: bool = True) -> str:
    done = subprocess.run(
        ["bash", str(INSTALL), "--root", str(root), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    out = done.stdout + done.stderr
    assert (done.returncode == 0) == ok, f"install.sh exited {done.returncode}:\n{out}"
    return out


def snapshot(root: Path) -> dict[str, tuple[str, str]]:
    """Every path under root: its mode, and its content's hash for files."""
    return {
        str(p.relative_to(root)): (
            oct(p.lstat().st_mode),
            hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "",
        )
        for p in sorted(root.rglob("*"))
    }


def config(root: Path) -> dict[str, dict[str, str]]:
    with (root / "etc/croupier/table.toml").open("rb") as f:
        return tomllib.load(f)


def test_a_first_install_writes_the_table(root: Path) -> None:
    out = install(root, "--table", "T7", "--rules", "fr-classic")
    cfg = config(root)
    assert cfg["table"] == {"id": "T7", "rules": "fr-classic"}
    assert cfg["state"]["dir"] == "/var/lib/croupier"
    assert cfg["mqtt"]["broker"] == "mqtt://127.0.0.1:1883"
    assert cfg["mqtt"]["username"] == "table-T7" and len(cfg["mqtt"]["password"]) >= 20
    assert oct((root / "etc/croupier/table.toml").stat().st_mode & 0o777) == "0o640"
    broker = root / "etc/mosquitto/croupier"
    assert (broker / "roster").read_text() == "table-T7 table T7\n"
    acl = (broker / "acl").read_text()
    # The table writes what it publishes, never a request (issue 37): no "T7/#".
    grants = "".join(
        f"topic write croupier/v1/T7/{t}\n"
        for t in ("status", "info", "state", "events", "outcome", "outcome/last", "alerts",
                  "surveillance/#", "cmd/+/response", "bridge")
    )
    assert f"user table-T7\n{grants}topic read croupier/v1/T7/cmd/+\n" in acl
    assert "topic write croupier/v1/T7/#" not in acl
    assert "topic write croupier/v1/T7/cmd/+\n" not in acl
    assert cfg["mqtt"]["password"] not in (broker / "passwd").read_text()
    for path in (
        "etc/systemd/system/croupier.service",
        "etc/systemd/system/croupier-retry.timer",
        "etc/mosquitto/conf.d/10-croupier.conf",
        "usr/local/sbin/croupier-broker",
        "opt/croupier/share/roles.acl",
        "opt/croupier/share/deploy.md",
        "etc/systemd/system/mosquitto.service.d/croupier.conf",
    ):
        assert (root / path).is_file(), path
    # What acts on the live system is printed, not run, under --root.
    assert "would run: systemctl enable --now croupier.service croupier-retry.timer" in out
    assert "would run: python3 -m venv --system-site-packages /opt/croupier/venv" in out


def test_a_second_run_changes_nothing(root: Path) -> None:
    install(root, "--table", "T7")
    before = snapshot(root)
    out = install(root)  # the table id now comes from table.toml
    assert snapshot(root) == before
    assert " wrote " not in out and " updated " not in out, out
    assert "unchanged /etc/croupier/table.toml" in out
    assert "unchanged broker account table-T7" in out
    assert "daemon-reload" not in out and "restart mosquitto" not in out


def test_an_edited_config_is_kept_and_a_different_id_refused(root: Path) -> None:
    install(root, "--table", "T7")
    path = root / "etc/croupier/table.toml"
    edited = path.read_text().replace('rules = "be-casino"', 'rules = "pt"') + "\n# local note\n"
    path.write_text(edited)
    install(root, "--table", "T7")
    assert path.read_text() == edited
    out = install(root, "--table", "T8", ok=False)
    assert "is table 'T7', not 'T8'" in out
    assert path.read_text() == edited


def test_the_installed_units_pass_systemd_analyze_verify(root: Path) -> None:
    install(root, "--table", "T7", "--gpio", "rpi-gpio")  # with the RPi.GPIO drop-in
    prepare_root(root)
    done = verify(root)
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr
    if (root / "usr/lib/systemd/system/mosquitto.service").exists():
        # Debian's unit with our drop-in; its programs need only exist.
        for program in ("usr/sbin/mosquitto", "usr/bin/kill", "usr/bin/mkdir", "usr/bin/chown"):
            (root / program).parent.mkdir(parents=True, exist_ok=True)
            (root / program).write_text("#!/bin/sh\n")
            (root / program).chmod(0o755)
        done = verify(root, ("mosquitto.service",))
        assert done.returncode == 0 and done.stdout + done.stderr == "", done.stderr


def apply_printed_chowns(out: str, group: str) -> None:
    """Do what install.sh would have done live for `group` (it prints chown under --root).
    Not root: mosquitto runs as this user, who owns the files already."""
    if os.geteuid() != 0:
        return
    for line in out.splitlines():
        if line.startswith(f"install: would run: chown root:{group} "):
            shutil.chown(line.rsplit(" ", 1)[1], group=group)


def test_the_table_logs_in_with_the_password_install_wrote(root: Path) -> None:
    out = install(root, "--table", "T7")
    apply_printed_chowns(out, "mosquitto")  # so the broker, as user mosquitto, can read them
    secret = config(root)["mqtt"]["password"]
    port = free_port()
    conf = templated(
        root / "etc/mosquitto/conf.d/10-croupier.conf",
        root / "etc/mosquitto/croupier",
        {"listener 1883 127.0.0.1": f"listener {port} 127.0.0.1"},
    )
    with scratch_dir() as base, mosquitto(base, {"10-croupier.conf": conf}, [port]):
        table = Peer(port, "table-T7", secret)
        try:
            table.connect()
            table.publish("croupier/v1/T7/status", "online")
        finally:
            table.close()
        stranger = Peer(port, "table-T7", secret + "x")
        try:
            assert stranger.attempt().startswith("refused: Not authorized")
        finally:
            stranger.close()


def test_the_floor_listeners_follow_the_certificates(root: Path) -> None:
    floor = root / "etc/mosquitto/conf.d/20-croupier-floor.conf"
    out = install(root, "--table", "T7")
    assert not floor.exists() and "the floor listeners (TLS 8883, WebSockets 9443) stay off" in out
    certs = root / "etc/mosquitto/croupier/certs"
    for name in ("ca.crt", "broker.crt", "broker.key"):
        (certs / name).write_text("stand-in\n")
    out = install(root)
    assert floor.read_text() == (SYSTEMD / "mosquitto/20-croupier-floor.conf").read_text()
    assert "would run: systemctl restart mosquitto.service" in out  # new listeners need a restart
    (certs / "broker.key").unlink()
    install(root)
    assert not floor.exists()  # mosquitto would not start at all with a missing key


def test_the_gpio_library_and_its_drop_in(root: Path) -> None:
    dropin = root / "etc/systemd/system/croupier.service.d/rpi-gpio-sysfs.conf"
    out = install(root, "--table", "T7", "--gpio", "rpi-gpio")
    assert dropin.is_file()
    assert "pip install --upgrade --quiet " in out and "[pi]" in out
    assert "python3-dev gcc" in out  # RPi.GPIO builds from source
    model = root / "proc/device-tree/model"
    model.parent.mkdir(parents=True)
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    out = install(root)
    assert "GPIO library: rpi-lgpio (a Raspberry Pi 5" in out
    assert "pip uninstall --yes --quiet RPi.GPIO" in out and " rpi-lgpio" in out
    assert not dropin.exists()  # ProtectKernelTunables=yes again: lgpio needs no /sys writes


def test_dry_run_writes_nothing(root: Path) -> None:
    out = install(root, "--table", "T7", "--dry-run")
    assert list(root.iterdir()) == []
    assert "would write /etc/croupier/table.toml (0640 root:croupier)" in out
    assert "would write /etc/systemd/system/croupier.service" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((), "--table ID is needed for a first install"),
        (("--table", "T 7"), "'T 7' is not a table id"),
        (("--table", "croupier/v1/#"), "is not a table id"),
        (("--table", "T7", "--gpio", "wiringpi"), "--gpio must be auto, rpi-gpio or rpi-lgpio"),
        (("--table", "T7", "--rules", "x;rm"), "is not a rule profile name"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(
    root: Path, args: tuple[str, ...], message: str
) -> None:
    assert message in install(root, *args, ok=False)
    assert list(root.iterdir()) == []


def test_the_written_config_is_one_the_service_accepts(root: Path) -> None:
    config_module = pytest.importorskip(
        "controller.config", reason="the table service's config module is not on this branch yet"
    )
    install(root, "--table", "T7")
    loaded = config_module.load(root / "etc/croupier/table.toml")
    assert loaded.table.id == "T7" and loaded.mqtt.username == "table-T7"


@pytest.mark.parametrize("script", ["install.sh", "croupier-broker"])
def test_shellcheck_is_clean(script: str) -> None:
    if shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed (Debian package shellcheck)")
    done = subprocess.run(
        ["shellcheck", str(SYSTEMD / script)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout
