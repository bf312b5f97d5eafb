"""Connecting to the floor's PostgreSQL and bringing its schema up to date.

The schema is the numbered SQL files in migrations/ (package data), applied in
order, each in its own transaction with its row in `floor_migrations`. Two
recorders starting at once take turns on an advisory lock, so a migration
never runs twice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import psycopg

LOCK = 0x63726F75  # pg_advisory_xact_lock key: "crou"
NAME = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


class FloorDbError(RuntimeError):
    """The floor database cannot be used (unreachable, too new, psycopg missing)."""


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def migrations() -> list[Migration]:
    found = []
    for entry in resources.files("controller.floor").joinpath("migrations").iterdir():
        match = NAME.match(entry.name)
        if match:
            found.append(Migration(int(match[1]), match[2], entry.read_text("utf-8")))
    found.sort(key=lambda m: m.version)
    if [m.version for m in found] != list(range(1, len(found) + 1)):
        raise FloorDbError(f"migrations are not numbered 1..n: {[m.version for m in found]}")
    return found


def psycopg_module() -> Any:
    try:
        import psycopg
    except ImportError:
        raise FloorDbError(
            "psycopg (3) is not installed: the floor tools need the `floor` extra "
            "(pip install 'croupier[floor]')"
        ) from None
    return psycopg


def connect(url: str, autocommit: bool = False) -> psycopg.Connection[Any]:
    """A connection to `url` (postgresql://...), or a FloorDbError that says why not.
    Passwords belong in ~/.pgpass or PGPASSWORD, not in the URL (ps shows it)."""
    module = psycopg_module()
    try:
        conn: psycopg.Connection[Any] = module.connect(
            url, autocommit=autocommit, connect_timeout=10
        )
    except module.Error as exc:
        raise FloorDbError(f"cannot connect to the floor database: {exc}".strip()) from None
    return conn


def migrate(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply the migrations `conn`'s database lacks; returns their versions."""
    known = migrations()
    applied: list[int] = []
    for m in known:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS floor_migrations (version integer PRIMARY KEY, "
                "name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            row = conn.execute("SELECT max(version) FROM floor_migrations").fetchone()
            have = row[0] if row and row[0] is not None else 0
            if have > len(known):
                raise FloorDbError(
                    f"the floor database's schema is version {have}; this croupier knows "
                    f"versions up to {len(known)}: upgrade croupier before it writes there"
                )
            if m.version <= have:
                continue
            conn.execute(m.sql.encode())
            conn.execute(
                "INSERT INTO floor_migrations (version, name) VALUES (%s, %s)", (m.version, m.name)
            )
            applied.append(m.version)
    return applied
