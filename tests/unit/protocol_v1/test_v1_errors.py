"""1.0 errors in both bindings: the spec's table (5.4, 9.5, 11.6) and a2a-sdk 1.3's reasons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from a2a_core.core import errors as e
from a2a_core.protocol.v1.errors import (
    A2A_DOMAIN,
    ANSWERED_AS,
    BAD_REQUEST_TYPE,
    ERROR_INFO_TYPE,
    ERROR_TABLE,
    MethodNotAllowedError,
    error_details,
    jsonrpc_error,
    jsonrpc_error_body,
    mapping_for,
    rest_error,
)
from a2a_core.protocol.v1.wire.parts import Message
from a2a_core.protocol.v1.wire.protojson import invalid_params
from a2a_core.protocol.validation import invalid_params as jsonrpc_invalid_params

SDK_ERRORS: dict[str, Any] = json.loads(
    (Path(__file__).parents[2] / "fixtures" / "a2a_v1" / "sdk13_errors.json").read_text()
)

# Spec 5.4: error -> (JSON-RPC code, gRPC status, HTTP status); 9.5 for the JSON-RPC standard ones.
SPEC_TABLE: list[tuple[type[e.A2AError], int, str, int]] = [
    (e.TaskNotFoundError, -32001, "NOT_FOUND", 404),
    (e.TaskNotCancelableError, -32002, "FAILED_PRECONDITION", 400),
    (e.PushNotificationNotSupportedError, -32003, "FAILED_PRECONDITION", 400),
    (e.UnsupportedOperationError, -32004, "FAILED_PRECONDITION", 400),
    (e.ContentTypeNotSupportedError, -32005, "INVALID_ARGUMENT", 400),
    (e.InvalidAgentResponseError, -32006, "INTERNAL", 500),
    (e.ExtendedAgentCardNotConfiguredError, -32007, "FAILED_PRECONDITION", 400),
    (e.ExtensionSupportRequiredError, -32008, "FAILED_PRECONDITION", 400),
    (e.VersionNotSupportedError, -32009, "FAILED_PRECONDITION", 400),
    (e.JSONParseError, -32700, "INVALID_ARGUMENT", 400),
    (e.InvalidRequestError, -32600, "INVALID_ARGUMENT", 400),
    (e.MethodNotFoundError, -32601, "NOT_FOUND", 404),
    (e.InvalidParamsError, -32602, "INVALID_ARGUMENT", 400),
    (e.InternalError, -32603, "INTERNAL", 500),
]


@pytest.mark.parametrize(
    ("cls", "code", "grpc", "http"), SPEC_TABLE, ids=[row[0].__name__ for row in SPEC_TABLE]
)
def test_every_error_is_mapped_as_the_spec_says(
    cls: type[e.A2AError], code: int, grpc: str, http: int
) -> None:
    mapping = mapping_for(cls("boom"))
    assert (mapping.code, mapping.grpc_status, mapping.http_status) == (code, grpc, http)
    assert cls.code == code  # the code the class carries, every generation's


@pytest.mark.parametrize(
    ("cls", "code", "grpc", "http"), SPEC_TABLE, ids=[row[0].__name__ for row in SPEC_TABLE]
)
def test_both_bodies_carry_code_message_and_an_error_info(
    cls: type[e.A2AError], code: int, grpc: str, http: int
) -> None:
    error = cls("Something specific went wrong")
    body = json.loads(jsonrpc_error_body(7, error))
    assert body["jsonrpc"] == "2.0"
    assert body["id"] == 7
    assert body["error"]["code"] == code
    assert body["error"]["message"] == "Something specific went wrong"
    info = body["error"]["data"][0]
    assert info == {"@type": ERROR_INFO_TYPE, "reason": mapping_for(error).reason, "domain": A2A_DOMAIN}
    status, rest = rest_error(error)
    assert status == http
    assert rest == {
        "error": {"code": http, "status": grpc, "message": "Something specific went wrong", "details": [info]}
    }


SDK_NAMED = sorted(set(SDK_ERRORS) & {cls.__name__ for cls in ERROR_TABLE} - {"JSONParseError"})


@pytest.mark.parametrize("name", SDK_NAMED)
def test_reasons_and_statuses_match_a2a_sdk_1_3(name: str) -> None:
    ours = getattr(e, name)("boom")
    sdk = SDK_ERRORS[name]
    assert jsonrpc_error(ours)["code"] == sdk["jsonrpc"]["code"]
    assert jsonrpc_error(ours)["data"][0]["reason"] == sdk["jsonrpc"]["data"][0]["reason"]
    status, body = rest_error(ours)
    assert (status, body["error"]["status"]) == (sdk["rest"]["error"]["code"], sdk["rest"]["error"]["status"])
    assert body["error"]["details"][0]["reason"] == sdk["rest"]["error"]["details"][0]["reason"]


def test_a2a_sdk_names_every_spec_error_we_map() -> None:
    assert len(SDK_NAMED) == 13


def test_parse_errors_deviate_from_a2a_sdk_on_purpose() -> None:
    # a2a-sdk 1.3 cannot encode JSONParseError over JSON-RPC and reports it as a 500 UNKNOWN_ERROR
    # over REST; a body that is not JSON is the client's fault: 400 with its own reason.
    assert SDK_ERRORS["JSONParseError"]["jsonrpc"] == {"sdkFailure": "ValidationError"}
    status, body = rest_error(e.JSONParseError())
    assert (status, body["error"]["details"][0]["reason"]) == (400, "PARSE_ERROR")


def test_spec_9_5_task_not_found_example() -> None:
    error = e.TaskNotFoundError(
        "Task not found", data={"taskId": "nonexistent-task-id", "timestamp": "2025-11-09T10:30:00.000Z"}
    )
    assert json.loads(jsonrpc_error_body(2, error)) == {
        "jsonrpc": "2.0",
        "id": 2,
        "error": {
            "code": -32001,
            "message": "Task not found",
            "data": [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "TASK_NOT_FOUND",
                    "domain": "a2a-protocol.org",
                    "metadata": {"taskId": "nonexistent-task-id", "timestamp": "2025-11-09T10:30:00.000Z"},
                }
            ],
        },
    }


def test_spec_9_5_invalid_params_example_gets_its_bad_request() -> None:
    error = e.InvalidParamsError(
        "Invalid parameters", data=[{"field": "message.parts", "message": "At least one part is required"}]
    )
    data = jsonrpc_error(error)["data"]
    assert data[1] == {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        "fieldViolations": [{"field": "message.parts", "description": "At least one part is required"}],
    }
    assert data[0]["reason"] == "INVALID_PARAMS"


def test_spec_11_6_rest_example() -> None:
    error = e.TaskNotFoundError(
        "The specified task ID does not exist or is not accessible",
        data={"taskId": "task-123", "timestamp": "2025-11-09T10:30:00.000Z"},
    )
    assert rest_error(error) == (
        404,
        {
            "error": {
                "code": 404,
                "status": "NOT_FOUND",
                "message": "The specified task ID does not exist or is not accessible",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "TASK_NOT_FOUND",
                        "domain": "a2a-protocol.org",
                        "metadata": {"taskId": "task-123", "timestamp": "2025-11-09T10:30:00.000Z"},
                    }
                ],
            }
        },
    )


class _Params(BaseModel):
    count: int
    items: list[int]


def test_0x_validation_details_become_field_violations() -> None:
    with pytest.raises(ValidationError) as caught:
        _Params.model_validate({"items": [1, "x"]})
    violations = error_details(jsonrpc_invalid_params(caught.value))[1]["fieldViolations"]
    assert violations == [
        {"field": "count", "description": "Field required"},
        {
            "field": "items[1]",
            "description": "Input should be a valid integer, unable to parse string as an integer",
        },
    ]


def test_1_0_validation_details_become_field_violations() -> None:
    with pytest.raises(ValidationError) as caught:
        Message.model_validate({"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}, {}]})
    [info, bad_request] = error_details(invalid_params(caught.value, prefix="message"))
    assert info["reason"] == "INVALID_PARAMS"
    assert bad_request["fieldViolations"][0]["field"] == "message.parts[1]"


def test_a_single_field_detail_uses_the_message_and_keeps_the_rest_as_metadata() -> None:
    error = e.InvalidParamsError(
        "message.parts.3.text is too long", data={"field": "message.parts.3.text", "limit": 10}
    )
    [info, bad_request] = error_details(error)
    assert info["metadata"] == {"limit": "10"}
    assert bad_request == {
        "@type": BAD_REQUEST_TYPE,
        "fieldViolations": [
            {"field": "message.parts[3].text", "description": "message.parts.3.text is too long"}
        ],
    }


def test_metadata_values_are_strings() -> None:
    error = e.ContentTypeNotSupportedError(
        data={"supportedInputModes": ["text/plain"], "strict": True, "note": "x"}
    )
    assert error_details(error)[0]["metadata"] == {
        "supportedInputModes": '["text/plain"]',
        "strict": "true",
        "note": "x",
    }
    assert error_details(e.InternalError(data="oops"))[0]["metadata"] == {"detail": "oops"}


@pytest.mark.parametrize(
    ("error", "reason", "http", "grpc"),
    [
        (e.PushConfigNotFoundError("no such config"), "TASK_NOT_FOUND", 404, "NOT_FOUND"),
        (e.StoreUnavailableError(), "INTERNAL_ERROR", 503, "UNAVAILABLE"),
        (e.BrokerUnavailableError(), "INTERNAL_ERROR", 503, "UNAVAILABLE"),
        (e.InvalidTransitionError("no"), "INVALID_PARAMS", 400, "INVALID_ARGUMENT"),
        (e.TaskTerminalError("ended"), "UNSUPPORTED_OPERATION", 400, "FAILED_PRECONDITION"),
        (e.A2AError("base"), "INTERNAL_ERROR", 500, "INTERNAL"),
        (MethodNotAllowedError(data={"allow": "POST"}), "METHOD_NOT_FOUND", 405, "UNIMPLEMENTED"),
    ],
)
def test_subclasses_use_their_own_entry_or_their_nearest_base(
    error: e.A2AError, reason: str, http: int, grpc: str
) -> None:
    status, body = rest_error(error)
    assert (body["error"]["details"][0]["reason"], status, body["error"]["status"]) == (reason, http, grpc)


def test_1_0_states_no_code_of_its_own_but_the_two_it_answers_as_other_errors() -> None:
    overridden = {cls for cls, mapping in ERROR_TABLE.items() if mapping.code != cls.code}
    assert overridden == set(ANSWERED_AS) == {e.PushConfigNotFoundError, e.TaskTerminalError}
    for cls, known in ANSWERED_AS.items():
        assert ERROR_TABLE[cls] == ERROR_TABLE[known]


@pytest.mark.parametrize(
    ("error", "v0_code", "v1_code"),
    [(e.PushConfigNotFoundError(), -32602, -32001), (e.TaskTerminalError(), -32602, -32004)],
)
def test_each_generation_answers_the_overridden_errors_its_way(
    error: e.A2AError, v0_code: int, v1_code: int
) -> None:
    from a2a_core.protocol.jsonrpc import error_body

    assert json.loads(error_body(1, error))["error"]["code"] == v0_code
    assert json.loads(jsonrpc_error_body(1, error))["error"]["code"] == v1_code
