"""`croupier floor report`: the floor_table_shifts view as CSV."""

from __future__ import annotations

import csv
import datetime as dt
from decimal import Decimal
from typing import Any, TextIO

COLUMNS = (
    "table_id", "shift_day", "shift", "rounds", "voided_rounds", "first_round", "last_round",
    "rounds_per_hour", "dropped", "won", "hold", "unreadable_cards", "card_while_waiting",
    "foreign_card", "late_bet", "pinched_bet", "sensor_fault", "refused", "other_alerts",
    "mistaken_cards", "card_corrections",
)  # fmt: skip


class ReportError(ValueError):
    pass


def _day(value: str | None, flag: str) -> dt.date | None:
    if value is None:
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise ReportError(f"{flag} {value!r}: expected a day as YYYY-MM-DD") from None


def rows(
    conn: Any, since: str | None, until: str | None, tables: list[str]
) -> list[tuple[Any, ...]]:
    first, last = _day(since, "--since"), _day(until, "--until")
    query = (
        f"SELECT {', '.join(COLUMNS)} FROM floor_table_shifts "
        "WHERE (%(first)s::date IS NULL OR shift_day >= %(first)s) "
        "AND (%(last)s::date IS NULL OR shift_day <= %(last)s) "
        "AND (cardinality(%(tables)s::text[]) = 0 OR table_id = ANY(%(tables)s)) "
        "ORDER BY shift_day, shift, table_id"
    )
    with conn.cursor() as cur:
        cur.execute(query, {"first": first, "last": last, "tables": tables})
        found: list[tuple[Any, ...]] = cur.fetchall()
    conn.rollback()
    return found


def cell(value: Any, column: str) -> str:
    if value is None:
        return ""
    if column == "hold":
        return f"{Decimal(value):.4f}"  # a fraction: 0.0213 is 2.13 %
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return str(value)


def write_csv(
    conn: Any, out: TextIO, since: str | None, until: str | None, tables: list[str]
) -> int:
    found = rows(conn, since, until, tables)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in found:
        writer.writerow([cell(v, c) for v, c in zip(row, COLUMNS, strict=True)])
    return len(found)
