"""What each boundary must do with malformed input, and nothing more: the documented
outcome. A check returns "accepted" or "refused", or raises `Violation` when the
outcome is not a documented one; any other exception out of a check is a crash
of the code under test (a traceback where a refusal was due).

- replay: exit 0 (or 1: the script ends mid-round), or exit 2 with `line N: why`.
- pit: the request is answered `"ok": false` with an error, and the table (its
  state, journal and event stream) is exactly as before; or, when the mutation
  left a well-formed request, it is answered at all, and the table runs on.
- config, profile, calibration files: the typed object, or the module's own
  error naming the file.
- device lines: a frame, or a reason it is not one.
- the display server: an HTTP status line for every request; it keeps serving.
"""

from __future__ import annotations

import io
import json
import re
import socket
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import commands


class Violation(AssertionError):
    """The outcome is not one the documentation allows."""


def _need(cond: bool, why: str) -> None:
    if not cond:
        raise Violation(why)


# --------------------------------------------------------------- replay
WHY_LINE = re.compile(r"^line [1-9][0-9]*: \S")


def check_replay(script: bytes) -> str:
    from controller.cli.replay import play

    out, err = io.StringIO(), io.StringIO()
    status = play(io.BytesIO(script), out, err)
    text = err.getvalue()
    if status == 0:
        return "accepted"
    if status == 1:
        _need(text.startswith("end of script: "), f"exit 1 without 'end of script': {text!r}")
        return "accepted"
    _need(status == 2, f"exit {status}")
    _need(bool(WHY_LINE.match(text)), f"exit 2 without 'line N: why': {text[:200]!r}")
    _need(text.count("\n") == 1, f"more than one line on stderr: {text[:300]!r}")
    return "refused"


# --------------------------------------------------------------- pit requests
def check_request(name: str, payload: bytes) -> str:
    """The parse alone: a typed request or a refusal that says why."""
    parsed = commands.parse(name, payload)
    if isinstance(parsed, commands.Refusal):
        _need(isinstance(parsed.error, str) and bool(parsed.error), "a refusal without a reason")
        return "refused"
    again = commands.validate(name, commands.fields(parsed))
    _need(not isinstance(again, commands.Refusal), f"a request that does not check again: {again}")
    return "accepted"


class PitDesk:
    """A table on fake drivers with a round in play, taking requests offline: the
    service's own loop step, as its MQTT client hands a request over."""

    def __init__(self) -> None:
        from controller.config import Config, override
        from controller.service import Service
        from drivers.fakes import FakeBetSensor
        from drivers.interfaces import DriverSet
        from sim.card_shoe import SimShoe
        from sim.keypad import SimKeypad

        self._tmp = tempfile.TemporaryDirectory(prefix="croupier-fuzz-")
        cfg = override(
            Config(),
            "fuzz",
            table={"id": "fuzz", "rules": "be-casino"},
            state={"dir": Path(self._tmp.name) / "state", "fsync": False},
        )
        shoe, bets, panel = SimShoe(), FakeBetSensor(), SimKeypad()
        self.service = Service(cfg, DriverSet(shoe, bets, panel), None)
        self.service.start()
        bets.place(1, "10")  # a round in play: the requests meet a table with stakes
        bets.place(2, "20")
        panel.press("close_bets")
        for card in ("9H", "8D", "7C", "TS", "5H"):
            shoe.draw(card)
        self.service.drain()

    def close(self) -> None:
        self.service.stop()
        self.service.store.close()
        self._tmp.cleanup()

    def snapshot(self) -> dict[str, Any]:
        """Everything a refusal must leave alone: the full table, the journal's end."""
        from controller.engine.view import table_state

        s = self.service
        return {
            "table": table_state(s.table, public=False),
            "journal": s.store.last_seq,
            "events": s.stream.seq,
            "limits": (s.table.table_min, s.table.table_max),
        }

    def check(self, name: str, payload: bytes) -> str:
        from controller.mqtt_link import Command

        s = self.service
        before, last = self.snapshot(), s.store.last_id()
        parsed = commands.parse(name, payload)
        s.put(Command(name, payload))
        s.drain()  # the loop's step: an exception here would have stopped the table
        if "/" in name:  # an answer on cmd/x/response: not a request, ignored
            _need(self.snapshot() == before, "a non-request changed the table")
            return "refused"
        answers = [
            json.loads(row.payload)
            for row in s.store.rows_from(last + 1, 10_000)
            if row.topic == f"cmd/{name}/response"
        ]
        _need(bool(answers), f"no answer to {name!r}")
        answer = answers[-1]
        _need(isinstance(answer.get("ok"), bool), f"an answer without ok: {answer}")
        if answer["ok"] is False:
            _need(isinstance(answer.get("error"), str) and bool(answer["error"]), "no error")
        if isinstance(parsed, commands.Refusal):
            _need(answer["ok"] is False, f"a malformed request answered ok: {answer}")
            _need(self.snapshot() == before, "a refused request changed the table or journal")
            return "refused"
        return "accepted" if answer["ok"] else "refused"

    def journal_is_clean(self) -> int:
        """Every pit command in the journal is a well-formed request (nothing malformed
        was journaled); returns how many there are."""
        from controller.records import PitCommand, decode

        n = 0
        for _seq, data in self.service.store.records(1):
            record = decode(data)
            if isinstance(record, PitCommand):
                n += 1
                got = commands.validate(record.name, dict(record.request))
                _need(not isinstance(got, commands.Refusal), f"journaled malformed: {record}")
        return n


