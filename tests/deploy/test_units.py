"""The systemd units: systemd-analyze accepts them, and they keep their contract."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.deploy.units import SYSTEMD, analyze, install_units, parse, prepare_root, verify


def test_systemd_analyze_verify_accepts_the_units_without_a_warning(tmp_path: Path) -> None:
    prepare_root(tmp_path)
    install_units(tmp_path, drop_ins=True)
    done = verify(tmp_path)
    assert done.returncode == 0 and done.stdout + done.stderr == "", done.stdout + done.stderr


def test_the_verify_check_does_catch_a_mistake(tmp_path: Path) -> None:
    """The negative control: systemd-analyze exits 0 on these, only its output tells."""
    prepare_root(tmp_path)
    units = install_units(tmp_path)
    service = units / "croupier.service"
    text = service.read_text()
    service.write_text(
        text.replace("DeviceAllow=char-media rw", "DeviceAllow=media rw").replace(
            "SystemCallFilter=@system-service", "SystemCallFilter=@system-servce"
        )
    )
    done = verify(tmp_path)
    assert "Invalid device node path 'media'" in done.stderr
    assert "Unknown system call group" in done.stderr
    (tmp_path / "opt/croupier/venv/bin/croupier").unlink()
    assert "is not executable" in verify(tmp_path).stderr


def test_the_hardening_scores_ok_in_systemd_analyze_security(tmp_path: Path) -> None:
    prepare_root(tmp_path)
    install_units(tmp_path)
    done = subprocess.run(
        [
            analyze(),
            "security",
            "--offline=true",
            f"--root={tmp_path}",
            "--threshold=20",
            "croupier.service",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # --threshold=20: exit status 1 when the exposure is above 2.0 ("OK" ends at 3.9).
    assert done.returncode == 0, done.stdout[-400:]


def test_the_service_contract() -> None:
    unit = parse(SYSTEMD / "croupier.service")
    section = {k: v for k, v in unit["Unit"]}
    service = unit["Service"]
    one = dict(service)
    # The start limit belongs in [Unit]; in [Service] systemd 252 would still
    # take it silently, but it is deprecated there.
    assert {"StartLimitIntervalSec", "StartLimitBurst"} <= section.keys()
    assert not {"StartLimitIntervalSec", "StartLimitBurst", "StartLimitInterval"} & one.keys()
    assert one["Type"] == "notify" and one["NotifyAccess"] == "main"
    assert one["Restart"] == "always"
    assert one["WatchdogSec"] == "30s"
    assert one["ExecStart"] == (
        "/opt/croupier/venv/bin/croupier run --config /etc/croupier/table.toml"
    )
    assert one["User"] == "croupier" and one["SupplementaryGroups"] == "gpio video dialout"
    assert one["StateDirectory"] == "croupier" and one["ConfigurationDirectory"] == "croupier"
    assert one["ProtectSystem"] == "strict" and one["NoNewPrivileges"] == "yes"
    # PrivateDevices=yes would hide the camera, GPIO and serial ports.
    assert "PrivateDevices" not in one and one["DevicePolicy"] == "closed"
    allowed = {v.split()[0] for k, v in service if k == "DeviceAllow"}
    assert {
        "char-gpiochip",
        "char-*gpiomem*",
        "char-video4linux",
        "char-media",
        "char-dma_heap",
        "char-ttyUSB",
        "char-ttyACM",
        "char-ttyAMA",
        "/dev/ttyS0",
    } == allowed
    assert one["LimitCORE"] == "0"  # a watchdog abort must not write a core to the SD card


def test_the_retry_timer_restarts_only_a_failed_unit() -> None:
    retry = dict(parse(SYSTEMD / "croupier-retry.service")["Service"])
    assert retry["ExecCondition"] == "/bin/systemctl --quiet is-failed croupier.service"
    timer = dict(parse(SYSTEMD / "croupier-retry.timer")["Timer"])
    assert timer["OnUnitActiveSec"] == "10min"
