"""ProtoJSON scalars and rules of the 1.0 wire models: what is accepted, what is refused, what is sent."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from a2a_core.core.errors import InvalidParamsError
from a2a_core.protocol.v1.wire.params import GetTaskRequest, ListTasksRequest, SendMessageConfiguration
from a2a_core.protocol.v1.wire.parts import Message, Part, Role
from a2a_core.protocol.v1.wire.protojson import (
    INT32_MAX,
    INT32_MIN,
    Int32,
    canonical_base64,
    dump,
    dump_json,
    field_path,
    format_timestamp,
    invalid_params,
    parse_timestamp,
)
from a2a_core.protocol.v1.wire.tasks import TaskStatus


def violations(model: type[Any], data: dict[str, Any]) -> list[dict[str, str]]:
    with pytest.raises(ValidationError) as caught:
        model.model_validate(data)
    error = invalid_params(caught.value)
    assert isinstance(error.data, list)
    return error.data


@pytest.mark.parametrize(
    ("given", "expected"),
    [(10, 10), ("10", 10), ("-3", -3), (10.0, 10), ("1e2", 100), ("2.0", 2), (INT32_MAX, INT32_MAX)],
)
def test_int32_accepts_numbers_and_decimal_strings(given: object, expected: int) -> None:
    assert TypeAdapter(Int32).validate_python(given) == expected


@pytest.mark.parametrize(
    "given", [True, False, 1.5, "1.5", "", "ten", " 1", "0x10", [1], {"n": 1}, float("nan")]
)
def test_int32_refuses_everything_else(given: object) -> None:
    [problem] = violations(GetTaskRequest, {"id": "t", "historyLength": given})
    assert problem["field"] == "historyLength"
    assert "integer" in problem["message"]


@pytest.mark.parametrize("given", [INT32_MAX + 1, str(INT32_MIN - 1), 1e12])
def test_int32_refuses_values_outside_its_range(given: object) -> None:
    [problem] = violations(ListTasksRequest, {"historyLength": given})
    assert "int32" in problem["message"] or "greater" in problem["message"]


def test_negative_history_length_is_refused() -> None:
    [problem] = violations(GetTaskRequest, {"id": "t", "historyLength": -5})
    assert problem == {"field": "historyLength", "message": "Input should be greater than or equal to 0"}


@pytest.mark.parametrize("given", ["true", "false", 1, 0, "yes", None])
def test_bools_must_be_json_booleans(given: object) -> None:
    if given is None:  # null is "unset" in ProtoJSON
        assert SendMessageConfiguration.model_validate({"returnImmediately": None}).return_immediately is None
        return
    [problem] = violations(SendMessageConfiguration, {"returnImmediately": given})
    assert problem["field"] == "returnImmediately"


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("aGk=", "aGk="),
        ("aGk", "aGk="),  # padding optional
        ("-_8", "+/8="),  # URL-safe alphabet
        ("+/8=", "+/8="),
        ("", ""),
        ("AAAA", "AAAA"),
    ],
)
def test_raw_is_base64_in_either_alphabet_and_sent_standard(given: str, canonical: str) -> None:
    assert canonical_base64(given) == canonical
    assert dump(Part.model_validate({"raw": given})) == {"raw": canonical}


@pytest.mark.parametrize("given", ["a", "aGk===", "aG=k", "a+b-", "not base64!", "=", "AAAA=", 5])
def test_invalid_base64_is_refused(given: object) -> None:
    [problem] = violations(Part, {"raw": given})
    assert problem["field"] == "raw"
    assert "base64" in problem["message"]


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("2024-03-15T10:15:00Z", "2024-03-15T10:15:00.000Z"),
        ("2024-03-15T10:15:00.1Z", "2024-03-15T10:15:00.100Z"),
        ("2024-03-15T10:15:00.123456789Z", "2024-03-15T10:15:00.123Z"),
        ("2024-03-15t10:15:00z", "2024-03-15T10:15:00.000Z"),
        ("2024-03-15T12:15:00+02:00", "2024-03-15T10:15:00.000Z"),
        ("2024-03-15T00:15:00-01:30", "2024-03-15T01:45:00.000Z"),
        ("0999-01-01T00:00:00Z", "0999-01-01T00:00:00.000Z"),
    ],
)
def test_timestamps_are_rfc3339_in_and_utc_milliseconds_out(given: str, sent: str) -> None:
    status = TaskStatus.model_validate({"state": "TASK_STATE_WORKING", "timestamp": given})
    assert dump(status)["timestamp"] == sent
    assert format_timestamp(parse_timestamp(sent)) == sent


@pytest.mark.parametrize(
    "given",
    ["2024-03-15", "2024-03-15 10:15:00Z", "2024-02-30T10:15:00Z", "2024-03-15T10:15:00", 1710497700, ""],
)
def test_bad_timestamps_are_refused(given: object) -> None:
    [problem] = violations(TaskStatus, {"state": "TASK_STATE_WORKING", "timestamp": given})
    assert problem["field"] == "timestamp"


def test_an_aware_datetime_is_accepted_and_a_naive_one_is_not() -> None:
    moment = datetime(2024, 3, 15, 10, 15, 0, 123999, tzinfo=UTC)
    assert parse_timestamp(moment) == datetime(2024, 3, 15, 10, 15, 0, 123000, tzinfo=UTC)
    with pytest.raises(ValueError, match="time zone"):
        parse_timestamp(datetime(2024, 3, 15))


def test_enums_accept_names_and_numbers_and_send_names() -> None:
    by_name = TaskStatus.model_validate({"state": "TASK_STATE_INPUT_REQUIRED"})
    by_number = TaskStatus.model_validate({"state": 6})
    assert dump(by_name) == dump(by_number) == {"state": "TASK_STATE_INPUT_REQUIRED"}


@pytest.mark.parametrize("given", ["completed", "task_state_completed", 9, -1, True, "6"])
def test_unknown_enum_values_are_refused_listing_the_names(given: object) -> None:
    [problem] = violations(TaskStatus, {"state": given})
    assert problem["field"] == "state"
    assert "TASK_STATE_COMPLETED" in problem["message"]


def test_snake_case_names_are_accepted_and_camel_case_is_sent() -> None:
    snake = Message.model_validate(
        {"message_id": "m", "role": "ROLE_USER", "parts": [{"text": "x"}], "context_id": "c", "task_id": "t"}
    )
    assert dump(snake) == {
        "messageId": "m",
        "role": "ROLE_USER",
        "parts": [{"text": "x"}],
        "contextId": "c",
        "taskId": "t",
    }


def test_unknown_fields_are_ignored() -> None:
    message = Message.model_validate(
        {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x", "kind": "text"}], "kind": "message"}
    )
    assert dump(message) == {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}


def test_empty_strings_of_plain_proto3_fields_mean_unset() -> None:
    message = Message.model_validate(
        {
            "messageId": "m",
            "role": 1,
            "parts": [{"text": ""}],
            "taskId": "",
            "contextId": "",
            "extensions": [],
        }
    )
    assert message.task_id is None
    assert message.context_id is None
    assert dump(message) == {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": ""}]}


def test_null_means_unset_except_for_part_data() -> None:
    assert dump(Part.model_validate({"text": "x", "url": None, "raw": None})) == {"text": "x"}
    # data is a google.protobuf.Value: null is a value, so this part sets two members.
    with pytest.raises(ValidationError, match="sets text and data"):
        Part.model_validate({"text": "x", "data": None})
    assert dump(Part.model_validate({"data": None, "text": None})) == {"data": None}


def test_field_paths_use_dots_and_indexes() -> None:
    assert field_path(("message", "parts", 0, "text")) == "message.parts[0].text"
    assert field_path((0, "a")) == "[0].a"
    assert field_path(()) == ""


def test_invalid_params_lists_every_violation_and_names_the_first() -> None:
    with pytest.raises(ValidationError) as caught:
        ListTasksRequest.model_validate(
            {"pageSize": 150, "historyLength": -5, "status": "TASK_STATE_RUNNING"}
        )
    error = invalid_params(caught.value, prefix="params")
    assert isinstance(error, InvalidParamsError)
    assert isinstance(error.data, list)
    assert {item["field"] for item in error.data} == {
        "params.pageSize",
        "params.historyLength",
        "params.status",
    }
    assert error.message.startswith("Invalid params: params.")


def test_dump_json_is_the_same_protojson_as_bytes() -> None:
    message = Message(message_id="m", role=Role.ROLE_AGENT, parts=[Part(data=None), Part(text="x")])
    assert json.loads(dump_json(message)) == dump(message)
    assert json.loads(dump_json(message))["parts"][0] == {"data": None}
