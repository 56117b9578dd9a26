"""The official A2A 0.2.5 JSON schema (``spec/a2a-0.2.5.schema.json``) and a validator for any of
its definitions, shared by the tests that hold our 0.x wire to it.

Its definitions fall in two groups, each checked where it really occurs: the types the kit
defines (the domain model and the 0.x method params, `tests/unit/test_schema.py`) and the JSON-RPC
envelope around them (`ENVELOPE`: requests, responses and error objects, checked as our client
sends them and our server answers, `tests/integration/test_v0_wire_schema.py`).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

_NAME = "a2a-0.2.5.schema.json"
_CANDIDATES = (Path(__file__).resolve().parents[1] / "spec" / _NAME, Path("/work/shared/spec") / _NAME)
SCHEMA_PATH = next((path for path in _CANDIDATES if path.exists()), _CANDIDATES[0])
DEFS: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())["definitions"]

# JSON-RPC 2.0 and its A2A methods: method -> (its request, its success response, its response union).
METHODS: dict[str, tuple[str, str, str]] = {
    "message/send": ("SendMessageRequest", "SendMessageSuccessResponse", "SendMessageResponse"),
    "message/stream": (
        "SendStreamingMessageRequest",
        "SendStreamingMessageSuccessResponse",
        "SendStreamingMessageResponse",
    ),
    "tasks/get": ("GetTaskRequest", "GetTaskSuccessResponse", "GetTaskResponse"),
    "tasks/cancel": ("CancelTaskRequest", "CancelTaskSuccessResponse", "CancelTaskResponse"),
    # 0.2.5 names no response of its own for resubscribe: its events are message/stream's.
    "tasks/resubscribe": (
        "TaskResubscriptionRequest",
        "SendStreamingMessageSuccessResponse",
        "SendStreamingMessageResponse",
    ),
    "tasks/pushNotificationConfig/set": (
        "SetTaskPushNotificationConfigRequest",
        "SetTaskPushNotificationConfigSuccessResponse",
        "SetTaskPushNotificationConfigResponse",
    ),
    "tasks/pushNotificationConfig/get": (
        "GetTaskPushNotificationConfigRequest",
        "GetTaskPushNotificationConfigSuccessResponse",
        "GetTaskPushNotificationConfigResponse",
    ),
    "tasks/pushNotificationConfig/list": (
        "ListTaskPushNotificationConfigRequest",
        "ListTaskPushNotificationConfigSuccessResponse",
        "ListTaskPushNotificationConfigResponse",
    ),
    "tasks/pushNotificationConfig/delete": (
        "DeleteTaskPushNotificationConfigRequest",
        "DeleteTaskPushNotificationConfigSuccessResponse",
        "DeleteTaskPushNotificationConfigResponse",
    ),
}
# Every request, response and error object validates against these too.
REQUEST_ENVELOPES = ("A2ARequest", "JSONRPCRequest", "JSONRPCMessage")
RESPONSE_ENVELOPES = ("JSONRPCResponse", "JSONRPCMessage")
ERROR_OBJECTS = tuple(ref["$ref"].rsplit("/", 1)[-1] for ref in DEFS["A2AError"]["anyOf"])
ENVELOPE = frozenset(
    {name for names in METHODS.values() for name in names}
    | {*REQUEST_ENVELOPES, *RESPONSE_ENVELOPES, "JSONRPCSuccessResponse", "JSONRPCErrorResponse"}
    | {"A2AError", "JSONRPCError", *ERROR_OBJECTS}
)


@functools.cache
def _validator(name: str) -> Any:
    return jsonschema.Draft7Validator({"$ref": f"#/definitions/{name}", "definitions": DEFS})


def violations(name: str, value: Any) -> list[str]:
    """What the definition ``name`` finds wrong with ``value`` (JSON-ready); [] when it is valid."""
    return [error.message for error in _validator(name).iter_errors(value)]
