"""Surveillance analytics: shoe integrity, the count and the bets that follow it,
payouts, table metrics, decisions against basic strategy.

Pure modules (no I/O, no clock) fed by the service with the engine's
operation records and the bet sensors' readings; everything they produce
goes to `croupier/v1/<table>/surveillance/...` topics only (docs/surveillance.md).
"""

from .desk import TOPICS, Out, Settings, Surveillance

__all__ = ["TOPICS", "Out", "Settings", "Surveillance"]
