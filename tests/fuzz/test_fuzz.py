"""The fuzzing suite's short profile: every input surface of the table, valid input
mutated byte-wise and structurally (bench/fuzz_gen.py), each case held to the
documented outcome only (bench/fuzz_check.py). The long profile is
`python -m bench fuzz --minutes N`; its figures are in docs/benchmarks.md."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench import fuzz_check as check
from bench import fuzz_gen as gen
from bench import fuzz_vision as vision

# Each case is a file written or a table step: the profile's example count, no deadline
# (a loaded CI machine), and a fixture shared by every example (a table, a server).
SHARED = settings(suppress_health_check=[HealthCheck.function_scoped_fixture,
                                         HealthCheck.too_slow, HealthCheck.data_too_large])


@SHARED
@given(gen.round_scripts())
def test_replay_exits_0_1_or_2_with_line_n_why(script: bytes) -> None:
    check.check_replay(script)


@SHARED
@given(gen.pit_requests())
def test_a_pit_request_is_typed_or_refused_with_why(request: tuple[str, bytes]) -> None:
    check.check_request(*request)


@pytest.fixture(scope="module")
def desk() -> Iterator[check.PitDesk]:
    table = check.PitDesk()
    yield table
    table.close()


@SHARED
@given(gen.pit_requests())
def test_the_table_answers_every_request_and_a_refusal_changes_nothing(
    desk: check.PitDesk, request: tuple[str, bytes]
) -> None:
    check_result = desk.check(*request)
    assert check_result in ("accepted", "refused")


def test_nothing_malformed_was_journaled(desk: check.PitDesk) -> None:
    # Runs after the test above on the same table (pytest keeps the file's order).
    desk.journal_is_clean()


@SHARED
@given(st.just(gen.CONFIG).flatmap(gen.mutated_toml))
def test_a_config_file_loads_or_is_a_config_error_naming_it(data: bytes) -> None:
    check.check_config(data)


@SHARED
@given(st.sampled_from(gen.profile_texts()).flatmap(gen.mutated_toml))
def test_a_rule_profile_loads_or_is_a_profile_error(data: bytes) -> None:
    check.check_profile(data)


@SHARED
@given(gen.calibration_files())
def test_a_calibration_file_loads_or_is_a_calibration_error_naming_it(data: bytes) -> None:
    check.check_calibration(data)


@SHARED
@given(vision.vision_calibration_files())
def test_a_vision_calibration_loads_a_usable_model_or_is_a_calibration_error(
    data: bytes,
) -> None:
    assert vision.check_vision_calibration(data) in ("accepted", "refused")


@SHARED
@given(gen.device_streams())
def test_device_lines_are_frames_or_rejects_with_a_reason(stream: tuple[str, bytes]) -> None:
    check.check_device(*stream)


@pytest.fixture(scope="module")
def display() -> Iterator[check.Display]:
    server = check.Display()
    yield server
    server.close()


@settings(SHARED, max_examples=60)
@given(gen.http_requests())
def test_the_display_server_answers_every_request_and_keeps_serving(
    display: check.Display, request: bytes
) -> None:
    check_result = display.check(request)
    assert check_result in ("accepted", "refused")


def test_a_repeat_under_the_commands_other_name_is_answered_where_it_was_asked() -> None:
    # Found by the long run: "void" then "void_round" with one transaction answered the
    # second on cmd/void/response, where its sender does not listen.
    desk = check.PitDesk()
    try:
        request = b'{"transaction": "t9", "by": "anna", "reason": "dispute"}'
        assert desk.check("void", request) == "accepted"
        assert desk.check("void_round", request) == "accepted"
        answer = desk.service.store.rows_from(desk.service.store.last_id(), 1)[0]
        assert answer.topic == "cmd/void_round/response"
        assert '"command":"void_round"' in answer.payload
    finally:
        desk.close()
