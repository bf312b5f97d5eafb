"""Rule profiles on disk: the shipped ones (controller/profiles/*.toml) and
any profile file a table names. Reading files lives here, not in the engine."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from controller.engine.errors import ProfileError
from controller.engine.profile import RuleProfile, profile_from_mapping
from controller.inputs import InputError, load_toml, read_text

SHIPPED = ("fr-classic", "fr-2007", "us-holecard", "pt", "be-casino", "ref-peek", "ref-enhc")


def _read(where: str, text: str) -> dict[str, object]:
    try:
        return load_toml(text, where)
    except InputError as exc:
        raise ProfileError(str(exc)) from None


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
        # A regular file only: a round script may name any path, and /dev/zero or a
        # FIFO would be read forever.
        if not path.is_file():
            raise ProfileError(f"{path}: no such profile file")
        text = read_text(path, "rule profile", max_bytes=64 * 1024)
    except OSError as exc:
        raise ProfileError(f"{path}: cannot read the profile: {exc.strerror}") from None
    except InputError as exc:
        raise ProfileError(str(exc)) from None
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
    try:
        exists = path.suffix == ".toml" or path.exists()
    except (OSError, ValueError):  # a name too long, or with a NUL, is no file
        exists = False
    if exists:
        return load_file(path)
    raise ProfileError(
        f"unknown rule profile {name_or_path!r}: give one of {', '.join(SHIPPED)} or a .toml file"
    )


def all_shipped() -> list[RuleProfile]:
    return [shipped(name) for name in SHIPPED]
