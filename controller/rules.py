"""Rule profiles on disk: the shipped ones (controller/profiles/*.toml) and
any profile file a table names. Reading files lives here, not in the engine."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

from controller.engine.errors import ProfileError
from controller.engine.profile import RuleProfile, profile_from_mapping

SHIPPED = ("fr-classic", "fr-2007", "us-holecard", "pt", "be-casino", "ref-peek", "ref-enhc")


def _read(where: str, text: str) -> dict[str, object]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{where}: not valid TOML: {exc}") from None


def shipped(name: str) -> RuleProfile:
    if name not in SHIPPED:
        raise ProfileError(
            f"unknown rule profile {name!r}: shipped profiles are {', '.join(SHIPPED)}"
        )
    text = resources.files("controller").joinpath("profiles", f"{name}.toml").read_text("utf-8")
    return profile_from_mapping(_read(f"{name}.toml", text), f"{name}.toml")


def load_file(path: Path) -> RuleProfile:
    """A profile file; `extends = "<shipped name>"` starts from a shipped profile."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile: {exc.strerror}") from None
    data = _read(str(path), text)
    base = None
    parent = data.get("extends")
    if parent is not None:
        if not isinstance(parent, str):
            raise ProfileError(f"{path}: extends: expected a shipped profile's name")
        base = shipped(parent)
    return profile_from_mapping(data, str(path), base)


def load(name_or_path: str) -> RuleProfile:
    """A shipped profile by name, or a profile file by path."""
    if name_or_path in SHIPPED:
        return shipped(name_or_path)
    path = Path(name_or_path)
    if path.suffix == ".toml" or path.exists():
        return load_file(path)
    raise ProfileError(
        f"unknown rule profile {name_or_path!r}: give one of {', '.join(SHIPPED)} or a .toml file"
    )


def all_shipped() -> list[RuleProfile]:
    return [shipped(name) for name in SHIPPED]
