"""The operations a client calls, named as A2A 1.0 names them, and how a generation encodes each.

Requests are the core's neutral ones (`a2a_core.core.requests`), results the domain model's
objects, so a codec per generation (`codec_v0`, `codec_v1`) is a table from operation to its wire
name, request encoder and result decoder, and the client above never sees a wire type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

SEND = "SendMessage"
STREAM = "SendStreamingMessage"
GET_TASK = "GetTask"
LIST_TASKS = "ListTasks"
CANCEL = "CancelTask"
SUBSCRIBE = "SubscribeToTask"
SET_PUSH = "CreateTaskPushNotificationConfig"
GET_PUSH = "GetTaskPushNotificationConfig"
LIST_PUSH = "ListTaskPushNotificationConfigs"
DELETE_PUSH = "DeleteTaskPushNotificationConfig"
EXTENDED_CARD = "GetExtendedAgentCard"


@dataclass(frozen=True)
class Operation:
    """``name``: the 1.0 operation (the key of the HTTP+JSON routes); ``method``: the JSON-RPC
    method it is sent as. ``decode`` raises ValueError (pydantic's ValidationError among them)
    for an answer that is not the operation's result."""

    name: str
    method: str
    encode: Callable[[Any], dict[str, Any]]
    decode: Callable[[Any], Any]


Codec = Mapping[str, Operation]


def compact(**fields: Any) -> dict[str, Any]:
    """Wire params from camelCase keyword arguments, the unset (None) ones left out."""
    return {name: value for name, value in fields.items() if value is not None}


def no_params(request: object) -> dict[str, Any]:
    return {}


def json_object(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


def table(*operations: Operation) -> Codec:
    return {operation.name: operation for operation in operations}
