import os
from typing import Any

from hypothesis import HealthCheck, settings

# CI gets more examples than a developer's quick run; both are deterministic per seed.
settings.register_profile(
    "ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The parts a machine may lack, and what the suite does without each: named at
# the end of every run, with the skips grouped by reason, so a green run on a
# bare machine does not pass for a full one.
OPTIONAL = (
    ("mosquitto", "mosquitto", "the broker tests run on the embedded amqtt broker; those "
     "that need mosquitto's own features (ACL, TLS, bridge, persistence) are skipped"),
    ("mosquitto_sub", "mosquitto-clients", "the README's mosquitto_sub example is not run"),
    ("chromium", "chromium", "the display's browser tests are skipped"),
    ("chromedriver", "chromium-driver", "the display's browser tests are skipped"),
    ("node", "nodejs", "the display model's own tests (node --test) are skipped"),
    ("shellcheck", "shellcheck", "systemd/install.sh is not linted"),
    ("systemd-analyze", "systemd", "the systemd units are not verified"),
)


def _found(tool: str) -> bool:
    import shutil

    return shutil.which(tool) is not None or any(
        os.access(f"{d}/{tool}", os.X_OK) for d in ("/usr/sbin", "/usr/bin", "/usr/lib/chromium")
    )


def pytest_terminal_summary(terminalreporter: Any) -> None:
    missing = [(tool, package, what) for tool, package, what in OPTIONAL if not _found(tool)]
    skipped: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else "?"
        reason = reason.removeprefix("Skipped: ")
        # One line per cause: a doc block's own place is not part of its cause.
        cause = reason.split(": ", 1)[1] if reason.startswith(("README.md:", "docs/")) else reason
        skipped[cause] = skipped.get(cause, 0) + 1
    if not missing and not skipped:
        return
    write = terminalreporter.write_line
    terminalreporter.section("what this run left out, and why")
    for tool, package, what in missing:
        write(f"{tool} not installed (apt-get install {package}): {what}")
    for cause, count in sorted(skipped.items(), key=lambda kv: -kv[1]):
        write(f"{count:4d} skipped: {cause}")
