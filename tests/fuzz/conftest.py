"""The fuzz tests use the service tests' broker (Debian's mosquitto on a free port)
and their schema-checking subscriber."""

from tests.service.conftest import broker, fresh_broker, subscribe

__all__ = ["broker", "fresh_broker", "subscribe"]
