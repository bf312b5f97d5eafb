"""croupier rules [PROFILE]"""

from __future__ import annotations

import argparse
from decimal import Decimal
from typing import Any

from controller.engine.profile import SETTINGS, RuleProfile


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "rules",
        help="list the rule profiles, or show one profile's settings",
        description="Without PROFILE: one line per shipped profile. With PROFILE (a name or a "
        ".toml file): every setting, its value and what it means, then the profile's notes.",
    )
    parser.add_argument("profile", nargs="?", help="profile name or .toml file")
    parser.set_defaults(handler=run)


def show_value(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple):
        return ", ".join(str(v) for v in value) if value else "any"
    if isinstance(value, Decimal):
        return format(value.normalize(), "f")
    return str(value)


def describe(profile: RuleProfile) -> str:
    lines = [f"{profile.name}: {profile.title}", f"source: {profile.source or '-'}", ""]
    width = max(len(n) for n in SETTINGS)
    for name, spec in SETTINGS.items():
        value = getattr(profile, name)
        mark = " " if value == spec.default else "*"
        lines.append(f"{mark} {name:<{width}}  {show_value(value):<10}  {spec.doc}")
    lines.append("")
    lines.append("* differs from the default")
    if profile.notes:
        lines.append("")
        lines.append("notes:")
        lines.extend(f"- {note}" for note in profile.notes)
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    import sys

    from controller import rules
    from controller.engine.errors import ProfileError

    try:
        if args.profile:
            print(describe(rules.load(args.profile)))
        else:
            for p in rules.all_shipped():
                print(f"{p.name:<12} {p.title}")
    except ProfileError as exc:
        print(f"croupier rules: {exc}", file=sys.stderr)
        return 2
    return 0