# --------------------------------------------------------------- files
def _file(data: bytes, suffix: str) -> Path:
    with tempfile.NamedTemporaryFile(prefix="croupier-fuzz-", suffix=suffix, delete=False) as f:
        f.write(data)
    return Path(f.name)


def _check_file(
    data: bytes,
    suffix: str,
    load: Callable[[Path], object],
    error: type[Exception],
    names_it: Callable[[str, Path], bool],
) -> str:
    """`data` as a file: loaded, or refused with the module's own error naming the file."""
    path = _file(data, suffix)
    try:
        load(path)
        return "accepted"
    except error as exc:
        _need(names_it(str(exc), path), f"an error that does not name the file: {exc}")
        return "refused"
    finally:
        path.unlink()


def _starts_with_path(text: str, path: Path) -> bool:
    return text.startswith(str(path))


def check_config(data: bytes) -> str:
    from controller.config import ConfigError, load

    return _check_file(data, ".toml", load, ConfigError, _starts_with_path)


def check_profile(data: bytes) -> str:
    from controller import rules
    from controller.engine.errors import ProfileError

    # A profile's error may name the shipped profile it extends ("fr-2007.toml: ...").
    return _check_file(
        data, ".toml", rules.load_file, ProfileError, lambda t, p: str(p) in t or ".toml" in t
    )


def check_calibration(data: bytes) -> str:
    from controller import scale_file as scale
    from drivers.loadcell.scale import CalibrationError

    return _check_file(data, ".json", scale.load, CalibrationError, _starts_with_path)


# --------------------------------------------------------------- device lines
def check_device(kind: str, stream: bytes) -> str:
    from drivers.loadcell import frame as lc
    from drivers.serial import keypad as kp
    from drivers.serial import shoe as cs
    from drivers.serial.lines import Framer, Reject, decode

    parse = {"loadcell": lc.parse, "shoe": cs.parse, "keypad": kp.parse}[kind]
    framer = Framer()
    taken = refused = 0
    for i in range(0, len(stream), 7):  # as a UART hands it over: in small pieces
        for item in framer.feed(stream[i : i + 7]):
            line = item if isinstance(item, Reject) else decode(item)
            if isinstance(line, Reject):
                _need(bool(line.reason), "a reject without a reason")
                refused += 1
                continue
            got = parse(line)
            _need(isinstance(got, str | tuple) or type(got).__name__ == "Frame", f"{got!r}")
            taken += not isinstance(got, str)
    return "accepted" if taken and not refused else "refused"


# --------------------------------------------------------------- display server
class Display:
    """`croupier display`'s server on a free port, for the length of a run."""

    def __init__(self) -> None:
        from controller.display.server import DisplayConfig, make_server

        self.server = make_server(DisplayConfig(tables=("T1",)), port=0)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def ask(self, request: bytes, timeout: float = 5.0) -> bytes:
        with socket.create_connection(("127.0.0.1", self.server.port), timeout=timeout) as s:
            s.sendall(request)
            s.shutdown(socket.SHUT_WR)
            chunks = []
            while True:
                try:
                    chunk = s.recv(65536)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
        return b"".join(chunks)

    def check(self, request: bytes) -> str:
        reply = self.ask(request)
        # A request too broken to parse may be closed without a word (http.server does so
        # for an empty request line): the server must still answer the next one.
        if reply:
            _need(re.match(rb"HTTP/1\.[01] [1-5][0-9][0-9] ", reply) is not None, f"{reply[:80]!r}")
        _need(self.thread.is_alive(), "the display server stopped")
        ok = self.ask(b"GET /config.json HTTP/1.0\r\n\r\n")
        _need(ok.startswith(b"HTTP/1.0 200"), f"the server no longer serves: {ok[:80]!r}")
        return "accepted" if reply.startswith((b"HTTP/1.1 200", b"HTTP/1.0 200")) else "refused"
